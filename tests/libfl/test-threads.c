/* test-threads.c: threads of one process exclude each other: the second is refused at once
 *
 * A lock is not re-entrant, whichever thread asks (protocol/fl-held.c): while one thread holds
 * or acquires it, another's acquire fails with FL_ERROR_HELD_BY_SELF instead of waiting. The
 * threads here retry until each has run its sections; the strict marker proves that no two
 * sections overlapped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include "fl-test-counter.h"
#include "fl-test-util.h"

#ifdef G_OS_WIN32
/* Under wine a refused thread's retry is a round trip to the wineserver that the holder waits
 * behind: 2 threads took 75 ms a section (2000 in 149 s). Fewer sections, the same contention. */
#define SECTIONS 50
#else
#define SECTIONS 1000
#endif

typedef struct
{
  const char *target;
  const char *counter;
  gboolean    use_with_lock;
  int         result;     /* 0, or FL_TEST_EXIT_* */
  char       *failure;
  guint       refused;    /* FL_ERROR_HELD_BY_SELF: another thread held or was acquiring it */
} ThreadData;

static gboolean
section_cb (gpointer   user_data,
            GError   **error)
{
  ThreadData *data = user_data;

  data->result = fl_test_critical_section (data->counter, FL_TEST_MARKER_STRICT);
  if (data->result != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "critical section failed: %d",
                   data->result);
      return FALSE;
    }
  return TRUE;
}

static gpointer
counting_thread (gpointer user_data)
{
  ThreadData *data = user_data;
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();

  fl_lock_options_set_timeout_ms (options, 60000);
  for (guint i = 0; i < SECTIONS && data->failure == NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      if (data->use_with_lock)
        {
          if (!fl_with_lock (data->target, section_cb, data, options, NULL, &error))
            {
              if (g_error_matches (error, FL_ERROR, FL_ERROR_HELD_BY_SELF) && data->result == 0)
                {
                  data->refused++;
                  i--;  /* not run: ask again */
                  g_thread_yield ();
                }
              else
                data->failure = g_strdup_printf ("section %u: %s", i, error->message);
            }
        }
      else
        {
          g_autoptr(FlLock) lock = fl_lock_acquire (data->target, options, NULL, &error);

          if (lock == NULL && g_error_matches (error, FL_ERROR, FL_ERROR_HELD_BY_SELF))
            {
              data->refused++;
              i--;  /* not run: ask again */
              g_thread_yield ();
            }
          else if (lock == NULL)
            data->failure = g_strdup_printf ("acquire %u: %s", i, error->message);
          else if ((data->result = fl_test_critical_section (data->counter,
                                                             FL_TEST_MARKER_STRICT)) != 0)
            data->failure = g_strdup_printf ("section %u failed: %d", i, data->result);
          else if (!fl_lock_release (lock, &error))
            data->failure = g_strdup_printf ("release %u: %s", i, error->message);
        }
    }
  return NULL;
}

static void
run_threads (FlTestDir *fx,
             guint      n_threads,
             gboolean   use_with_lock)
{
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autofree ThreadData *data = g_new0 (ThreadData, n_threads);
  g_autofree GThread **threads = g_new0 (GThread *, n_threads);
  gint64 start = g_get_monotonic_time ();
  guint refused = 0;

  for (guint i = 0; i < n_threads; i++)
    {
      data[i].target = fx->target;
      data[i].counter = counter;
      data[i].use_with_lock = use_with_lock;
      threads[i] = g_thread_new ("counter", counting_thread, &data[i]);
    }
  for (guint i = 0; i < n_threads; i++)
    g_thread_join (threads[i]);

  for (guint i = 0; i < n_threads; i++)
    {
      if (data[i].failure != NULL)
        g_error ("thread %u: %s", i, data[i].failure);
      refused += data[i].refused;
    }
  g_assert_cmpint (fl_test_counter_read (counter), ==, (long) n_threads * SECTIONS);
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
  g_test_message ("%u threads x %u sections: %.2f s, %u acquires refused (held by another "
                  "thread)", n_threads, SECTIONS,
                  (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC, refused);
}

static void
test_threads (FlTestDir     *fx,
              gconstpointer  data)
{
  run_threads (fx, GPOINTER_TO_UINT (data), FALSE);
}

static void
test_threads_with_lock (FlTestDir     *fx,
                        gconstpointer  data)
{
  run_threads (fx, GPOINTER_TO_UINT (data), TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/threads/2", GUINT_TO_POINTER (2), test_threads);
  FL_TEST_ADD ("/libfl/threads/4", GUINT_TO_POINTER (4), test_threads);
  FL_TEST_ADD ("/libfl/threads/8", GUINT_TO_POINTER (8), test_threads);
  FL_TEST_ADD ("/libfl/threads/4-with-lock", GUINT_TO_POINTER (4), test_threads_with_lock);

  return g_test_run ();
}
