/* flctl-args.c: flctl's command line, parsed without printing, exiting or touching files
 *
 * GOptionContext does the parsing, with its own --help turned off: GLib's prints and calls
 * exit(), which neither a fuzzer nor a test can live with. Our --help is a plain flag, and the
 * text to print is built here and returned. The only global state touched is the program name,
 * which GOption's help text starts with ("Usage: flctl run …").
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>

#include <glib/gi18n.h>

#include "flctl-args.h"

typedef struct
{
  FlctlCommand  command;
  const char   *name;
  const char   *parameters;
  const char   *summary;       /* one line, in `flctl --help`; NULL: hidden */
  const char   *long_summary;  /* above the options, in `flctl COMMAND --help` */
  const char   *description;   /* below them */
} CommandInfo;

static const CommandInfo command_infos[] = {
  { FLCTL_COMMAND_RUN, "run", N_("TARGET [--] COMMAND [ARG…] | TARGET -c COMMAND"),
    N_("Hold the lock of a target while a command runs"),
    N_("Hold the lock of TARGET (the file TARGET.lock) while COMMAND runs, and exit with\n"
       "COMMAND's status."),
    N_("When the lock cannot be had, flctl prints who holds it (PID, process, age) and exits\n"
       "with 75 (or CODE). If COMMAND is killed by signal N, flctl releases the lock and dies\n"
       "of the same signal: the shell shows 128+N. SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to\n"
       "flctl are passed on to COMMAND; while waiting, they end the wait and leave nothing\n"
       "behind. COMMAND starts at the first word after TARGET that is not an option, or after\n"
       "'--', as with flock(1); -c runs a command line through the shell.\n"
       "As with flock(1), COMMAND inherits a file descriptor of the lock file, which shares\n"
       "the lock's kernel lock: if flctl is killed, the lock stays held until COMMAND (and\n"
       "whatever inherited the descriptor from it) has exited. Not on Windows, where flctl\n"
       "holds the lock itself until COMMAND ends.") },
  { FLCTL_COMMAND_STATUS, "status", N_("PATH…"),
    N_("Show the holder and state of locks"),
    N_("Show the holder and the state of locks. Each PATH is a target (its lock is PATH.lock),\n"
       "a lock file, a temp or graveyard file, or an etcd lock etcd://HOST:PORT/PREFIX/NAME\n"
       "(its holder's host, lease, TTL left, token and waiters)."),
    N_("A target that nobody holds is reported with the state \"unlocked\". A directory is\n"
       "the target of its own lock (DIR.lock): 'flctl list DIR' lists the locks in it.\n"
       "Exit status: 0 when every PATH was reported, 74 when one could not be read.") },
  { FLCTL_COMMAND_LIST, "list", N_("DIR…"),
    N_("List the lock, temp and graveyard files in directories"),
    N_("List every lock, temp and graveyard file in each DIR, with its state. A DIR may be\n"
       "an etcd prefix, etcd://HOST:PORT/PREFIX: every lock name queued under it."),
    N_("States: held, stale, unknown (locks); active, orphan (temp and graveyard files);\n"
       "foreign (named like a lock but not a regular file, never touched); free (another\n"
       "program's lock file that nobody holds). Other programs' lock files (git, LibreOffice,\n"
       "Emacs, Firefox, dpkg, flock) show their program as KIND and are never reclaimed.\n"
       "--kernel lists the kernel locks instead (flock, POSIX, OFD locks, leases: what\n"
       "lslocks shows), of the whole system or on files in each DIR; a libfl holder's\n"
       "kernel lock is shown as its lock file, where lslocks shows a removed temp name.\n"
       "Exit status: 0 on success, 74 when a DIR cannot be read.") },
  { FLCTL_COMMAND_RECLAIM, "reclaim", N_("LOCKFILE…"),
    N_("Reclaim stale locks, after showing the evidence"),
    N_("Reclaim stale locks through libfl, after showing the evidence (holder, liveness,\n"
       "kernel lock, age, reason) and asking. A LOCKFILE may also be given as its target."),
    N_("A lock that is not stale is refused and left untouched; the reason is printed.\n"
       "--force also reclaims one libfl never calls stale by itself (its holder may be\n"
       "alive), never one whose kernel lock is held. An etcd lock (etcd://...) is never\n"
       "stale: etcd judges it alive; --force --lease HEX revokes that very lease.\n"
       "Exit status: 0 all reclaimed, 1 one was refused (not stale, changed meanwhile,\n"
       "not confirmed), 2 usage, 74 an I/O or permission error.") },
  { FLCTL_COMMAND_CLEAN, "clean", N_("DIR…"),
    N_("Remove orphaned temp and graveyard files"),
    N_("Remove the temp and graveyard files in each DIR whose creator is provably gone."),
    N_("Locks are never removed by clean: use 'flctl reclaim' for a stale lock.\n"
       "Exit status: 0 removed or nothing to clean, 1 not confirmed, 2 usage, 74 an I/O or\n"
       "permission error.") },
  { FLCTL_COMMAND_WATCH, "watch", N_("DIR…"),
    N_("Print lock changes in directories as they happen"),
    N_("Print the changes to the lock, temp and graveyard files in each DIR as they happen,\n"
       "until interrupted."),
    N_("Events: created, released, taken-over, holder-died, updated. Files already there when\n"
       "watch starts are not reported; use 'flctl list' for them.\n"
       "Exit status: 0 when interrupted, 74 when a DIR cannot be watched.") },
  { FLCTL_COMMAND_DEMO, "demo", N_("DIR"),
    N_("Fill a directory with a realistic mix of locks"),
    N_("Fill DIR (empty or new) with a realistic mix of locks: live holders, a killed holder,\n"
       "a reused PID, an empty lock, orphaned temp and graveyard files, a nested lock."),
    N_("demo prints one line per file it made, then the line \"ready\", and keeps the live\n"
       "holders running until it gets SIGINT or SIGTERM (they release their locks and exit\n"
       "with it), or, with --detach, exits at once and leaves them running.") },
  /* Hidden: the live holders of `flctl demo`, and a handy way to hold a lock in tests. */
  { FLCTL_COMMAND_HOLD, "hold", N_("TARGET"), NULL,
    N_("Hold the lock of TARGET until signalled (internal)."), NULL },
};

