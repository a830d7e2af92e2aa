/* test-backends.c: a program that takes file locks maps no HTTP stack; the etcd backend is a
 * module, loaded when an etcd:// target is first used, and a clear error when it is missing
 *
 * Linked against libfl-1.so, as a service links it. Also a helper of tests/etcd/
 * test-etcd-module.c: `test-backends --etcd URI` takes a file lock, then the etcd lock URI.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dlfcn.h>
#include <string.h>

#include <glib/gstdio.h>
#include <libfl/fl.h>

/* Whether a library whose file name contains @name is mapped into this process. */
static gboolean
mapped (const char *name)
{
  g_autofree char *maps = NULL;
  g_autoptr(GError) error = NULL;

  g_file_get_contents ("/proc/self/maps", &maps, NULL, &error);
  g_assert_no_error (error);
  return strstr (maps, name) != NULL;
}

static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("fl-backends-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* Everything a service does with file locks, then a look at what is mapped. */
static void
use_file_locks (const char *dir)
{
  g_autofree char *target = g_build_filename (dir, "t", NULL);
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GError) error = NULL;

  lock = fl_lock_acquire (target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_is_locked (target, NULL, &error));
  g_assert_no_error (error);
  snapshot = fl_snapshot_new_for_target (target, NULL, &error);
  g_assert_no_error (error);
  all = fl_scan_directory (dir, FL_SCAN_NONE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (all->len, ==, 1);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

static void
remove_dir (const char *dir)
{
  g_autofree char *lock = g_build_filename (dir, "t.lock", NULL);

  g_unlink (lock);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

static void
test_no_http_stack (void)
{
  g_autofree char *dir = make_dir ();

  use_file_locks (dir);
  g_assert_false (mapped ("libsoup"));
  g_assert_false (mapped ("libjson-glib"));
  remove_dir (dir);
}

/* Whether libsoup 2 is where this GLib is: looked up without loading it here. */
static gboolean
libsoup2_installed (void)
{
  g_autofree char *maps = NULL;
  g_autofree char *glib_dir = NULL;
  g_autofree char *soup2 = NULL;
  const char *glib;
  const char *start;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  glib = strstr (maps, "/libglib-2.0.so");
  g_assert_nonnull (glib);
  start = glib;
  while (start > maps && start[-1] != ' ')
    start--;
  glib_dir = g_strndup (start, glib - start);
  soup2 = g_build_filename (glib_dir, "libsoup-2.4.so.1", NULL);
  return g_file_test (soup2, G_FILE_TEST_EXISTS);
}

/* libsoup 2 and 3 in one process abort ("libsoup3 symbols detected"): with the etcd backend
 * a module, a program using libsoup 2 can take file locks. In a child, so that libsoup 2
 * stays out of this process. */
static void
test_libsoup2 (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *dir = make_dir ();
      gpointer (*session_new) (const char *first, ...);
      gpointer session;
      void *soup2;

      use_file_locks (dir);
      soup2 = dlopen ("libsoup-2.4.so.1", RTLD_NOW | RTLD_GLOBAL);
      g_assert_nonnull (soup2);
      session_new = (gpointer (*) (const char *, ...)) dlsym (soup2, "soup_session_new");
      g_assert_nonnull (session_new);
      session = session_new (NULL);
      g_assert_true (G_IS_OBJECT (session));
      g_object_unref (session);
      /* libfl still works beside it */
      use_file_locks (dir);
      remove_dir (dir);
      return;
    }

  if (!libsoup2_installed ())
    {
      g_test_skip ("libsoup 2 is not installed (Debian: libsoup2.4-1, build-aux/install-deps)");
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* Every entry point that reaches a backend names the module, the directory it was looked for
 * in and what to install. In a child: the module is looked for once per process. */
static void
assert_missing (GError     *error,
                const char *dir)
{
  g_assert_error (error, FL_ERROR, FL_ERROR_BACKEND_MISSING);
  g_assert_nonnull (strstr (error->message, "etcd.so"));
  g_assert_nonnull (strstr (error->message, dir));
  g_assert_nonnull (strstr (error->message, "-Detcd=enabled"));
}

static void
test_missing_module (void)
{
  if (g_test_subprocess ())
    {
      const char *uri = "etcd://127.0.0.1:9/locks/name";
      g_autofree char *empty = make_dir ();
      g_autofree char *dir = make_dir ();
      g_autoptr(FlDirectoryModel) model = NULL;
      g_autoptr(GError) error = NULL;
      FlLock *lock;

      g_setenv ("FL_BACKEND_DIR", empty, TRUE);
      lock = fl_lock_try_acquire (uri, NULL, &error);
      g_assert_null (lock);
      assert_missing (error, empty);
      g_clear_error (&error);
      lock = fl_lock_acquire ("etcds://127.0.0.1:9/locks/name", NULL, NULL, &error);
      g_assert_null (lock);
      assert_missing (error, empty);
      g_clear_error (&error);
      g_assert_false (fl_is_locked (uri, NULL, &error));
      assert_missing (error, empty);
      g_clear_error (&error);
      g_assert_null (fl_snapshot_new_for_target (uri, NULL, &error));
      assert_missing (error, empty);
      g_clear_error (&error);
      g_assert_null (fl_scan_directory ("etcd://127.0.0.1:9/locks", FL_SCAN_NONE, NULL, NULL,
                                        &error));
      assert_missing (error, empty);
      g_clear_error (&error);
      model = fl_directory_model_new (NULL);
      g_assert_false (fl_directory_model_add_directory (model, "etcd://127.0.0.1:9/locks",
                                                        FALSE, &error));
      assert_missing (error, empty);
      g_clear_error (&error);
      /* File locks are not affected. */
      use_file_locks (dir);
      remove_dir (dir);
      g_assert_cmpint (g_rmdir (empty), ==, 0);
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* What the dynamic linker would load: libfl-1.so and flctl need neither library. */
static void
assert_needs_no_http (const char *path)
{
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "ldd", path, NULL };
  int status;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                NULL, NULL, &out, NULL, &status, &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_test_message ("ldd %s:\n%s", path, out);
  g_assert_nonnull (strstr (out, "libglib-2.0"));
  g_assert_null (strstr (out, "libsoup"));
  g_assert_null (strstr (out, "libjson-glib"));
}

static void
test_ldd (void)
{
  const char *flctl = g_getenv ("FLCTL");
  g_autofree char *ldd = g_find_program_in_path ("ldd");

  if (ldd == NULL)
    {
      g_test_skip ("no ldd (Debian: libc-bin)");
      return;
    }
  assert_needs_no_http (FL_TEST_LIBFL_SO);
  if (flctl != NULL && flctl[0] != '\0')
    assert_needs_no_http (flctl);
  else
    g_test_message ("flctl not built: only libfl-1.so looked at");
}

/* tests/etcd/test-etcd-module.c: a file lock, still no HTTP stack; then the etcd lock URI,
 * through the module; then release. Exit status 0 when all of it held. */
static int
take_etcd_lock (const char *uri)
{
  g_autofree char *dir = make_dir ();
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;

  use_file_locks (dir);
  remove_dir (dir);
  if (mapped ("libsoup"))
    return 3;
  lock = fl_lock_acquire (uri, NULL, NULL, &error);
  if (lock == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 4;
    }
  if (!mapped ("libsoup-3.0") || fl_lock_get_fencing_token (lock) == 0)
    return 5;
  if (!fl_lock_release (lock, &error))
    {
      g_printerr ("%s\n", error->message);
      return 6;
    }
  return 0;
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && g_str_equal (argv[1], "--etcd"))
    return take_etcd_lock (argv[2]);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/libfl/backends/no-http-stack", test_no_http_stack);
  g_test_add_func ("/libfl/backends/libsoup2", test_libsoup2);
  g_test_add_func ("/libfl/backends/missing-module", test_missing_module);
  g_test_add_func ("/libfl/backends/ldd", test_ldd);
  return g_test_run ();
}
