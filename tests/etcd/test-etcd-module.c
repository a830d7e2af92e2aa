/* test-etcd-module.c: a program linked against libfl-1.so alone (tests/libfl/test-backends.c)
 * takes a file lock without mapping libsoup, then an etcd lock through the etcd module,
 * found where FL_BACKEND_DIR points (the build tree)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <libfl/fl.h>

#include "etcd-test-util.h"

static EtcdServer *server;
static char *skip_reason;

static void
test_module_lock (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  const char *program = g_getenv ("FL_TEST_BACKENDS");

  if (server == NULL)
    {
      g_test_skip (skip_reason);
      return;
    }
  g_assert_nonnull (program);
  uri = etcd_server_uri (server, "module");
  child = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, program, "--etcd", uri, NULL);
  g_assert_no_error (error);
  g_subprocess_wait (child, NULL, &error);
  g_assert_no_error (error);
  /* 3: libsoup mapped by a file lock; 4: the etcd acquire failed; 5: no libsoup 3 or no
   * token after it; 6: the release failed (test-backends.c, take_etcd_lock()). */
  g_assert_true (g_subprocess_get_if_exited (child));
  g_assert_cmpint (g_subprocess_get_exit_status (child), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/etcd/module/lock-from-libfl-so", test_module_lock);
  server = etcd_server_start (&skip_reason);
  ret = g_test_run ();
  etcd_server_stop (server);
  g_free (skip_reason);
  return ret;
}