/* The columns of -o, in --help as lslocks --help lists its own. The names are those of
 * flctl-listing.c and flctl-kernel.c (a test checks that each is here). */
typedef struct
{
  const char *name;
  const char *help;
} ColumnInfo;

static const ColumnInfo file_columns[] = {
  { "STATE", N_("held, stale, unknown, active, orphan, foreign, free or unlocked") },
  { "KIND", N_("lock, temp, graveyard, foreign, or another program's (git, emacs…)") },
  { "PID", N_("the holder's PID (the creator's for a temp or graveyard file)") },
  { "PROCESS", N_("its process name") },
  { "LIVENESS", N_("alive, dead, reused or unknown; stopped or exited for a holder") },
  { "HOST", N_("an etcd holder's host") },
  { "LEASE", N_("an etcd holder's lease, in hex") },
  { "WAITERS", N_("how many wait for an etcd lock") },
  { "AGE", N_("time since the file was written") },
  { "PATH", N_("the file") },
  { "TARGET", N_("the locked file it belongs to") },
};

static const ColumnInfo kernel_columns[] = {
  { "TYPE", N_("flock, posix, ofd, lease or deleg") },
  { "MODE", N_("read or write, and (waiting) for a waiter") },
  { "PID", N_("the PID that took the lock (or waits for it)") },
  { "PROCESS", N_("its process name") },
  { "RANGE", N_("the locked bytes, START-END or START-EOF") },
  { "LIBFL", N_("lock when it is a libfl holder's kernel lock") },
  { "PATH", N_("the file; a libfl holder's lock file") },
};

static void
describe_columns (GString          *text,
                  const char       *title,
                  const ColumnInfo *columns,
                  gsize             n)
{
  g_string_append_printf (text, "\n\n%s", title);
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (text, "\n  %-9s %s", columns[i].name, _(columns[i].help));
}

/* The text below the options: the command's description, then its columns. */
static char *
describe_command (const CommandInfo *info)
{
  GString *text = g_string_new (info->description != NULL ? _(info->description) : "");

  if (info->command == FLCTL_COMMAND_LIST || info->command == FLCTL_COMMAND_STATUS
      || info->command == FLCTL_COMMAND_CLEAN)
    describe_columns (text, _("Available output columns (-o):"), file_columns,
                      G_N_ELEMENTS (file_columns));
  if (info->command == FLCTL_COMMAND_LIST)
    describe_columns (text, _("Available output columns with --kernel:"), kernel_columns,
                      G_N_ELEMENTS (kernel_columns));
  return g_string_free (text, FALSE);
}

