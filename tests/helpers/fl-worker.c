/* fl-worker.c: a process that takes libfl locks, driven by the tests
 *
 *   fl-worker [OPTIONS] count TARGET COUNTER N  N critical sections on COUNTER
 *                                               (fl-test-counter.c); exit 3 on an overlap
 *   fl-worker [OPTIONS] hold TARGET             acquire, print "held <pid>", wait for stdin to
 *                                               close, release (exit 5 if the release fails)
 *   fl-worker [OPTIONS] try TARGET              fl_lock_try_acquire() once
 *   fl-worker [OPTIONS] acquire TARGET          fl_lock_acquire() with --timeout-ms
 *   fl-worker wait                              print "ready <pid>", wait for stdin to close
 *
 * try and acquire print "acquired" (then release, exit 0) or "error <domain> <code> <message>"
 * (exit 2). Built twice: fl-worker-crash adds fl-crash-shim.c, which kills the process at a
 * named step of the protocol (see there).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fl-test-counter.h"

static gint64 opt_timeout_ms = 120000;
static gint64 opt_stale_after_ms = -1;
static gint64 opt_backoff_max_ms = -1;
static gboolean opt_create_dirs = FALSE;
static gboolean opt_tolerate_dead = FALSE;
static gboolean opt_no_lock = FALSE;

static const GOptionEntry entries[] = {
  { "timeout-ms", 0, 0, G_OPTION_ARG_INT64, &opt_timeout_ms, "Acquire timeout", "MS" },
  { "stale-after-ms", 0, 0, G_OPTION_ARG_INT64, &opt_stale_after_ms, "Stale after", "MS" },
  { "backoff-max-ms", 0, 0, G_OPTION_ARG_INT64, &opt_backoff_max_ms,
    "Longest backoff, and the safety re-check period", "MS" },
  { "create-dirs", 0, 0, G_OPTION_ARG_NONE, &opt_create_dirs, "Create directories", NULL },
  { "tolerate-dead", 0, 0, G_OPTION_ARG_NONE, &opt_tolerate_dead,
    "A marker left by a killed holder is not an overlap", NULL },
  { "no-lock", 0, 0, G_OPTION_ARG_NONE, &opt_no_lock,
    "count without taking the lock (checks that the harness sees overlaps)", NULL },
  { NULL }
};

static FlLockOptions *
make_options (void)
{
  FlLockOptions *options = fl_lock_options_new ();

  fl_lock_options_set_timeout_ms (options, opt_timeout_ms);
  if (opt_stale_after_ms >= 0)
    fl_lock_options_set_stale_after_ms (options, opt_stale_after_ms);
  if (opt_backoff_max_ms >= 1)
    fl_lock_options_set_backoff_ms (options, 1, opt_backoff_max_ms);
  fl_lock_options_set_create_dirs (options, opt_create_dirs);
  return options;
}

static int
print_error (const char   *what,
             const GError *error)
{
  printf ("%s %s %d %s\n", what, g_quark_to_string (error->domain), error->code, error->message);
  fflush (stdout);
  return 2;
}

static void
wait_for_stdin_eof (void)
{
  char buf[256];

  while (read (STDIN_FILENO, buf, sizeof buf) > 0)
    ;
}

static int
cmd_count (const char *target,
           const char *counter,
           gint64      n)
{
  g_autoptr(FlLockOptions) options = make_options ();
  FlTestMarkerMode mode = opt_tolerate_dead ? FL_TEST_MARKER_TOLERATE_DEAD : FL_TEST_MARKER_STRICT;

  for (gint64 i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = NULL;
      int ret;

      if (opt_no_lock)
        {
          ret = fl_test_critical_section (counter, mode);
          if (ret != 0)
            return ret;
          continue;
        }
      lock = fl_lock_acquire (target, options, NULL, &error);
      if (lock == NULL)
        {
          g_printerr ("fl-worker %d: acquire %s: %s\n", (int) getpid (), target, error->message);
          return FL_TEST_EXIT_FAILED;
        }
      ret = fl_test_critical_section (counter, mode);
      if (ret != 0)
        return ret;
      if (!fl_lock_release (lock, &error))
        {
          g_printerr ("fl-worker %d: release %s: %s\n", (int) getpid (), target, error->message);
          return FL_TEST_EXIT_FAILED;
        }
    }
  return 0;
}

static int
cmd_hold (const char *target)
{
  g_autoptr(FlLockOptions) options = make_options ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  lock = fl_lock_acquire (target, options, NULL, &error);
  if (lock == NULL)
    return print_error ("error", error);
  printf ("held %d\n", (int) getpid ());
  fflush (stdout);
  wait_for_stdin_eof ();
  if (!fl_lock_release (lock, &error))
    {
      print_error ("release-error", error);
      return 5;
    }
  printf ("released\n");
  return 0;
}

static int
cmd_acquire (const char *target,
             gboolean    try_only)
{
  g_autoptr(FlLockOptions) options = make_options ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  if (try_only)
    lock = fl_lock_try_acquire (target, options, &error);
  else
    lock = fl_lock_acquire (target, options, NULL, &error);
  if (lock == NULL)
    return print_error ("error", error);
  printf ("acquired\n");
  fflush (stdout);
  if (!fl_lock_release (lock, &error))
    return print_error ("release-error", error);
  return 0;
}

static int
cmd_wait (void)
{
  printf ("ready %d\n", (int) getpid ());
  fflush (stdout);
  wait_for_stdin_eof ();
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("MODE ARGS... - libfl test worker");
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("fl-worker: %s\n", error->message);
      return 64;
    }

  if (argc == 5 && g_str_equal (argv[1], "count"))
    return cmd_count (argv[2], argv[3], g_ascii_strtoll (argv[4], NULL, 10));
  if (argc == 3 && g_str_equal (argv[1], "hold"))
    return cmd_hold (argv[2]);
  if (argc == 3 && g_str_equal (argv[1], "try"))
    return cmd_acquire (argv[2], TRUE);
  if (argc == 3 && g_str_equal (argv[1], "acquire"))
    return cmd_acquire (argv[2], FALSE);
  if (argc == 2 && g_str_equal (argv[1], "wait"))
    return cmd_wait ();
  g_printerr ("usage: fl-worker [OPTIONS] count TARGET COUNTER N | hold TARGET | try TARGET"
              " | acquire TARGET | wait\n");
  return 64;
}
