/* flctl.c: the entry point of flctl, subcommand dispatch, and helpers the subcommands share
 *
 * The command line is parsed in flctl-args.c, which prints nothing: main() prints its help and
 * usage errors.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-os.h"
#include "flctl-private.h"

typedef int (*FlctlCommandMain) (const FlctlArgs *args);

static const struct
{
  FlctlCommand     command;
  FlctlCommandMain main;
} command_mains[] = {
  { FLCTL_COMMAND_RUN,     flctl_run_main },
  { FLCTL_COMMAND_STATUS,  flctl_status_main },
  { FLCTL_COMMAND_LIST,    flctl_list_main },
  { FLCTL_COMMAND_RECLAIM, flctl_reclaim_main },
  { FLCTL_COMMAND_CLEAN,   flctl_clean_main },
  { FLCTL_COMMAND_WATCH,   flctl_watch_main },
  { FLCTL_COMMAND_DEMO,    flctl_demo_main },
  { FLCTL_COMMAND_HOLD,    flctl_hold_main },
};

int
flctl_usage_error (const char *command,
                   const char *format,
                   ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);

  flctl_print_error (command, "%s", message);
  g_printerr (_("Try 'flctl %s --help' for more information.\n"), command);
  return FLCTL_EXIT_USAGE;
}

/* The mapping is documented in flctl(1), EXIT STATUS. */
int
flctl_exit_status_for_error (const GError *error)
{
  if (error->domain == FL_ERROR)
    switch ((FlError) error->code)
      {
      case FL_ERROR_BUSY:
      case FL_ERROR_TIMEOUT:
        return FLCTL_EXIT_BUSY;
      case FL_ERROR_NOT_STALE:
      case FL_ERROR_CHANGED:
        return FLCTL_EXIT_REFUSED;
      case FL_ERROR_INVALID_TARGET:
        return FLCTL_EXIT_USAGE;
      case FL_ERROR_FAILED:
      case FL_ERROR_LOST:
      case FL_ERROR_NOT_DIRECTORY:
      case FL_ERROR_PERMISSION:
      case FL_ERROR_FOREIGN:
      case FL_ERROR_NO_SPACE:
      default:
        return FLCTL_EXIT_IO;
      }
  return FLCTL_EXIT_IO;
}

int
flctl_report_error (const char   *command,
                    const GError *error)
{
  flctl_print_error (command, "%s", error->message);
  return flctl_exit_status_for_error (error);
}

/* libfl's "no such lock file" (a missing directory is another error). */
gboolean
flctl_error_is_not_found (const GError *error)
{
  return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

gboolean
flctl_stdin_is_terminal (void)
{
  return flctl_os_isatty (STDIN_FILENO);
}

/* Only ever called when stdin is a terminal: scripts pass -y. */
gboolean
flctl_confirm (const char *question)
{
  char answer[64];

  g_printerr ("%s [y/N] ", question);
  fflush (stderr);
  if (fgets (answer, sizeof answer, stdin) == NULL)
    {
      g_printerr ("\n");
      return FALSE;
    }
  g_strstrip (answer);
  return g_ascii_strcasecmp (answer, "y") == 0 || g_ascii_strcasecmp (answer, "yes") == 0;
}

/* A PATH names a lock file when libfl would have written it (T.lock, a temp or a graveyard);
 * anything else is a target, whose lock is T.lock. The library decides, by name. */
gboolean
flctl_looks_like_lock_file (const char *path)
{
  return fl_entry_kind_for_name (path, NULL);
}

FlSnapshot *
flctl_snapshot_for_path (const char          *path,
                         const FlLockOptions *options,
                         GError             **error)
{
  if (!flctl_is_etcd (path) && flctl_looks_like_lock_file (path))
    return fl_snapshot_new (path, options, error);
  return fl_snapshot_new_for_target (path, options, error);
}

static int
compare_snapshots_by_path (gconstpointer a,
                           gconstpointer b)
{
  FlSnapshot *sa = *(FlSnapshot * const *) a;
  FlSnapshot *sb = *(FlSnapshot * const *) b;

  return strcmp (fl_snapshot_get_path (sa), fl_snapshot_get_path (sb));
}

/* Scans every directory, reports each directory (or subdirectory, with -r) that cannot be
 * read, and goes on with the others: what was found is listed, and the exit status says the
 * listing is incomplete, so that "nothing found" with status 0 means nothing is there. */
GPtrArray *
flctl_scan_directories (const char * const *directories,
                        gboolean            recursive,
                        const char         *command,
                        int                *exit_status)
{
  GPtrArray *all = g_ptr_array_new_with_free_func (g_object_unref);

  for (gsize i = 0; directories[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) found = NULL;
      g_autoptr(GPtrArray) unreadable = NULL;

      found = fl_scan_directory_full (directories[i],
                                      recursive ? FL_SCAN_RECURSIVE : FL_SCAN_NONE,
                                      NULL, NULL, &unreadable, &error);
      if (found == NULL)
        {
          *exit_status = flctl_report_error (command, error);
          continue;
        }
      for (guint j = 0; j < unreadable->len; j++)
        *exit_status = flctl_report_error (command, g_ptr_array_index (unreadable, j));
      for (guint j = 0; j < found->len; j++)
        g_ptr_array_add (all, g_object_ref (g_ptr_array_index (found, j)));
    }
  g_ptr_array_sort (all, compare_snapshots_by_path);
  return all;
}

/* flctl-os-unix.c and flctl-os-win32.c say what dying of a signal is there. */
void
flctl_die_by_signal (int signo)
{
  flctl_os_die_by_signal (signo);
}

int
main (int    argc,
      char **argv)
{
  g_auto(FlctlArgs) args = { 0 };
  g_autoptr(GError) error = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname ("flctl");
  flctl_text_install_print_handlers ();

  flctl_args_init (&args);
  if (!flctl_args_parse (&args, argc, argv, &error))
    {
      if (args.help != NULL)
        {
          g_printerr ("%s", args.help);
          return FLCTL_EXIT_USAGE;
        }
      if (args.command != FLCTL_COMMAND_NONE)
        return flctl_usage_error (flctl_command_get_name (args.command), "%s", error->message);
      flctl_print_error (NULL, "%s", error->message);
      g_printerr (_("Try 'flctl --help' for more information.\n"));
      return FLCTL_EXIT_USAGE;
    }
  if (args.help != NULL)
    {
      g_print ("%s", args.help);
      return FLCTL_EXIT_OK;
    }
  if (args.version)
    {
      g_print ("flctl %s\n", PACKAGE_VERSION);
      return FLCTL_EXIT_OK;
    }

  for (gsize i = 0; i < G_N_ELEMENTS (command_mains); i++)
    if (command_mains[i].command == args.command)
      return command_mains[i].main (&args);
  g_assert_not_reached ();
}
