/* fl-inspector-bench.c: the Lock Inspector's window at scale: time to first rows, and the
 * longest the main loop stalls while a burst of changes arrives
 *
 * Usage: xvfb-run -a fl-inspector-bench [--locks N] [--burst N] [--stalls] [--only MODE]
 *        [--scroll PX]
 *
 * Makes a directory of N lock files (100,000 by default; their holder this process), opens the
 * real window on it, and measures:
 * - the time from adding the folder to the first rows in the list;
 * - for the list unsorted, sorted by name, and sorted with a search every name matches, with a
 *   row in the middle selected and the list scrolled to --scroll (the top by default): the
 *   longest gap between two turns of the main loop (a 1 ms timer's ticks) while BURST new lock files
 *   with scattered names arrive and are then removed, from the first file operation until
 *   the model holds them all (or none). The baseline is the longest gap over the same time with
 *   nothing arriving, measured in the same run: what the machine itself costs.
 * - "Remove All Orphans" on BURST orphaned temp files among them, sorted, a row selected: the
 *   longest stall until the rows are gone, done by the window (a worker thread, the rows leaving
 *   a slice at a time), against the baseline of the same removal done as it was before, one
 *   fl_directory_model_reclaim() after the other on the main loop, measured in the same run.
 * Beside each wall-clock figure, the main thread's own CPU time: on a shared machine most of a
 * stall's wall time can be other processes' (and the software renderer's threads').
 * Targets (issue 15): first rows <= 1 s; worst stall <= 50 ms. Figures are "name value unit"
 * lines, then the targets marked met or MISSED.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "inspector-window-private.h"

#define FIRST_ROWS_TARGET_MS 1000.0
#define STALL_TARGET_MS        50.0

typedef struct
{
  gint64 last;
  gint64 worst;
} Ticks;

/* With --stalls: every gap of at least this long is printed with its place on the monotonic
 * clock, to be matched against a profile taken with `perf record -k CLOCK_MONOTONIC`. */
#define REPORTED_STALL_US (30 * 1000)
static gboolean report_stalls;

/* With --only: the one measurement to make (the others' set-up still runs), for a profile. */
static char *only;

/* Where the list is scrolled before each burst (--scroll). The burst's hex names sort before
 * the folder's "lock-N.lock": a sorted burst lands at the top, the worst case when the view is
 * there. Set, not left to chance: the window before 2026-12-07 left the view about 52,000 px
 * down after a load (rows sorting in above the first ones pushed it), the window since shows
 * the top (inspector-window-top.c), so the two measured different scrolls. */
static int scroll_px;

static gboolean
wanted (const char *mode)
{
  return only == NULL || g_str_equal (only, mode);
}

/* The main thread's own CPU time: on a shared machine a stall's wall time is mostly other
 * processes' (and the renderer's threads'); this part is the window's code. */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static gboolean
tick_cb (gpointer data)
{
  static gint64 last_cpu;
  Ticks *t = data;
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = thread_cpu_us ();

  if (report_stalls && now - t->last >= REPORTED_STALL_US)
    g_print ("stall %.1f ms (main thread CPU %.1f ms) from %.6f to %.6f s (monotonic)\n",
             (now - t->last) / 1000.0, (cpu - last_cpu) / 1000.0, t->last / 1e6, now / 1e6);
  t->worst = MAX (t->worst, now - t->last);
  t->last = now;
  last_cpu = cpu;
  return G_SOURCE_CONTINUE;
}

static void
write_lock (const char *path)
{
  char buf[16];
  int len = g_snprintf (buf, sizeof buf, "%d", (int) getpid ());
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  if (fd < 0 || write (fd, buf, len) != len || close (fd) != 0)
    g_error ("cannot write %s", path);
}

