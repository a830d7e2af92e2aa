/* test-umask.c: a lock is readable by every peer whatever its holder's umask (issue 29)
 *
 * A holder under `umask 077` once made a 0600 lock; the Node module running as another user
 * could not read its PID, fell to its rule for unreadable content (stale once older than
 * staleAfterMs) and took over the live holder (docs/protocol.md, section 1).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <sys/stat.h>

/* `fl-worker hold TARGET` under umask 077; exec keeps the PID the holder names. */
static FlTestProc *
spawn_umask_077_holder (const char *target)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { "/bin/sh", "-c", "umask 077 && exec \"$0\" hold \"$1\"", worker, target,
                         NULL };

  return fl_test_spawn_holder_argv (argv);
}

static void
test_mode (FlTestDir     *fx,
           gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = spawn_umask_077_holder (fx->target);
  struct stat st;

  g_assert_cmpint (stat (fx->lock, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0644);
  fl_test_holder_release (holder);
}

/* The module itself (tests/helpers/module-driver.mjs), as nobody, with a staleAfterMs of 50 ms:
 * it waits its whole timeout while the umask 077 holder runs. */
static void
test_node_other_user (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_auto(GStrv) module = fl_test_module_argv ();
  g_autoptr(FlTestProc) holder = NULL;
  g_autoptr(FlTestProc) peer = NULL;
  g_autofree char *ms = g_strdup_printf ("%" G_GINT64_FORMAT, fl_test_scaled_ms (1500));
  g_autofree char *out = NULL;
  g_autofree char *content = NULL;
  g_autofree char *expected = NULL;

  if (!fl_test_is_root ())
    {
      g_test_skip ("needs root, to run the module as another user (nobody)");
      return;
    }

  /* nobody may create its temp and rename the lock here: only reading the PID stops it. */
  g_assert_cmpint (chmod (fx->dir, 0777), ==, 0);
  holder = spawn_umask_077_holder (fx->target);
  {
    const char *argv[] = { module[0], module[1], "acquire", fx->target, ms, "50", NULL };

    peer = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_AS_NOBODY);
  }
  out = fl_test_proc_read_all (peer, fl_test_deadline_ms (30000));
  g_assert_true (fl_test_proc_wait (peer, fl_test_deadline_ms (10000)));
  g_assert_cmpstr (out, ==, "timeout\n");
  g_assert_cmpint (fl_test_proc_exit_code (peer), ==, 2);

  content = fl_test_read (fx->lock, NULL);
  expected = g_strdup_printf ("%d", (int) holder->pid);
  g_assert_cmpstr (content, ==, expected);
  fl_test_holder_release (holder);  /* exit 5 had the lock been taken */
}

#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  FL_TEST_ADD_LINUX ("/libfl/umask/mode-0644", NULL, test_mode,
                     "Unix file modes and umask(2)");
  FL_TEST_ADD_LINUX ("/libfl/umask/node-other-user", NULL, test_node_other_user,
                     "Unix file modes, root and another user");
  return g_test_run ();
}
