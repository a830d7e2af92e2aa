/* service.c: a service that takes its lock through libfl built as its subproject
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  if (argc != 2)
    return 2;
  /* The parent's test: exit status 1 (the test fails) unless the lock is held while held and
   * gone once released. */
  lock = fl_lock_acquire (argv[1], NULL, NULL, &error);
  if (lock == NULL || !fl_is_locked (argv[1], NULL, &error) || !fl_lock_release (lock, &error))
    {
      g_printerr ("service: %s\n", error != NULL ? error->message : "not locked while held");
      return 1;
    }
  if (fl_is_locked (argv[1], NULL, &error) || error != NULL)
    {
      g_printerr ("service: %s\n", error != NULL ? error->message : "still locked after release");
      return 1;
    }
  return 0;
}
