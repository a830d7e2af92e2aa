/* test-bad-target.c: targets and lock directories that cannot hold a lock
 *
 * Each one must fail with a clear error that names the path, leave nothing behind, and never
 * crash.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/fl-lock-private.h"
#include "protocol/fl-names-private.h"
#include "fl-test-util.h"

#ifndef NAME_MAX
# define NAME_MAX 255  /* as libfl/protocol/fl-names.c assumes where limits.h has none */
#endif

static void
assert_dir_empty (const char *dir)
{
  g_auto(GStrv) names = fl_test_list_dir (dir);

  for (guint i = 0; names[i] != NULL; i++)
    g_test_message ("left behind: %s", names[i]);
  g_assert_cmpuint (g_strv_length (names), ==, 0);
}

/* Every entry point that takes a target refuses it the same way. */
static void
assert_refused (const char *target,
                int         code,
                const char *named)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlLock) tried = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;

  lock = fl_lock_acquire (target, NULL, NULL, &error);
  g_assert_null (lock);
  g_test_message ("%s", error->message);
  fl_test_assert_error_names (error, FL_ERROR, code, named);
  g_clear_error (&error);

  tried = fl_lock_try_acquire (target, NULL, &error);
  g_assert_null (tried);
  fl_test_assert_error_names (error, FL_ERROR, code, named);
  g_clear_error (&error);

  /* A lock directory that does not exist holds no lock: "not locked" is a fair answer. */
  g_assert_false (fl_is_locked (target, NULL, &error));
  if (error != NULL || code != FL_ERROR_NOT_DIRECTORY)
    fl_test_assert_error_names (error, FL_ERROR, code, named);
  g_clear_error (&error);

  snapshot = fl_snapshot_new_for_target (target, NULL, &error);
  g_assert_null (snapshot);
  fl_test_assert_error_names (error, FL_ERROR, code, named);
}

static void
test_empty (FlTestDir     *fx,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire ("", NULL, NULL, &error);

  g_assert_null (lock);
  g_assert_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET);
  g_assert_cmpstr (error->message, !=, "");
  g_assert_null (fl_lock_path_for (""));
}

static void
test_trailing_slash (FlTestDir     *fx,
                     gconstpointer  data)
{
  g_autofree char *target = g_strconcat (fx->dir, "/target/", NULL);

  assert_refused (target, FL_ERROR_INVALID_TARGET, target);
  assert_dir_empty (fx->dir);
}

static void
test_path_max (FlTestDir     *fx,
               gconstpointer  data)
{
  g_autoptr(GString) target = g_string_new (fx->dir);

  /* Short components, so that only the whole path is too long. */
  while (target->len < PATH_MAX + 16)
    g_string_append (target, "/abcdefgh");
  assert_refused (target->str, FL_ERROR_INVALID_TARGET, fx->dir);

  /* Just short enough for T.lock, but T.lock itself would not fit PATH_MAX. */
  g_string_truncate (target, PATH_MAX - 3);
  assert_refused (target->str, FL_ERROR_INVALID_TARGET, fx->dir);
  assert_dir_empty (fx->dir);
}

#ifdef __linux__
/* The temp and graveyard names are the longest the protocol makes; a target whose lock name
 * fits NAME_MAX but whose temp name would not is refused up front, not half way. */
static void
test_name_max (FlTestDir     *fx,
               gconstpointer  data)
{
  gsize longest = NAME_MAX - strlen (".lock") - FL_NAME_SUFFIX_MAX;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  for (gsize len = longest + 1; len <= NAME_MAX; len += 7)
    {
      g_autofree char *base = g_strnfill (len, 'n');
      g_autofree char *target = g_build_filename (fx->dir, base, NULL);

      assert_refused (target, FL_ERROR_INVALID_TARGET, fx->dir);
    }
  assert_dir_empty (fx->dir);

  /* The longest accepted name works with either temp path, and leaves nothing else. */
  for (int named = 0; named <= 1; named++)
    {
      g_autofree char *base = g_strnfill (longest, 'y');
      g_autofree char *target = g_build_filename (fx->dir, base, NULL);
      g_autofree char *lock_name = g_strconcat (base, ".lock", NULL);
      g_auto(GStrv) names = NULL;

      _fl_lock_set_force_named_temp (named);
      lock = fl_lock_acquire (target, NULL, NULL, &error);
      _fl_lock_set_force_named_temp (FALSE);
      g_assert_no_error (error);
      names = fl_test_list_dir (fx->dir);
      g_assert_cmpuint (g_strv_length (names), ==, 1);
      g_assert_cmpstr (names[0], ==, lock_name);
      g_assert_true (fl_lock_release (lock, &error));
      g_clear_object (&lock);
    }
}
#endif