G_DEFINE_QUARK (flctl-args-error-quark, flctl_args_error)

static const CommandInfo *
lookup_command (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (command_infos); i++)
    if (g_strcmp0 (command_infos[i].name, name) == 0)
      return &command_infos[i];
  return NULL;
}

const char *
flctl_command_get_name (FlctlCommand command)
{
  for (gsize i = 0; i < G_N_ELEMENTS (command_infos); i++)
    if (command_infos[i].command == command)
      return command_infos[i].name;
  return NULL;
}

void
flctl_args_init (FlctlArgs *args)
{
  *args = (FlctlArgs) {
    .command = FLCTL_COMMAND_NONE,
    .wait_s = FLCTL_DEFAULT_WAIT_S,
    .conflict_exit_code = 75,
    .lost_signal = SIGTERM,
  };
}

void
flctl_args_clear (FlctlArgs *args)
{
  g_clear_pointer (&args->help, g_free);
  g_clear_pointer (&args->operands, g_strfreev);
  g_clear_pointer (&args->command_argv, g_strfreev);
  g_clear_pointer (&args->process_name, g_free);
  g_clear_pointer (&args->lease, g_free);
  g_clear_pointer (&args->output, g_free);
}

static gboolean
usage_error (GError    **error,
             const char *format,
             ...) G_GNUC_PRINTF (2, 3);

static gboolean
usage_error (GError    **error,
             const char *format,
             ...)
{
  va_list ap;

  va_start (ap, format);
  g_propagate_error (error, g_error_new_valist (FLCTL_ARGS_ERROR, FLCTL_ARGS_ERROR_USAGE,
                                                format, ap));
  va_end (ap);
  return FALSE;
}

/* The help entry stands in for GOption's own, which would print and exit(). The texts come
 * translated. */
static GOptionContext *
option_context_new (const char         *parameters,
                    const char         *summary,
                    const char         *description,
                    const GOptionEntry *entries,
                    gboolean           *help)
{
  GOptionContext *context = g_option_context_new (parameters);
  const GOptionEntry help_entries[] = {
    { "help", 'h', 0, G_OPTION_ARG_NONE, help, N_("Show this help"), NULL },
    { NULL }
  };

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_help_enabled (context, FALSE);
  if (summary != NULL)
    g_option_context_set_summary (context, summary);
  if (description != NULL)
    g_option_context_set_description (context, description);
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, help_entries, GETTEXT_PACKAGE);
  return context;
}

/* --lost-signal: a number, or one of the signals a service is commonly told to stop or
 * reload by, named as kill(1) names them (TERM, SIGTERM). Windows has no signals: there the
 * number is only the status COMMAND is ended with (flctl-os-win32.c). */
static gboolean
parse_signal (const char *text,
              int        *signo)
{
  static const struct { const char *name; int number; } names[] = {
    { "INT", SIGINT }, { "TERM", SIGTERM }, { "KILL", 9 },
#ifdef SIGHUP
    { "HUP", SIGHUP }, { "QUIT", SIGQUIT }, { "USR1", SIGUSR1 }, { "USR2", SIGUSR2 },
    { "ALRM", SIGALRM },
#endif
  };
  guint64 number;

  if (g_ascii_string_to_unsigned (text, 10, 1, 63, &number, NULL))
    {
      *signo = (int) number;
      return TRUE;
    }
  if (g_ascii_strncasecmp (text, "SIG", 3) == 0)
    text += 3;
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (names[i].name, text) == 0)
      {
        *signo = names[i].number;
        return TRUE;
      }
  return FALSE;
}

/* GOption's help begins "Usage: PRGNAME [OPTION…] PARAMETERS": naming the program "flctl run"
 * makes a subcommand's help read as the operator types it. */
static char *
help_text (GOptionContext *context,
           const char     *prgname)
{
  g_set_prgname (prgname);
  return g_option_context_get_help (context, TRUE, NULL);
}

static char *
describe_commands (void)
{
  GString *text = g_string_new (_("Commands:\n"));

  for (gsize i = 0; i < G_N_ELEMENTS (command_infos); i++)
    if (command_infos[i].summary != NULL)
      g_string_append_printf (text, "  %-9s %s\n", command_infos[i].name,
                              _(command_infos[i].summary));
  g_string_append (text, _("\nRun 'flctl COMMAND --help' for the options of a command, and see "
                           "flctl(1) for the exit statuses and the JSON schema."));
  return g_string_free (text, FALSE);
}

