/* flctl.c: the entry point of flctl, subcommand dispatch, and helpers the subcommands share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-private.h"

typedef struct
{
  const char *name;
  int (*main) (int argc, char **argv);
  const char *summary;
} FlctlCommand;

static const FlctlCommand commands[] = {
  { "run",     flctl_run_main,     N_("Hold the lock of a target while a command runs") },
  { "status",  flctl_status_main,  N_("Show the holder and state of locks") },
  { "list",    flctl_list_main,    N_("List the lock, temp and graveyard files in directories") },
  { "reclaim", flctl_reclaim_main, N_("Reclaim stale locks, after showing the evidence") },
  { "clean",   flctl_clean_main,   N_("Remove orphaned temp and graveyard files") },
  { "watch",   flctl_watch_main,   N_("Print lock changes in directories as they happen") },
  { "demo",    flctl_demo_main,    N_("Fill a directory with a realistic mix of locks") },
  /* Hidden: the live holders of `flctl demo`, and a handy way to hold a lock in tests. */
  { "hold",    flctl_hold_main,    NULL },
};

static const FlctlCommand *
lookup_command (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_strcmp0 (commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static char *
describe_commands (void)
{
  GString *text = g_string_new (_("Commands:\n"));

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (commands[i].summary != NULL)
      g_string_append_printf (text, "  %-9s %s\n", commands[i].name, _(commands[i].summary));
  g_string_append (text, _("\nRun 'flctl COMMAND --help' for the options of a command, and see "
                           "flctl(1) for the exit statuses and the JSON schema."));
  return g_string_free (text, FALSE);
}

GOptionContext *
flctl_option_context_new (const char         *command,
                          const char         *parameters,
                          const char         *summary,
                          const char         *description,
                          const GOptionEntry *entries)
{
  GOptionContext *context = g_option_context_new (parameters);

  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  if (summary != NULL)
    g_option_context_set_summary (context, summary);
  if (description != NULL)
    g_option_context_set_description (context, description);
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  return context;
}

/* GOptionContext prints "Usage: PRGNAME [OPTION…] PARAMETERS": naming the program "flctl run"
 * makes each subcommand's --help read as the operator types it. */
gboolean
flctl_parse_options (GOptionContext   *context,
                     const char       *command,
                     int              *argc,
                     char           ***argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *prgname = g_strdup_printf ("flctl %s", command);

  g_set_prgname (prgname);
  if (!g_option_context_parse (context, argc, argv, &error))
    {
      flctl_usage_error (command, "%s", error->message);
      return FALSE;
    }
  return TRUE;
}

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

  g_printerr ("flctl %s: %s\n", command, message);
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
  g_printerr ("flctl %s: %s\n", command, error->message);
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
  return isatty (STDIN_FILENO) == 1;
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
  if (flctl_looks_like_lock_file (path))
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

/* Scans every directory, reports those that cannot be read and goes on with the others. */
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

      found = fl_scan_directory (directories[i], recursive ? FL_SCAN_RECURSIVE : FL_SCAN_NONE,
                                 NULL, NULL, &error);
      if (found == NULL)
        {
          *exit_status = flctl_report_error (command, error);
          continue;
        }
      for (guint j = 0; j < found->len; j++)
        g_ptr_array_add (all, g_object_ref (g_ptr_array_index (found, j)));
    }
  g_ptr_array_sort (all, compare_snapshots_by_path);
  return all;
}

/* After cleaning up, flctl dies of the signal that stopped it, as shells and timeout(1) do, so
 * that a calling shell sees 128+N and stops a script on SIGINT. No core file: the fault was
 * the command's, not flctl's. */
void
flctl_die_by_signal (int signo)
{
  struct rlimit no_core = { 0, 0 };
  sigset_t set;

  fflush (stdout);
  fflush (stderr);
  setrlimit (RLIMIT_CORE, &no_core);
  signal (signo, SIG_DFL);
  sigemptyset (&set);
  sigaddset (&set, signo);
  sigprocmask (SIG_UNBLOCK, &set, NULL);
  raise (signo);
  /* Reached for signals whose default action is not to terminate. */
  _exit (128 + signo);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *description = NULL;
  gboolean version = FALSE;
  const FlctlCommand *command;
  const GOptionEntry entries[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, N_("Print the version and exit"), NULL },
    { NULL }
  };

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  g_set_prgname ("flctl");

  description = describe_commands ();
  context = flctl_option_context_new (NULL, _("COMMAND [OPTION…] [ARG…]"),
                                      _("Inspect, hold and recover libfl file locks."),
                                      description, entries);
  /* Stop at the subcommand's name: what follows is the subcommand's to parse. */
  g_option_context_set_strict_posix (context, TRUE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("flctl: %s\n", error->message);
      g_printerr (_("Try 'flctl --help' for more information.\n"));
      return FLCTL_EXIT_USAGE;
    }
  if (version)
    {
      g_print ("flctl %s\n", PACKAGE_VERSION);
      return FLCTL_EXIT_OK;
    }
  if (argc < 2)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

      g_printerr ("%s", help);
      return FLCTL_EXIT_USAGE;
    }
  if (g_strcmp0 (argv[1], "help") == 0)
    {
      g_autofree char *help = NULL;

      if (argc > 2 && lookup_command (argv[2]) != NULL)
        {
          char *sub_argv[] = { argv[2], (char *) "--help", NULL };

          return lookup_command (argv[2])->main (2, sub_argv);
        }
      help = g_option_context_get_help (context, TRUE, NULL);
      g_print ("%s", help);
      return FLCTL_EXIT_OK;
    }

  command = lookup_command (argv[1]);
  if (command == NULL)
    {
      g_printerr (_("flctl: unknown command '%s'\n"), argv[1]);
      g_printerr (_("Try 'flctl --help' for more information.\n"));
      return FLCTL_EXIT_USAGE;
    }
  return command->main (argc - 1, argv + 1);
}