static void
test_dir_missing (FlTestDir     *fx,
                  gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (fx->dir, "missing", "sub", NULL);
  g_autofree char *target = g_build_filename (dir, "target", NULL);
  g_autofree char *lock_path = g_strconcat (target, ".lock", NULL);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  assert_refused (target, FL_ERROR_NOT_DIRECTORY, dir);
  assert_dir_empty (fx->dir);

  fl_lock_options_set_create_dirs (options, TRUE);
  lock = fl_lock_acquire (target, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_test (dir, G_FILE_TEST_IS_DIR));
  g_assert_true (fl_test_kernel_lock_held (lock_path));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

static void
test_dir_not_directory (FlTestDir     *fx,
                        gconstpointer  data)
{
  g_autofree char *file = g_build_filename (fx->dir, "file", NULL);
  g_autofree char *target = g_build_filename (file, "target", NULL);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;
  gsize len;

  fl_test_write (file, "precious", -1);
  assert_refused (target, FL_ERROR_NOT_DIRECTORY, file);

  /* Asking to create directories does not replace a file by one. */
  fl_lock_options_set_create_dirs (options, TRUE);
  lock = fl_lock_acquire (target, options, NULL, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY, file);
  content = fl_test_read (file, &len);
  g_assert_cmpmem (content, len, "precious", 8);
}

#ifdef __linux__
/* As root every permission check passes, so the attempt runs in a worker that dropped to
 * nobody (uid 65534). */
static void
test_dir_not_writable (FlTestDir     *fx,
                       gconstpointer  data)
{
  g_autofree char *dir = g_build_filename (fx->dir, "readonly", NULL);
  g_autofree char *target = g_build_filename (dir, "target", NULL);

  g_assert_cmpint (mkdir (dir, 0755), ==, 0);

  if (fl_test_is_root ())
    {
      g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
      const char *argv[] = { worker, "--timeout-ms=100", "acquire", target, NULL };
      g_autoptr(FlTestProc) proc = NULL;
      g_autofree char *out = NULL;
      g_autofree char *expected = NULL;

      /* The fixture is 0700; nobody must be able to reach the directory, not write it. */
      g_assert_cmpint (chmod (fx->dir, 0755), ==, 0);
      proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_AS_NOBODY);
      out = fl_test_proc_read_all (proc, fl_test_deadline_ms (10000));
      g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
      g_test_message ("worker as nobody: %s", out);
      if (fl_test_proc_exit_code (proc) == 99)
        {
          g_test_skip ("cannot switch to uid 65534 to test permissions");
          return;
        }
      expected = g_strdup_printf ("error %s %d ", g_quark_to_string (FL_ERROR),
                                  FL_ERROR_PERMISSION);
      g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 2);
      g_assert_true (g_str_has_prefix (out, expected));
      g_assert_nonnull (strstr (out, dir));
    }
  else
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = NULL;

      g_assert_cmpint (chmod (dir, 0555), ==, 0);
      lock = fl_lock_acquire (target, NULL, NULL, &error);
      g_assert_null (lock);
      fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_PERMISSION, dir);
    }
  assert_dir_empty (dir);
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/bad-input/target/empty", NULL, test_empty);
  FL_TEST_ADD ("/libfl/bad-input/target/trailing-slash", NULL, test_trailing_slash);
  FL_TEST_ADD ("/libfl/bad-input/target/path-max", NULL, test_path_max);
  FL_TEST_ADD_LINUX ("/libfl/bad-input/target/name-max", NULL, test_name_max,
                     "a NAME_MAX-long name within PATH_MAX (Windows' MAX_PATH, 260, has no room "
                     "for a 255-byte name beside the test directory)");
  FL_TEST_ADD ("/libfl/bad-input/dir/missing", NULL, test_dir_missing);
  FL_TEST_ADD ("/libfl/bad-input/dir/not-a-directory", NULL, test_dir_not_directory);
  FL_TEST_ADD_LINUX ("/libfl/bad-input/dir/not-writable", NULL, test_dir_not_writable,
                     "Unix permissions (a directory chmod 0555, or uid 65534 as root)");

  return g_test_run ();
}
