/* test-proc-blind.c: a /proc that cannot show the holder never makes its lock stale (issue 19)
 *
 * The holder is the Node module itself (tests/helpers/module-driver.mjs, tests/node-reference):
 * no kernel lock, no identity, so only kill() and /proc speak for it. libfl judges from inside
 * (a) a PID namespace without its own /proc, (b) a /proc mounted hidepid=invisible, as an
 * unprivileged user, (c) no /proc at all. Each needs root (unshare, mount) and is skipped
 * without it.
 *
 * The judge runs as this very program, re-executed with `--judge TARGET`: it prints the
 * verdict and what a try-acquire says, and with `--cycle TARGET` acquires and releases.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <errno.h>
# include <stdio.h>
# include <stdlib.h>
# include <sys/stat.h>
# include <unistd.h>

static int
judge_main (const char *target)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  /* Even an unparsable lock would be stale at once: only liveness can keep it. */
  fl_lock_options_set_stale_after_ms (options, 1);
  snapshot = fl_snapshot_new_for_target (target, options, &error);
  if (snapshot == NULL)
    {
      printf ("error %s\n", error->message);
      return 1;
    }
  printf ("verdict %s %s\n", fl_liveness_to_string (fl_snapshot_get_liveness (snapshot)),
          fl_snapshot_get_stale (snapshot) ? "stale" : "not-stale");
  printf ("reason %s\n", fl_snapshot_get_reason (snapshot));
  lock = fl_lock_try_acquire (target, options, &error);
  if (lock != NULL)
    printf ("try acquired\n");
  else
    printf ("try %s\n", g_error_matches (error, FL_ERROR, FL_ERROR_BUSY) ? "busy" : error->message);
  return 0;
}

static int
cycle_main (const char *target)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_try_acquire (target, NULL, &error);
  g_autofree char *lock_path = fl_lock_path_for (target);
  g_autofree char *content = NULL;

  if (lock == NULL)
    {
      printf ("cycle error %s\n", error->message);
      return 1;
    }
  if (!g_file_get_contents (lock_path, &content, NULL, NULL) || atoi (content) != getpid ())
    {
      printf ("cycle error the lock does not name us\n");
      return 1;
    }
  if (!fl_lock_release (lock, &error))
    {
      printf ("cycle error %s\n", error->message);
      return 1;
    }
  printf ("cycle ok %s\n", g_file_test (lock_path, G_FILE_TEST_EXISTS) ? "left" : "gone");
  return 0;
}

/* The holder's command, as "$H" in the scripts below: the module itself. */
static char **
holder_argv (void)
{
  return fl_test_module_argv ();
}

/* A PID that is free here, so that the namespace's holder gets a PID this /proc does not show
 * (a /proc of another namespace then says ENOENT, as the issue saw). */
static int
free_pid (void)
{
  int pid_max = 32768;
  g_autofree char *text = NULL;

  if (g_file_get_contents ("/proc/sys/kernel/pid_max", &text, NULL, NULL))
    pid_max = atoi (text);
  for (int pid = MIN (pid_max, 4194304) - 100; pid > 300; pid--)
    if (kill (pid, 0) < 0 && errno == ESRCH)
      return pid;
  return 0;
}

/* Runs @setup (shell, as root inside `unshare @unshare_args`), with the holder started first:
 * "$H hold $T" in the background, kept holding by our stdin. Then @judge_as runs the judge.
 * Returns the output, with the holder still holding until the script ends. */