/* Runs the main loop until the model holds @n entries, measuring the longest stall. */
static gint64
run_until (InspectorWindow *window,
           guint            n,
           Ticks           *t)
{
  gint64 deadline = g_get_monotonic_time () + 600 * G_USEC_PER_SEC;

  while (g_list_model_get_n_items (G_LIST_MODEL (window->model)) != n)
    {
      if (g_get_monotonic_time () > deadline)
        g_error ("the model never reached %u entries", n);
      g_main_context_iteration (NULL, TRUE);
      tick_cb (t);
    }
  return t->worst;
}

static void
idle_for (gint64 us,
          Ticks *t)
{
  gint64 until = g_get_monotonic_time () + us;

  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, TRUE);
      tick_cb (t);
    }
}

/* Scattered names: each lands in its own place in a list sorted by name, as locks of many
 * targets made at once do. */
static char *
burst_path (const char *dir,
            guint       i)
{
  return g_strdup_printf ("%s/%08x-%u.lock", dir, g_int_hash (&i) * 2654435761u, i);
}

static void
measure_burst (InspectorWindow *window,
               const char      *dir,
               guint            n_locks,
               guint            burst,
               const char      *mode)
{
  Ticks t = { g_get_monotonic_time (), 0 };
  Ticks idle = { g_get_monotonic_time (), 0 };
  guint timer;
  gint64 start, took_us, stall_add, stall_remove, cpu;

  if (!wanted (mode))
    return;
  gtk_single_selection_set_selected (window->selection, n_locks / 2);
  /* As a person who scrolled: the list no longer goes back to its top. */
  _inspector_window_keep_top (window, FALSE);
  gtk_adjustment_set_value (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (window->column_view)),
                            scroll_px);
  timer = g_timeout_add (1, tick_cb, &idle);
  idle_for (500 * 1000, &idle);
  g_source_remove (timer);

  /* The files are made (and removed) first, so that the bench's own writes are not counted;
   * the clock of the stalls starts when the window may see them. */
  start = g_get_monotonic_time ();
  cpu = thread_cpu_us ();
  for (guint i = 0; i < burst; i++)
    {
      g_autofree char *path = burst_path (dir, i);

      write_lock (path);
    }
  t.last = g_get_monotonic_time ();
  timer = g_timeout_add (1, tick_cb, &t);
  stall_add = run_until (window, n_locks + burst, &t);
  g_source_remove (timer);
  for (guint i = 0; i < burst; i++)
    {
      g_autofree char *path = burst_path (dir, i);

      g_unlink (path);
    }
  t.worst = 0;
  t.last = g_get_monotonic_time ();
  timer = g_timeout_add (1, tick_cb, &t);
  stall_remove = run_until (window, n_locks, &t);
  g_source_remove (timer);
  took_us = g_get_monotonic_time () - start;
  cpu = thread_cpu_us () - cpu;

  /* For `perf report --time` on a profile taken with `perf record -k CLOCK_MONOTONIC`. */
  g_print ("%s_burst_window %.6f,%.6f s (monotonic)\n", mode, start / 1e6,
           (start + took_us) / 1e6);
  g_print ("%s_worst_stall_create %.1f ms\n", mode, stall_add / 1000.0);
  g_print ("%s_worst_stall_remove %.1f ms\n", mode, stall_remove / 1000.0);
  g_print ("%s_idle_worst_gap %.1f ms\n", mode, idle.worst / 1000.0);
  g_print ("%s_burst_applied %.0f ms (%u creates, %u removes)\n", mode, took_us / 1000.0,
           burst, burst);
  g_print ("%s_burst_main_thread_cpu %.0f ms (%.2f ms a change, the bench's file writes included)\n",
           mode, cpu / 1000.0, cpu / 1000.0 / (2 * burst));
  g_print ("target %s: worst stall %.1f ms <= %.0f ms (idle machine gap %.1f ms): %s\n", mode,
           MAX (stall_add, stall_remove) / 1000.0, STALL_TARGET_MS, idle.worst / 1000.0,
           MAX (stall_add, stall_remove) / 1000.0 <= STALL_TARGET_MS ? "met" : "MISSED");
}

