/* service.c: a service that takes its lock through libfl built as its subproject
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

/* The parent's test: it fails (an assertion aborts) unless the lock is held while held and
 * gone once released. */
int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  g_assert_cmpint (argc, ==, 2);
  lock = fl_lock_acquire (argv[1], NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  g_assert_true (fl_is_locked (argv[1], NULL, &error));
  g_assert_no_error (error);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_false (fl_is_locked (argv[1], NULL, &error));
  g_assert_no_error (error);
  return 0;
}
