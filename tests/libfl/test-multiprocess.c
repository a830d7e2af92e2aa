/* test-multiprocess.c: P processes x N critical sections, exactly P x N increments
 *
 * Each worker (tests/helpers/fl-worker) does a plain read-increment-write of a counter file
 * inside the lock, guarded by an O_EXCL-style marker that makes it exit 3 the moment it finds
 * another holder inside. A lost update or an overlap fails the test.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include "fl-test-counter.h"
#include "fl-test-util.h"

typedef struct
{
  guint processes;
  guint sections;
  guint deadline_s;  /* below the meson timeout, so that a hang ends with the counter printed */
} Load;

#ifdef G_OS_WIN32
/* Under wine every file call is a round trip to one wineserver, about 20 times Linux's cost:
 * fewer sections keep the Windows stage in minutes, with the same processes contending. */
static const Load p8 = { 8, 250, 280 };
static const Load unlocked = { 4, 250, 60 };
#else
static const Load p8 = { 8, 2000, 280 };
static const Load unlocked = { 4, 2000, 60 };
static const Load p32 = { 32, 2000, 580 };
#endif

/* Returns the wall time in seconds. */
static double
run_workers (FlTestDir   *fx,
             const Load  *load,
             const char  *const *envp)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autofree char *n = g_strdup_printf ("%u", load->sections);
  g_autoptr(GPtrArray) procs = g_ptr_array_new_with_free_func ((GDestroyNotify) fl_test_proc_free);
  gint64 deadline = fl_test_deadline_ms (load->deadline_s * 1000);
  gint64 start = g_get_monotonic_time ();
  double seconds;

  for (guint i = 0; i < load->processes; i++)
    {
      const char *argv[] = { worker, "count", fx->target, counter, n, NULL };

      g_ptr_array_add (procs, fl_test_proc_spawn (argv, envp, FL_TEST_SPAWN_DEFAULT));
    }

  fl_test_counters_wait (procs, counter, deadline);
  seconds = (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC;

  g_assert_cmpint (fl_test_counter_read (counter), ==,
                   (long) load->processes * (long) load->sections);
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
  g_test_message ("P=%u x %u critical sections: %.2f s wall, %.1f us per section",
                  load->processes, load->sections, seconds,
                  seconds * 1e6 / (load->processes * load->sections));
  return seconds;
}

static void
test_processes (FlTestDir     *fx,
                gconstpointer  data)
{
  run_workers (fx, data, NULL);
}

#ifdef __linux__
/* The same with every worker on the named-temp path (no O_TMPFILE). */
static void
test_processes_named_temp (FlTestDir     *fx,
                           gconstpointer  data)
{
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "FL_NAMED_TEMP", "1", TRUE);

  run_workers (fx, data, (const char * const *) envp);
}
#endif

/* The harness itself must be able to fail: the same load without the lock shows an overlap
 * or a lost update. */
static void
test_harness (FlTestDir     *fx,
              gconstpointer  data)
{
  const Load *load = data;
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  g_autofree char *counter = g_build_filename (fx->dir, "counter", NULL);
  g_autofree char *n = g_strdup_printf ("%u", load->sections);
  g_autoptr(GPtrArray) procs = g_ptr_array_new_with_free_func ((GDestroyNotify) fl_test_proc_free);
  guint overlaps = 0;
  long count;

  for (guint i = 0; i < load->processes; i++)
    {
      const char *argv[] = { worker, "--no-lock", "count", fx->target, counter, n, NULL };

      g_ptr_array_add (procs, fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT));
    }
  for (guint i = 0; i < load->processes; i++)
    {
      int done = fl_test_proc_wait_any (procs, fl_test_deadline_ms (load->deadline_s * 1000));
      FlTestProc *proc;

      g_assert_cmpint (done, >=, 0);
      proc = g_ptr_array_index (procs, done);
      if (fl_test_proc_exit_code (proc) == FL_TEST_EXIT_OVERLAP)
        overlaps++;
      else
        g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 0);
    }
  count = fl_test_counter_read (counter);
  g_test_message ("without the lock: %u overlaps seen, counter %ld of %u",
                  overlaps, count, load->processes * load->sections);
  g_assert_true (overlaps > 0 || count < (long) load->processes * (long) load->sections);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/multiprocess/p8", &p8, test_processes);
#ifdef G_OS_WIN32
  fl_test_add_skipped ("/libfl/multiprocess/p32",
                       "32 processes x 2000 sections under one wineserver take most of an hour; "
                       "p8 contends the same way");
#else
  FL_TEST_ADD ("/libfl/multiprocess/p32", &p32, test_processes);
#endif
  FL_TEST_ADD_LINUX ("/libfl/multiprocess/p8-named-temp", &p8, test_processes_named_temp,
                     "O_TMPFILE, which FL_NAMED_TEMP turns off (Windows' temps are always named)");
  FL_TEST_ADD ("/libfl/multiprocess/harness-self-check", &unlocked, test_harness);

  return g_test_run ();
}