static char *
run_scenario (FlTestDir   *fx,
              const char  *unshare_args,
              const char  *setup,
              const char  *judge_as)
{
  g_autofree char *unshare = g_find_program_in_path ("unshare");
  g_auto(GStrv) holder = holder_argv ();
  g_autofree char *holder_cmd = NULL;
  g_autofree char *script = NULL;
  g_autofree char *self = NULL;
  g_autofree char *held = g_build_filename (fx->dir, "held", NULL);
  g_autofree char *pick_pid = NULL;
  g_autoptr(FlTestProc) proc = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) unshare_v = g_strsplit (unshare_args, " ", -1);
  char *out;

  if (!fl_test_is_root () || unshare == NULL)
    {
      g_test_skip ("needs root and unshare(1)");
      return NULL;
    }

  /* In a new PID namespace, the holder gets a PID this /proc does not show. */
  pick_pid = strstr (unshare_args, "--pid") != NULL
             ? g_strdup_printf ("echo %d > /proc/sys/kernel/ns_last_pid 2>/dev/null",
                                free_pid () - 1)
             : g_strdup (":");
  self = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self);
  {
    GString *quoted = g_string_new (NULL);

    for (guint i = 0; holder[i] != NULL; i++)
      {
        g_autofree char *q = g_shell_quote (holder[i]);
        g_string_append_printf (quoted, "%s%s", i ? " " : "", q);
      }
    holder_cmd = g_string_free (quoted, FALSE);
  }

  /* The holder's stdin is ours (fd 3), so it holds until this test closes it; the wait for
   * its "held" line has a deadline in the test, which kills the whole run. */
  script = g_strdup_printf ("exec 3<&0\n"
                            "%s\n"
                            "%s hold \"$T\" <&3 >\"$HELD\" 2>&1 &\n"
                            "until grep -q '^held' \"$HELD\" 2>/dev/null; do sleep 0.02; done\n"
                            "echo \"holder $(cat \"$HELD\")\"\n"
                            "%s\n"
                            "%s \"$SELF\" --judge \"$T\"\n"
                            "%s \"$SELF\" --cycle \"$T.other\"\n"
                            "echo done\n"
                            "cat >/dev/null\n",
                            pick_pid, holder_cmd, setup, judge_as, judge_as);

  g_ptr_array_add (argv, unshare);
  for (guint i = 0; unshare_v[i] != NULL; i++)
    g_ptr_array_add (argv, unshare_v[i]);
  g_ptr_array_add (argv, "sh");
  g_ptr_array_add (argv, "-c");
  g_ptr_array_add (argv, script);
  g_ptr_array_add (argv, NULL);

  g_setenv ("T", fx->target, TRUE);
  g_setenv ("HELD", held, TRUE);
  g_setenv ("SELF", self, TRUE);
  proc = fl_test_proc_spawn ((const char * const *) argv->pdata, NULL, FL_TEST_SPAWN_DEFAULT);

  {
    GString *all = g_string_new (NULL);
    gint64 deadline = fl_test_deadline_ms (60000);
    char *line;

    while ((line = fl_test_proc_read_line (proc, deadline)) != NULL)
      {
        gboolean done = strcmp (line, "done") == 0;

        g_string_append_printf (all, "%s\n", line);
        g_free (line);
        if (done)
          break;
      }
    out = g_string_free (all, FALSE);
  }
  g_test_message ("%s", out);
  if (strstr (out, "holder held") == NULL)
    {
      g_test_skip_printf ("the namespace could not be set up: %s", out);
      g_free (out);
      return NULL;
    }
  /* The holder is still inside its critical section: nothing was taken from it. */
  g_assert_true (fl_test_exists (fx->lock));
  fl_test_proc_close_stdin (proc);
  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (30000)));
  return out;
}

static void
assert_held (const char *out)
{
  g_assert_nonnull (strstr (out, "verdict alive not-stale\n"));
  g_assert_nonnull (strstr (out, "try busy\n"));
  g_assert_nonnull (strstr (out, "cycle ok gone\n"));
}

/* (a) `unshare --pid --fork` without its own /proc: /proc/<pid> is another namespace's. */
static void
test_pid_namespace_without_proc (FlTestDir     *fx,
                                 gconstpointer  data)
{
  g_autofree char *out = run_scenario (fx, "--pid --fork --kill-child", ":", "");

  if (out != NULL)
    assert_held (out);
}

/* (b) hidepid=invisible, judged by nobody: the holder's /proc entry says ENOENT. */
static void
test_hidepid (FlTestDir     *fx,
              gconstpointer  data)
{
  g_autofree char *setpriv = g_find_program_in_path ("setpriv");
  g_autofree char *as_nobody = NULL;
  g_autofree char *out = NULL;

  if (setpriv == NULL)
    {
      g_test_skip ("needs setpriv(1)");
      return;
    }
  /* nobody must reach the lock and make temps beside it. */
  g_assert_cmpint (chmod (fx->dir, 01777), ==, 0);
  as_nobody = g_strdup_printf ("%s --reuid=65534 --regid=65534 --clear-groups", setpriv);
  out = run_scenario (fx, "--mount --propagation private",
                      "mount -t proc -o hidepid=invisible proc /proc || echo no-mount", as_nobody);
  if (out != NULL && strstr (out, "no-mount") != NULL)
    {
      g_test_skip ("cannot mount /proc with hidepid=invisible here");
      return;
    }
  if (out != NULL)
    assert_held (out);
}

/* (c) no /proc at all (which also forces named temps): held, and libfl still works. */
static void
test_no_proc (FlTestDir     *fx,
              gconstpointer  data)
{
  g_autofree char *out = NULL;

#if defined(__SANITIZE_ADDRESS__)
  /* The sanitizer's runtime itself needs /proc (it reads /proc/<pid>/task and aborts
   * without it, whatever ASAN_OPTIONS say); the plain build runs this case. */
  g_test_skip ("AddressSanitizer's runtime cannot run without /proc");
  return;
#endif

  out = run_scenario (fx, "--mount --propagation private",
                      "mount -t tmpfs tmpfs /proc || echo no-mount", "");

  if (out != NULL && strstr (out, "no-mount") != NULL)
    {
      g_test_skip ("cannot mount over /proc here");
      return;
    }
  if (out != NULL)
    assert_held (out);
}

#endif

int
main (int   argc,
      char *argv[])
{
#ifdef __linux__
  if (argc == 3 && strcmp (argv[1], "--judge") == 0)
    return judge_main (argv[2]);
  if (argc == 3 && strcmp (argv[1], "--cycle") == 0)
    return cycle_main (argv[2]);
#endif

  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/proc-blind/pid-namespace-without-proc", NULL,
                     test_pid_namespace_without_proc, "PID and mount namespaces, /proc");
  FL_TEST_ADD_LINUX ("/libfl/proc-blind/hidepid", NULL, test_hidepid,
                     "/proc mounted with hidepid (root)");
  FL_TEST_ADD_LINUX ("/libfl/proc-blind/no-proc", NULL, test_no_proc,
                     "a mount namespace without /proc");

  return g_test_run ();
}
