/* flctl-args.h: flctl's whole command line, parsed without printing, exiting or touching files
 *
 * One parser for the global options, the subcommand and the subcommand's options and operands,
 * so that flctl's main() and the fuzz target (tests/fuzz/fuzz-flctl-args.c) run the very same
 * code. GOptionContext would print and exit() on --help; here help is an outcome like any other:
 * the text to print comes back in FlctlArgs.help.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  FLCTL_COMMAND_NONE,
  FLCTL_COMMAND_RUN,
  FLCTL_COMMAND_STATUS,
  FLCTL_COMMAND_LIST,
  FLCTL_COMMAND_RECLAIM,
  FLCTL_COMMAND_CLEAN,
  FLCTL_COMMAND_WATCH,
  FLCTL_COMMAND_DEMO,
  FLCTL_COMMAND_HOLD,
} FlctlCommand;

#define FLCTL_ARGS_ERROR (flctl_args_error_quark ())

typedef enum
{
  FLCTL_ARGS_ERROR_USAGE,
} FlctlArgsError;

/* The default of `flctl run -w`, in seconds; `-w forever` (or -1) is FLCTL_WAIT_FOREVER. */
#define FLCTL_DEFAULT_WAIT_S 30.0
#define FLCTL_WAIT_FOREVER   (-1.0)

typedef struct
{
  FlctlCommand   command;
  gboolean       version;           /* --version: print the version and exit */
  char          *help;              /* --help, `flctl help [COMMAND]`: print this and exit 0;
                                     * after a failed parse, the help to print instead of the
                                     * error (flctl alone, without a command) */
  char         **operands;          /* TARGET, PATH…, LOCKFILE… or DIR…; NULL-terminated */
  char         **command_argv;      /* run: COMMAND [ARG…] (after TARGET or "--"), or the shell
                                     * running -c's command */

  gboolean       json;              /* status, list: -J, lslocks' {"locks": [...]} of the -o
                                     * columns; watch: -J, one record per line */
  gboolean       records;           /* status, list: -j, flctl's records (JSON OUTPUT) */
  char          *output;            /* status, list, clean: -o, the columns (flctl-columns.c) */
  gboolean       output_all;        /* status, list, clean: --output-all */
  int            pid;               /* list: -p, only the locks of this PID; 0: all */
  gboolean       raw;               /* status, list, clean: the table as lslocks --raw */
  gboolean       noheadings;        /* status, list, clean */
  gboolean       notruncate;        /* status, list, clean */
  gboolean       recursive;         /* list, clean, watch */
  gboolean       kernel;            /* list: the kernel locks instead of the files */
  gboolean       dry_run;           /* reclaim, clean */
  gboolean       yes;               /* reclaim, clean */
  gboolean       force;             /* reclaim: also a lock not proven stale */
  char          *lease;             /* reclaim: the etcd lease the operator saw (hex) */
  gboolean       no_wait;           /* run */
  gboolean       verbose;           /* run */
  double         wait_s;            /* run: how long to wait for the lock; -1: forever */
  int            conflict_exit_code; /* run: the exit status when the lock cannot be had */
  int            lost_signal;       /* run: sent to COMMAND when the lock is lost; 0: none */
  gboolean       detach;            /* demo */
  char          *process_name;      /* hold: --name */
} FlctlArgs;

/* -o, --output-all, --raw, --noheadings, --notruncate or -J: a table (or lslocks' JSON of
 * one) was asked for. */
static inline gboolean
flctl_args_has_table_options (const FlctlArgs *args)
{
  return args->output != NULL || args->output_all || args->raw || args->noheadings
         || args->notruncate || args->json;
}

GQuark          flctl_args_error_quark     (void);
const char     *flctl_command_get_name     (FlctlCommand   command);
void            flctl_args_init            (FlctlArgs     *args);
gboolean        flctl_args_parse           (FlctlArgs     *args,
                                            int            argc,
                                            char * const  *argv,
                                            GError       **error);
void            flctl_args_clear           (FlctlArgs     *args);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlctlArgs, flctl_args_clear)

G_END_DECLS