/* "forever" as flock(1) waits without -w; -1 as libfl's FL_TIMEOUT_INFINITE. */
static gboolean
parse_wait (const char *text,
            double     *wait_s)
{
  char *end = NULL;
  double value;

  if (g_str_equal (text, "forever") || g_str_equal (text, "-1"))
    {
      *wait_s = FLCTL_WAIT_FOREVER;
      return TRUE;
    }
  errno = 0;
  value = g_ascii_strtod (text, &end);
  if (errno != 0 || end == text || *end != '\0' || !isfinite (value) || value < 0
      || value > 1e9)
    return FALSE;
  *wait_s = value;
  return TRUE;
}

/* Whether the option --@name (or -@letter, when @name is NULL) of @entries takes a value. */
static gboolean
takes_value (const GOptionEntry *entries,
             const char         *name,
             char                letter)
{
  for (const GOptionEntry *e = entries; e->long_name != NULL; e++)
    if (name != NULL ? g_str_equal (e->long_name, name) : e->short_name == letter)
      return e->arg != G_OPTION_ARG_NONE;
  return FALSE;
}

/* Where `flctl run`'s own arguments end, as flock(1) reads them: at a "--", or else at the
 * first word that is neither an option (nor its value) nor TARGET. Which options take a value
 * is read from @entries, run's own. Returns that index, argc when no COMMAND follows (-c gives
 * it); *@dashes says whether it is a "--" to skip. */
static int
find_command_start (int                 argc,
                    char * const       *argv,
                    const GOptionEntry *entries,
                    gboolean           *dashes)
{
  gboolean target_seen = FALSE;

  *dashes = FALSE;
  for (int i = 1; i < argc; i++)
    {
      const char *arg = argv[i];

      if (g_str_equal (arg, "--"))
        {
          *dashes = TRUE;
          return i;
        }
      if (arg[0] == '-' && arg[1] == '-')
        {
          /* "--wait=5" carries its value; "--wait 5" has it in the next word. */
          if (strchr (arg, '=') == NULL && takes_value (entries, arg + 2, 0))
            i++;
        }
      else if (arg[0] == '-' && arg[1] != '\0')
        {
          /* A cluster: "-nv", "-w5", "-w 5"; the first letter that takes a value ends it. */
          for (const char *p = arg + 1; *p != '\0'; p++)
            if (takes_value (entries, NULL, *p))
              {
                if (p[1] == '\0')
                  i++;
                break;
              }
        }
      else if (!target_seen)
        target_seen = TRUE;
      else
        return i;
    }
  return argc;
}

/* -c: the command line goes to the shell, as flock(1) -c gives it ($SHELL, else /bin/sh). */
static char **
shell_argv (const char *command)
{
#ifdef G_OS_WIN32
  const char *shell = "cmd.exe";
  const char *flag = "/c";
#else
  const char *shell = g_getenv ("SHELL");
  const char *flag = "-c";

  if (shell == NULL || shell[0] == '\0')
    shell = "/bin/sh";
#endif
  char **argv = g_new0 (char *, 4);

  argv[0] = g_strdup (shell);
  argv[1] = g_strdup (flag);
  argv[2] = g_strdup (command);
  return argv;
}

/* What each command accepts after its options, checked once GOption is done. */
static gboolean
check_operands (FlctlArgs  *args,
                int         argc,
                GError    **error)
{
  switch (args->command)
    {
    case FLCTL_COMMAND_RUN:
      if (argc != 2)
        return usage_error (error, "%s", argc < 2 ? _("no TARGET given")
                                                  : _("give exactly one TARGET before COMMAND"));
      return TRUE;
    case FLCTL_COMMAND_HOLD:
      if (argc != 2)
        return usage_error (error, "%s", _("give exactly one TARGET"));
      return TRUE;
    case FLCTL_COMMAND_DEMO:
      if (argc != 2)
        return usage_error (error, "%s", _("give exactly one DIR"));
      return TRUE;
    case FLCTL_COMMAND_STATUS:
      if (argc < 2)
        return usage_error (error, "%s", _("no PATH given"));
      return TRUE;
    case FLCTL_COMMAND_RECLAIM:
      if (argc < 2)
        return usage_error (error, "%s", _("no LOCKFILE given"));
      return TRUE;
    case FLCTL_COMMAND_LIST:
      if (argc < 2 && !args->kernel)
        return usage_error (error, "%s", _("no DIR given"));
      return TRUE;
    case FLCTL_COMMAND_CLEAN:
    case FLCTL_COMMAND_WATCH:
      if (argc < 2)
        return usage_error (error, "%s", _("no DIR given"));
      return TRUE;
    case FLCTL_COMMAND_NONE:
    default:
      g_assert_not_reached ();
    }
}