/* A process that has exited and been reaped: its PID names nobody (until reused). */
static int
dead_pid (void)
{
  pid_t pid = fork ();

  if (pid == 0)
    _exit (0);
  if (pid < 0 || waitpid (pid, NULL, 0) != pid)
    g_error ("cannot fork");
  return (int) pid;
}

static GPtrArray *
make_orphans (InspectorWindow *window,
              const char      *dir,
              guint            n_locks,
              guint            n,
              const char      *prefix)
{
  GPtrArray *seen = g_ptr_array_new_with_free_func (g_object_unref);
  Ticks t = { g_get_monotonic_time (), 0 };
  int dead = dead_pid ();
  g_autofree char *content = g_strdup_printf ("%d", dead);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%08x-%s%u.lock.%d.%08x.tmp", dir,
                                               g_int_hash (&i) * 2654435761u, prefix, i, dead, i);
      int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

      if (fd < 0 || write (fd, content, strlen (content)) != (ssize_t) strlen (content)
          || close (fd) != 0)
        g_error ("cannot write %s", path);
    }
  run_until (window, n_locks + n, &t);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (window->model)); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (G_LIST_MODEL (window->model), i);

      if (fl_snapshot_get_state (fl_entry_get_snapshot (entry)) == FL_ENTRY_STATE_ORPHAN)
        g_ptr_array_add (seen, fl_entry_dup_snapshot (entry));
    }
  if (seen->len != n)
    g_error ("%u orphans made, %u judged so", n, seen->len);
  return seen;
}

static void
measure_bulk_removal (InspectorWindow *window,
                      const char      *dir,
                      guint            n_locks,
                      guint            n)
{
  g_autoptr(GPtrArray) before = NULL;
  g_autoptr(GPtrArray) after = NULL;
  Ticks t = { g_get_monotonic_time (), 0 };
  gint64 start, sync_stall, stall, took_us, cpu;
  guint timer;

  if (!wanted ("bulk"))
    return;
  before = make_orphans (window, dir, n_locks, n, "a");
  gtk_single_selection_set_selected (window->selection, n_locks / 2);
  /* As a person who scrolled: the list no longer goes back to its top. */
  _inspector_window_keep_top (window, FALSE);
  gtk_adjustment_set_value (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (window->column_view)),
                            scroll_px);
  /* The baseline: how the window removed them before, all on the main loop. */
  start = g_get_monotonic_time ();
  for (guint i = 0; i < before->len; i++)
    fl_directory_model_reclaim (window->model, before->pdata[i], NULL);
  sync_stall = g_get_monotonic_time () - start;
  run_until (window, n_locks, &t);

  after = make_orphans (window, dir, n_locks, n, "b");
  t.worst = 0;
  t.last = g_get_monotonic_time ();
  start = t.last;
  cpu = thread_cpu_us ();
  timer = g_timeout_add (1, tick_cb, &t);
  _inspector_window_remove_orphans (window, after);
  while (window->work != NULL)
    {
      g_main_context_iteration (NULL, TRUE);
      tick_cb (&t);
    }
  stall = run_until (window, n_locks, &t);
  g_source_remove (timer);
  took_us = g_get_monotonic_time () - start;
  cpu = thread_cpu_us () - cpu;

  g_print ("bulk_removal_baseline_stall %.1f ms (%u orphans, one reclaim after another)\n",
           sync_stall / 1000.0, n);
  g_print ("bulk_removal_worst_stall %.1f ms (%.3fx the baseline), all gone in %.0f ms\n",
           stall / 1000.0, (double) stall / MAX (sync_stall, 1), took_us / 1000.0);
  g_print ("bulk_removal_main_thread_cpu %.0f ms\n", cpu / 1000.0);
  g_print ("target bulk removal: worst stall %.1f ms <= %.0f ms: %s\n", stall / 1000.0,
           STALL_TARGET_MS, stall / 1000.0 <= STALL_TARGET_MS ? "met" : "MISSED");
}

