/* test-release-lost.c: a release after the lock was taken away removes nothing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
static void
test_replaced (FlTestDir     *fx,
               gconstpointer  data)
{
  g_autofree char *other = g_build_filename (fx->dir, "other", NULL);
  g_autofree char *content = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  GStatBuf replacement, after;
  gsize len;

  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);

  /* What a peer speaking only the original protocol can do (docs/protocol.md, section 8). */
  fl_test_write (other, "12345", -1);
  g_assert_cmpint (g_stat (other, &replacement), ==, 0);
  g_assert_cmpint (g_rename (other, fx->lock), ==, 0);

  g_assert_false (fl_lock_release (lock, &error));
  g_test_message ("%s", error->message);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_LOST, fx->lock);
  g_assert_nonnull (strstr (error->message, "12345"));
  g_assert_false (fl_lock_is_held (lock));

  /* The replacement is untouched (st_ino is 0 on Windows: its content says it there). */
  g_assert_cmpint (g_lstat (fx->lock, &after), ==, 0);
  g_assert_cmpuint (after.st_ino, ==, replacement.st_ino);
  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, "12345", 5);

  /* Our kernel lock went with the release attempt: nothing holds the replacement's. */
  g_assert_false (fl_test_kernel_lock_held (fx->lock));
}
#endif

#ifdef __linux__
static void
test_removed (FlTestDir     *fx,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_unlink (fx->lock), ==, 0);

  g_assert_false (fl_lock_release (lock, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_LOST, fx->lock);
  g_assert_false (fl_test_exists (fx->lock));
}
#endif

/* Replaced by another libfl holder's lock (the lock was moved away, another process acquired;
 * this one would be refused, as it still believes it holds the lock): that holder keeps it. */
static void
test_replaced_by_holder (FlTestDir     *fx,
                         gconstpointer  data)
{
  g_autofree char *aside = g_build_filename (fx->dir, "aside", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlTestProc) second = NULL;

  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_rename (fx->lock, aside), ==, 0);
  second = fl_test_spawn_holder (fx->target);

  g_assert_false (fl_lock_release (lock, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_LOST, fx->lock);
  g_clear_error (&error);
  g_assert_true (fl_test_exists (fx->lock));
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
  g_assert_true (fl_test_exists (aside));

  fl_test_holder_release (second);
  g_assert_false (fl_test_exists (fx->lock));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/release/lost/replaced", NULL, test_replaced,
                     "a rename over a file another process has open (Windows refuses it "
                     "without POSIX rename semantics, which wine lacks)");
  FL_TEST_ADD_LINUX ("/libfl/release/lost/removed", NULL, test_removed,
                     "a lock's name removed while its holder has it open (a classic delete "
                     "leaves it, delete-pending, until the holder's handle closes; wine has no "
                     "POSIX delete)");
  FL_TEST_ADD ("/libfl/release/lost/replaced-by-holder", NULL, test_replaced_by_holder);

  return g_test_run ();
}