static gboolean
parse_command (FlctlArgs         *args,
               const CommandInfo *info,
               int                argc,
               char             **argv,
               GError           **error)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autofree char *wait_text = NULL;
  g_autofree char *lost_signal_text = NULL;
  g_autofree char *shell_command = NULL;
  g_autofree char *description = NULL;
  g_autofree char *prgname = g_strdup_printf ("flctl %s", info->name);
  gboolean help = FALSE;
  gboolean dashes = FALSE;
  int command_start = argc;
  int own_argc = argc;
  const GOptionEntry run_entries[] = {
    /* FILENAME: bytes as given. A STRING is converted from the locale's charset first, and a
     * byte it cannot convert fails with GLib's message, which names no option. */
    { "wait", 'w', 0, G_OPTION_ARG_FILENAME, &wait_text,
      N_("Wait at most SECONDS for the lock (default 30; decimals allowed; 'forever' or -1: "
         "no limit)"), N_("SECONDS") },
    { "no-wait", 'n', 0, G_OPTION_ARG_NONE, &args->no_wait,
      N_("Fail at once when the lock is held"), NULL },
    { "conflict-exit-code", 'E', 0, G_OPTION_ARG_INT, &args->conflict_exit_code,
      N_("Exit with CODE instead of 75 when the lock cannot be had"), N_("CODE") },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &args->verbose,
      N_("Say so when waiting, even when standard error is not a terminal"), NULL },
    { "lost-signal", 0, 0, G_OPTION_ARG_STRING, &lost_signal_text,
      N_("Send SIGNAL to COMMAND if the lock is lost while it runs (default TERM; 'none': "
         "send nothing)"), N_("SIGNAL") },
    { "command", 'c', 0, G_OPTION_ARG_FILENAME, &shell_command,
      N_("Run COMMAND through the shell ($SHELL, else /bin/sh), as flock -c does"),
      N_("COMMAND") },
    { NULL }
  };
  /* As lslocks(8) spells them, letters included. */
#define TABLE_ENTRIES \
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &args->output, \
      N_("The columns to show, comma-separated (+LIST: the default ones and LIST)"), \
      N_("LIST") }, \
    { "output-all", 0, 0, G_OPTION_ARG_NONE, &args->output_all, \
      N_("Show every column"), NULL }, \
    { "noheadings", 'n', 0, G_OPTION_ARG_NONE, &args->noheadings, \
      N_("Do not print the header line"), NULL }, \
    { "raw", 'r', 0, G_OPTION_ARG_NONE, &args->raw, \
      N_("One space between cells; blanks and unprintable bytes written \\xNN"), NULL }, \
    { "notruncate", 'u', 0, G_OPTION_ARG_NONE, &args->notruncate, \
      N_("Do not cut paths to the terminal's width"), NULL }