static gboolean
has_rows (InspectorWindow *window)
{
  return g_list_model_get_n_items (_inspector_window_get_rows (window)) > 0 &&
         g_strcmp0 (gtk_stack_get_visible_child_name (window->stack), "list") == 0;
}

int
main (int    argc,
      char **argv)
{
  int n_locks = 100000;
  int burst = 1000;
  GOptionEntry entries[] = {
    { "locks", 0, 0, G_OPTION_ARG_INT, &n_locks, "lock files in the folder", "N" },
    { "burst", 0, 0, G_OPTION_ARG_INT, &burst, "files created, then removed, at once", "N" },
    { "stalls", 0, 0, G_OPTION_ARG_NONE, &report_stalls,
      "print each stall of 30 ms or more with its time on the monotonic clock", NULL },
    { "scroll", 0, 0, G_OPTION_ARG_INT, &scroll_px,
      "before each burst, scroll the list to PX (default 0: the top)", "PX" },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only,
      "measure only unsorted, sorted, sorted_filtered or bulk", "MODE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- the Lock Inspector at scale");
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  InspectorWindow *window;
  gint64 start, first_rows;
  GListModel *columns;
  g_autoptr(GtkColumnViewColumn) name_column = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    g_error ("%s", error->message);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("GSETTINGS_SCHEMA_DIR", INSPECTOR_SCHEMA_BUILD_DIR, TRUE);
  if (!gtk_init_check ())
    {
      g_printerr ("fl-inspector-bench: no display: run it under xvfb-run -a\n");
      return 77;
    }

  dir = g_dir_make_tmp ("fl-inspector-bench-XXXXXX", &error);
  g_assert_no_error (error);
  for (int i = 0; i < n_locks; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/lock-%07d.lock", dir, i);

      write_lock (path);
    }
  {
    double load[1] = { -1 };

    getloadavg (load, 1);
    g_print ("locks %d\nburst %d\nload_average %.1f\n", n_locks, burst, load[0]);
  }

  window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  start = g_get_monotonic_time ();
  inspector_window_add_directory (window, dir, FALSE, FALSE);
  while (!has_rows (window))
    g_main_context_iteration (NULL, TRUE);
  first_rows = g_get_monotonic_time () - start;
  while (g_list_model_get_n_items (G_LIST_MODEL (window->model)) < (guint) n_locks)
    g_main_context_iteration (NULL, TRUE);
  g_print ("first_rows %.0f ms\n", first_rows / 1000.0);

  measure_burst (window, dir, n_locks, burst, "unsorted");
  columns = gtk_column_view_get_columns (window->column_view);
  name_column = g_list_model_get_item (columns, 0);
  gtk_column_view_sort_by_column (window->column_view, name_column, GTK_SORT_ASCENDING);
  measure_burst (window, dir, n_locks, burst, "sorted");
  /* A search that every name matches: each change is filtered as well as sorted. */
  gtk_search_entry_set_search_delay (window->search_entry, 0);
  start = g_get_monotonic_time ();
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "lock");
  /* Applied from a timeout: waited for, so that its pass is not counted as the machine's. */
  while (window->search_text == NULL)
    g_main_context_iteration (NULL, TRUE);
  if (wanted ("sorted_filtered"))
    g_print ("search_applied %.1f ms (one pass over %d rows)\n",
             (g_get_monotonic_time () - start) / 1000.0, n_locks);
  measure_burst (window, dir, n_locks, burst, "sorted_filtered");
  gtk_editable_set_text (GTK_EDITABLE (window->search_entry), "");
  measure_bulk_removal (window, dir, n_locks, burst);

  g_print ("target first rows: %.0f ms <= %.0f ms: %s\n", first_rows / 1000.0,
           FIRST_ROWS_TARGET_MS, first_rows / 1000.0 <= FIRST_ROWS_TARGET_MS ? "met" : "MISSED");

  gtk_window_destroy (GTK_WINDOW (window));
  for (int i = 0; i < n_locks; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/lock-%07d.lock", dir, i);

      g_unlink (path);
    }
  g_rmdir (dir);
  return 0;
}
