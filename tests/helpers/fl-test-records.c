/* fl-test-records.c: the counted section of the portable exclusion tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-records.h"

#include <glib/gstdio.h>
#include <stdio.h>

gint64
fl_test_records_read_counter (const char *path)
{
  g_autofree char *text = NULL;
  char *end;
  gint64 value;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return -1;
  value = g_ascii_strtoll (text, &end, 10);
  return end != text && *end == '\0' ? value : -1;
}

int
fl_test_records_worker (const char *target,
                        const char *counter,
                        const char *record,
                        guint       sections,
                        gboolean    wait_when_done)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  FILE *out = fopen (record, "a");

  if (out == NULL)
    return 2;
  fl_lock_options_set_timeout_ms (options, 300000);

  for (guint i = 0; i < sections; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = fl_lock_acquire (target, options, NULL, &error);
      char buf[32];
      gint64 value;
      int len;

      if (lock == NULL)
        {
          fprintf (stderr, "worker: acquire: %s\n", error->message);
          return 1;
        }
      value = fl_test_records_read_counter (counter);
      if (value < 0)
        {
          fprintf (stderr, "worker: the counter is unreadable inside the lock\n");
          return 4;  /* a holder's half-written counter: an overlap */
        }
      len = g_snprintf (buf, sizeof buf, "%" G_GINT64_FORMAT, value + 1);
      /* In place, no rename and no fsync: only mutual exclusion keeps it whole. */
      if (!g_file_set_contents_full (counter, buf, len, G_FILE_SET_CONTENTS_NONE, 0644, &error))
        {
          fprintf (stderr, "worker: %s\n", error->message);
          return 1;
        }
      fprintf (out, "%s\n", buf);
      fflush (out);
      if (!fl_lock_release (lock, &error))
        {
          fprintf (stderr, "worker: release: %s\n", error->message);
          return 1;
        }
    }
  fclose (out);

  if (wait_when_done)
    {
      char line[64];

      printf ("done\n");
      fflush (stdout);
      while (fgets (line, sizeof line, stdin) != NULL)
        ;
    }
  return 0;
}

gboolean
fl_test_records_wait_counter (const char *counter,
                              gint64      at_least,
                              gint64      deadline_us)
{
  while (g_get_monotonic_time () < deadline_us)
    {
      if (fl_test_records_read_counter (counter) >= at_least)
        return TRUE;
      g_usleep (1000);  /* polling a condition, with a deadline: not synchronisation by sleep */
    }
  return FALSE;
}