#define JSON_ENTRIES \
    { "json", 'J', 0, G_OPTION_ARG_NONE, &args->json, \
      N_("Print the columns in JSON, as lslocks -J: {\"locks\": [...]}"), NULL }, \
    { "records", 'j', 0, G_OPTION_ARG_NONE, &args->records, \
      N_("Print a JSON array of flctl's whole records (schema in flctl(1))"), NULL }
  const GOptionEntry status_entries[] = {
    JSON_ENTRIES,
    TABLE_ENTRIES,
    { NULL }
  };
  const GOptionEntry list_entries[] = {
    JSON_ENTRIES,
    TABLE_ENTRIES,
    { "pid", 'p', 0, G_OPTION_ARG_INT, &args->pid,
      N_("Only the locks held by PID"), N_("PID") },
    { "recursive", 'R', 0, G_OPTION_ARG_NONE, &args->recursive,
      N_("Also list the directories below each DIR (symbolic links are not followed)"), NULL },
    { "kernel", 'k', 0, G_OPTION_ARG_NONE, &args->kernel,
      N_("List the kernel locks (as lslocks does), a libfl holder's as its lock file; DIR… optional"),
      NULL },
    { NULL }
  };
  const GOptionEntry reclaim_entries[] = {
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &args->dry_run,
      N_("Show the evidence and the decision, change nothing"), NULL },
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &args->yes,
      N_("Do not ask for confirmation (needed when standard input is not a terminal)"), NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &args->force,
      N_("Also reclaim a lock that is not proven stale (its holder may be alive); never one "
         "whose kernel lock is held"), NULL },
    { "lease", 0, 0, G_OPTION_ARG_FILENAME, &args->lease,
      N_("With --force, for an etcd lock: the lease you saw (flctl status shows it); only "
         "that lease is revoked"), N_("HEX") },
    { NULL }
  };
  const GOptionEntry clean_entries[] = {
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &args->dry_run,
      N_("List what would be removed, remove nothing"), NULL },
    { "yes", 'y', 0, G_OPTION_ARG_NONE, &args->yes,
      N_("Do not ask for confirmation (needed when standard input is not a terminal)"), NULL },
    { "recursive", 'R', 0, G_OPTION_ARG_NONE, &args->recursive,
      N_("Also clean the directories below each DIR"), NULL },
    TABLE_ENTRIES,
    { NULL }
  };
  const GOptionEntry watch_entries[] = {
    { "json", 'J', 0, G_OPTION_ARG_NONE, &args->json,
      N_("Print one JSON object per line and event (schema in flctl(1))"), NULL },
    { "recursive", 'R', 0, G_OPTION_ARG_NONE, &args->recursive,
      N_("Also watch the directories below each DIR"), NULL },
    { NULL }
  };
  const GOptionEntry demo_entries[] = {
    { "detach", 'd', 0, G_OPTION_ARG_NONE, &args->detach,
      N_("Exit once ready and leave the live holders running"), NULL },
    { NULL }
  };
  const GOptionEntry hold_entries[] = {
    { "name", 0, 0, G_OPTION_ARG_FILENAME, &args->process_name,
      N_("Process name to show (at most 15 bytes)"), N_("NAME") },
    { NULL }
  };
  const GOptionEntry *entries = NULL;
#undef TABLE_ENTRIES
#undef JSON_ENTRIES

  switch (info->command)
    {
    case FLCTL_COMMAND_RUN:     entries = run_entries; break;
    case FLCTL_COMMAND_STATUS:  entries = status_entries; break;
    case FLCTL_COMMAND_LIST:    entries = list_entries; break;
    case FLCTL_COMMAND_RECLAIM: entries = reclaim_entries; break;
    case FLCTL_COMMAND_CLEAN:   entries = clean_entries; break;
    case FLCTL_COMMAND_WATCH:   entries = watch_entries; break;
    case FLCTL_COMMAND_DEMO:    entries = demo_entries; break;
    case FLCTL_COMMAND_HOLD:    entries = hold_entries; break;
    case FLCTL_COMMAND_NONE:
    default:
      g_assert_not_reached ();
    }

  args->command = info->command;
  description = describe_command (info);
  context = option_context_new (_(info->parameters), _(info->long_summary),
                                description[0] != '\0' ? description : NULL, entries, &help);

  /* run: GOption sees only what precedes COMMAND; COMMAND and its arguments are not flctl's. */
  if (info->command == FLCTL_COMMAND_RUN)
    {
      command_start = find_command_start (argc, argv, run_entries, &dashes);
      own_argc = command_start;
    }
  if (!g_option_context_parse (context, &own_argc, &argv, error))
    return FALSE;
  if (help)
    {
      args->help = help_text (context, prgname);
      return TRUE;
    }

  if (info->command == FLCTL_COMMAND_RUN)
    {
      int first = dashes ? command_start + 1 : command_start;

      if (!check_operands (args, own_argc, error))
        return FALSE;
      if (shell_command != NULL && first < argc)
        return usage_error (error, "%s", _("give either -c COMMAND or a COMMAND, not both"));
      if (shell_command == NULL && first >= argc)
        return usage_error (error, "%s", _("no COMMAND given"));
      if (args->no_wait && wait_text != NULL)
        return usage_error (error, "%s", _("-w and -n cannot be used together"));
      if (wait_text != NULL && !parse_wait (wait_text, &args->wait_s))
        return usage_error (error, _("-w expects a number of seconds, not '%s'"), wait_text);
      if (args->conflict_exit_code < 0 || args->conflict_exit_code > 255)
        return usage_error (error, "%s", _("-E expects a code from 0 to 255"));
      if (lost_signal_text != NULL && g_ascii_strcasecmp (lost_signal_text, "none") == 0)
        args->lost_signal = 0;
      else if (lost_signal_text != NULL
               && !parse_signal (lost_signal_text, &args->lost_signal))
        return usage_error (error, _("--lost-signal expects a signal's name or number, or "
                                     "'none', not '%s'"), lost_signal_text);
      /* GOption compacted what precedes COMMAND; COMMAND and what follows are untouched. */
      args->command_argv = shell_command != NULL ? shell_argv (shell_command)
                                                 : g_strdupv (argv + first);
      args->operands = g_new0 (char *, 2);
      args->operands[0] = g_strdup (argv[1]);
      return TRUE;
    }

  if (!check_operands (args, own_argc, error))
    return FALSE;
  /* Records always carry every member (flctl(1), JSON OUTPUT): a column list or a table
   * format given with them would be silently ignored. */
  if (args->records && flctl_args_has_table_options (args))
    return usage_error (error, "%s", _("-j prints whole records, not a table: -o, --output-all, "
                                       "-J, --raw, --noheadings and --notruncate do not apply "
                                       "to it"));
  if (args->output != NULL && args->output_all)
    return usage_error (error, "%s", _("-o and --output-all cannot be used together"));
  if (args->pid < 0)
    return usage_error (error, "%s", _("-p expects a PID"));
  args->operands = g_new0 (char *, own_argc);
  for (int i = 1; i < own_argc; i++)
    args->operands[i - 1] = g_strdup (argv[i]);
  return TRUE;
}

