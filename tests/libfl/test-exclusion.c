/* test-exclusion.c: P processes x N critical sections through the public API, some processes
 * killed in the middle, and not one update lost
 *
 * Portable on purpose: it uses only libfl and GLib (GSubprocess, whose force-exit is SIGKILL on
 * Linux and TerminateProcess() on Windows), so the same test proves mutual exclusion on every
 * platform libfl is built for, under wine included. The workers are this program itself
 * (fl-test-worker.h): no helper to find on a foreign path.
 *
 * Each section reads a counter, writes it plus one, then records the value it wrote in the
 * worker's own record file. Two holders at once would write the same value: a duplicate among
 * the records is a lost update. A worker killed between its write and its record leaves a gap,
 * never a duplicate, so kills cannot hide an overlap nor fake one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fl-test-dir.h"
#include "fl-test-records.h"
#include "fl-test-worker.h"

#define SECTIONS  500
#define WORKERS   8
#define KILLS     3

/* The test */

static char *
make_counter (FlTestDir *fx)
{
  char *counter = g_build_filename (fx->dir, "counter", NULL);

  g_assert_true (g_file_set_contents (counter, "0", -1, NULL));
  return counter;
}

/* Waits (with a deadline) until the counter reaches @at least: the moment to kill someone. */
static void
test_exclusion_with_kills (FlTestDir     *fx,
                           gconstpointer  data)
{
  g_autofree char *counter = make_counter (fx);
  GSubprocess *workers[WORKERS];
  gboolean killed[WORKERS] = { FALSE };
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *values = NULL;
  gint64 deadline = fl_test_deadline_ms (240000);
  gint64 final_value, max_seen = 0;
  guint n_values = 0, n_killed = 0;
  g_autofree char *sections = g_strdup_printf ("%d", SECTIONS);

  for (guint i = 0; i < WORKERS; i++)
    {
      g_autofree char *record = g_strdup_printf ("%s%crecord.%u", fx->dir, G_DIR_SEPARATOR, i);

      workers[i] = fl_test_worker_spawn (G_SUBPROCESS_FLAGS_NONE, "section", fx->target,
                                         counter, record, sections, NULL);
    }

  /* Kill workers at a quarter, half and three quarters of the work, whatever they are doing:
   * inside the lock, acquiring it, or between. */
  for (guint k = 0; k < KILLS; k++)
    {
      gint64 at = (gint64) WORKERS * SECTIONS * (k + 1) / (KILLS + 1);
      guint victim = (guint) g_test_rand_int_range (0, WORKERS);

      while (killed[victim])
        victim = (victim + 1) % WORKERS;
      if (!fl_test_records_wait_counter (counter, at, deadline))
        g_error ("the counter never reached %" G_GINT64_FORMAT ": at %" G_GINT64_FORMAT, at,
                 fl_test_records_read_counter (counter));
      g_subprocess_force_exit (workers[victim]);
      killed[victim] = TRUE;
      n_killed++;
    }

  for (guint i = 0; i < WORKERS; i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_true (g_subprocess_wait (workers[i], NULL, &error));
      g_assert_no_error (error);
      if (!killed[i])
        {
          g_assert_true (g_subprocess_get_if_exited (workers[i]));
          g_assert_cmpint (g_subprocess_get_exit_status (workers[i]), ==, 0);
        }
      g_object_unref (workers[i]);
    }

  /* Every value recorded, from every worker, at most once. */
  values = g_new0 (gint64, WORKERS * SECTIONS);
  for (guint i = 0; i < WORKERS; i++)
    {
      g_autofree char *record = g_strdup_printf ("%s%crecord.%u", fx->dir, G_DIR_SEPARATOR, i);
      g_autofree char *text = NULL;
      g_auto(GStrv) lines = NULL;

      if (!g_file_get_contents (record, &text, NULL, NULL))
        continue;  /* killed before its first section */
      lines = g_strsplit (text, "\n", -1);
      for (guint l = 0; lines[l] != NULL; l++)
        {
          gint64 *v;

          if (lines[l][0] == '\0')
            continue;
          g_assert_cmpuint (n_values, <, WORKERS * SECTIONS);
          v = &values[n_values++];
          *v = g_ascii_strtoll (lines[l], NULL, 10);
          if (g_hash_table_contains (seen, v))
            g_error ("the value %" G_GINT64_FORMAT " was written twice: two holders at once",
                     *v);
          g_hash_table_add (seen, v);
          max_seen = MAX (max_seen, *v);
        }
    }

  final_value = fl_test_records_read_counter (counter);
  g_test_message ("%u workers (%u killed), counter %" G_GINT64_FORMAT ", %u values recorded",
                  WORKERS, n_killed, final_value, n_values);
  /* The survivors did all their sections; each kill cost at most one unrecorded write. */
  g_assert_cmpint (final_value, >=, (gint64) (WORKERS - n_killed) * SECTIONS);
  g_assert_cmpint (max_seen, <=, final_value);
  g_assert_cmpint (final_value - (gint64) n_values, <=, n_killed);
  g_assert_cmpint (final_value - (gint64) n_values, >=, 0);

  /* Whatever a killed holder left is stale now, and the next acquire takes it over. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(FlLock) lock = fl_lock_try_acquire (fx->target, NULL, &error);

    g_assert_no_error (error);
    g_assert_true (fl_lock_is_held (lock));
    g_assert_true (fl_lock_release (lock, &error));
    g_assert_no_error (error);
  }
}

static int
section_main (char **args)
{
  return fl_test_records_worker (args[0], args[1], args[2], (guint) atoi (args[3]), FALSE);
}

int
main (int    argc,
      char **argv)
{
  static const FlTestWorkerRole roles[] = { { "section", 4, section_main }, { NULL } };
  int status;

  if (fl_test_worker_main (argc, argv, roles, &status))
    return status;
  g_test_init (&argc, &argv, NULL);
  FL_TEST_ADD ("/libfl/exclusion/p8x500-with-kills", NULL, test_exclusion_with_kills);
  return g_test_run ();
}
