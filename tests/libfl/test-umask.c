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
#include <sys/stat.h>

#include "fl-test-util.h"

/* The module as its users install it (issue 29, point 2). TO BE SWITCHED to the shared driver
 * and the npm-installed copy that the tests of the module part bring; until then this inline
 * driver and this path (or FL_TEST_FILE_LOCK_JS) stand in for them. */
#define FILE_LOCK_JS "/work/modref-scratch/node_modules/@dogfood-lab/findings/lib/file-lock.js"
#define NODE_DRIVER \
  "import { pathToFileURL } from 'node:url';\n" \
  "const [, mod, target, ms] = process.argv;\n" \
  "const { withFileLock } = await import(pathToFileURL(mod));\n" \
  "try {\n" \
  "  withFileLock(target, () => console.log('acquired'),\n" \
  "               { timeoutMs: Number(ms), staleAfterMs: 50 });\n" \
  "} catch (e) {\n" \
  "  if (e.code !== 'ELOCKTIMEOUT') throw e;\n" \
  "  console.log('timeout');\n" \
  "}\n"

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

/* The module, as nobody, waits its whole timeout while the umask 077 holder runs. */
static void
test_node_other_user (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_autofree char *node = g_find_program_in_path ("node");
  const char *module = g_getenv ("FL_TEST_FILE_LOCK_JS");
  g_autoptr(FlTestProc) holder = NULL;
  g_autoptr(FlTestProc) peer = NULL;
  g_autofree char *ms = g_strdup_printf ("%" G_GINT64_FORMAT, fl_test_scaled_ms (1500));
  g_autofree char *out = NULL;
  g_autofree char *content = NULL;
  g_autofree char *expected = NULL;

  if (module == NULL)
    module = FILE_LOCK_JS;
  if (!fl_test_is_root ())
    {
      g_test_skip ("needs root, to run the module as another user (nobody)");
      return;
    }
  if (node == NULL || !g_file_test (module, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("needs node and the module's lib/file-lock.js (FL_TEST_FILE_LOCK_JS)");
      return;
    }

  /* nobody may create its temp and rename the lock here: only reading the PID stops it. */
  g_assert_cmpint (chmod (fx->dir, 0777), ==, 0);
  holder = spawn_umask_077_holder (fx->target);
  {
    const char *argv[] = { node, "--input-type=module", "-e", NODE_DRIVER, module, fx->target,
                           ms, NULL };

    peer = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_AS_NOBODY);
  }
  out = fl_test_proc_read_all (peer, fl_test_deadline_ms (30000));
  g_assert_true (fl_test_proc_wait (peer, fl_test_deadline_ms (10000)));
  g_assert_cmpstr (out, ==, "timeout\n");
  g_assert_cmpint (fl_test_proc_exit_code (peer), ==, 0);

  content = fl_test_read (fx->lock, NULL);
  expected = g_strdup_printf ("%d", (int) holder->pid);
  g_assert_cmpstr (content, ==, expected);
  fl_test_holder_release (holder);  /* exit 5 had the lock been taken */
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  FL_TEST_ADD ("/libfl/umask/mode-0644", NULL, test_mode);
  FL_TEST_ADD ("/libfl/umask/node-other-user", NULL, test_node_other_user);
  return g_test_run ();
}