/* argv is not changed: GOption reorders a copy of its pointers. On failure, args->command says
 * whose usage the error concerns (FLCTL_COMMAND_NONE: flctl's own), and args->help, when set,
 * is what to print instead of the error. The message quotes what was typed, as it was typed:
 * print it with flctl_print_error(). */
gboolean
flctl_args_parse (FlctlArgs     *args,
                  int            argc,
                  char * const  *argv,
                  GError       **error)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autofree char **work = NULL;
  g_autofree char *description = NULL;
  const CommandInfo *info;
  gboolean help = FALSE;
  const GOptionEntry entries[] = {
    { "version", 'V', 0, G_OPTION_ARG_NONE, &args->version, N_("Print the version and exit"),
      NULL },
    { NULL }
  };

  g_return_val_if_fail (args != NULL, FALSE);
  g_return_val_if_fail (argc >= 1 && argv != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  work = g_new0 (char *, argc + 1);
  memcpy (work, argv, sizeof (char *) * (gsize) argc);

  description = describe_commands ();
  context = option_context_new (_("COMMAND [OPTION…] [ARG…]"),
                                _("Inspect, hold and recover libfl file locks."),
                                description, entries, &help);
  /* Stop at the subcommand's name: what follows is the subcommand's to parse. */
  g_option_context_set_strict_posix (context, TRUE);
  if (!g_option_context_parse (context, &argc, &work, error))
    return FALSE;
  if (help)
    {
      args->help = help_text (context, "flctl");
      return TRUE;
    }
  if (args->version)
    return TRUE;
  if (argc < 2)
    {
      args->help = help_text (context, "flctl");
      return usage_error (error, "%s", _("no command given"));
    }

  if (g_str_equal (work[1], "help"))
    {
      char *help_argv[] = { NULL, (char *) "--help", NULL };

      if (argc < 3)
        {
          args->help = help_text (context, "flctl");
          return TRUE;
        }
      /* `flctl help bogus` is a mistake, as `flctl bogus` is: said so, with status 2. */
      info = lookup_command (work[2]);
      if (info == NULL)
        return usage_error (error, _("unknown command '%s'"), work[2]);
      help_argv[0] = work[2];
      return parse_command (args, info, 2, help_argv, error);
    }

  info = lookup_command (work[1]);
  if (info == NULL)
    return usage_error (error, _("unknown command '%s'"), work[1]);
  return parse_command (args, info, argc - 1, work + 1, error);
}
