/* fl-model-bench.c: FlDirectoryModel at scale: load time, memory, event-to-row latency
 *
 * Usage: fl-model-bench [--locks N] [--events N] [--dir DIR]
 *
 * Makes a directory of N lock files (default 100,000; a third name a live process, the rest
 * dead ones, as a busy host's lock directory would after crashes), then measures:
 * - the initial load (fl_directory_model_add_directory(), every file read and judged);
 * - the memory that the loaded model holds (RSS after minus RSS before, and peak RSS);
 * - the latency from a file operation (create, rewrite, unlink) to the model's items-changed or
 *   notify, which is what refreshes the row in the window;
 * - a rescan of the unchanged directory (the periodic repair, normally in a worker thread).
 * Figures are printed as "name value unit" lines, one per measure.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <libfl/fl.h>

static long
status_kb (const char *field)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  line = strstr (status, field);
  return line != NULL ? strtol (line + strlen (field) + 1, NULL, 10) : -1;
}

static double
load_average (void)
{
  double avg[1] = { -1 };

  getloadavg (avg, 1);
  return avg[0];
}

static double
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6
         + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void
write_lock (const char *path,
            int         pid)
{
  char buf[16];
  int len = g_snprintf (buf, sizeof buf, "%d", pid);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  if (fd < 0 || write (fd, buf, len) != len || close (fd) != 0)
    g_error ("cannot write %s: %s", path, g_strerror (errno));
}

static int
dead_pid (void)
{
  pid_t pid = fork ();

  if (pid == 0)
    _exit (0);
  waitpid (pid, NULL, 0);
  return pid;
}

typedef struct
{
  GMainLoop *loop;
  gint64     done_at;
} Waiter;

static void
items_changed_cb (GListModel *list,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Waiter     *waiter)
{
  waiter->done_at = g_get_monotonic_time ();
  g_main_loop_quit (waiter->loop);
}

static void
entry_changed_cb (FlDirectoryModel *model,
                  FlEntry          *entry,
                  FlChange          change,
                  Waiter           *waiter)
{
  if (change == FL_CHANGE_UPDATED || change == FL_CHANGE_CREATED)
    {
      waiter->done_at = g_get_monotonic_time ();
      g_main_loop_quit (waiter->loop);
    }
}

static gboolean
timeout_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

/* Lets the main loop run for @ms: events arrive as they would on a quiet host, one at a time,
 * not as a burst (bursts are coalesced on purpose; see FL_MODEL_COALESCE_MS in
 * libfl/model/fl-model-monitor-private.h). */
static gboolean
set_flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
pause_ms (GMainLoop *loop,
          guint      ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, set_flag_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
print_latency (const char *name,
               GArray     *samples)
{
  g_array_sort (samples, compare_gint64);
  if (samples->len == 0)
    return;
  printf ("%s_median %.3f ms\n", name,
          g_array_index (samples, gint64, samples->len / 2) / 1000.0);
  printf ("%s_p95 %.3f ms\n", name,
          g_array_index (samples, gint64, samples->len * 95 / 100) / 1000.0);
  printf ("%s_max %.3f ms\n", name,
          g_array_index (samples, gint64, samples->len - 1) / 1000.0);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("- FlDirectoryModel benchmark");
  g_autoptr(GError) error = NULL;
  g_autoptr(FlDirectoryModel) model = NULL;
  g_autoptr(GArray) create_lat = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) update_lat = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) delete_lat = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *dir = NULL;
  int n_locks = 100000;
  int n_events = 200;
  char *dir_arg = NULL;
  gboolean keep = FALSE;
  GOptionEntry entries[] = {
    { "locks", 'n', 0, G_OPTION_ARG_INT, &n_locks, "Number of lock files (100000)", "N" },
    { "events", 'e', 0, G_OPTION_ARG_INT, &n_events, "File events to time (200)", "N" },
    { "dir", 'd', 0, G_OPTION_ARG_FILENAME, &dir_arg, "Where to make the directory", "DIR" },
    { "keep", 'k', 0, G_OPTION_ARG_NONE, &keep, "Keep the directory", NULL },
    { NULL }
  };
  Waiter waiter = { NULL, 0 };
  long rss_before, rss_after;
  gint64 start, load_us, rescan_us;
  double cpu_start, load_cpu;
  int dead[64];
  int live = getpid ();

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  dir = dir_arg != NULL ? g_strdup (dir_arg) : g_dir_make_tmp ("fl-model-bench-XXXXXX", &error);
  if (dir == NULL || g_mkdir_with_parents (dir, 0755) != 0)
    g_error ("cannot make the directory: %s", error != NULL ? error->message : g_strerror (errno));

  for (guint i = 0; i < G_N_ELEMENTS (dead); i++)
    dead[i] = dead_pid ();
  start = g_get_monotonic_time ();
  for (int i = 0; i < n_locks; i++)
    {
      char name[64];
      g_autofree char *path = NULL;

      g_snprintf (name, sizeof name, "target-%07d.lock", i);
      path = g_build_filename (dir, name, NULL);
      write_lock (path, i % 3 == 0 ? live : dead[i % G_N_ELEMENTS (dead)]);
    }
  printf ("# made %d lock files in %s in %.2f s\n", n_locks, dir,
          (g_get_monotonic_time () - start) / 1e6);

  /* Warm the page cache as an inspector opening a busy directory would find it. */
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    while (d != NULL && g_dir_read_name (d) != NULL)
      ;
  }

  rss_before = status_kb ("VmRSS:");
  model = fl_directory_model_new (NULL);
  start = g_get_monotonic_time ();
  cpu_start = cpu_seconds ();
  if (!fl_directory_model_add_directory (model, dir, FALSE, &error))
    g_error ("%s", error->message);
  load_us = g_get_monotonic_time () - start;
  load_cpu = cpu_seconds () - cpu_start;
  rss_after = status_kb ("VmRSS:");

  printf ("locks %u\n", g_list_model_get_n_items (G_LIST_MODEL (model)));
  printf ("load_time %.3f s\n", load_us / 1e6);
  printf ("load_rate %.0f locks/s\n", n_locks / (load_us / 1e6));
  /* CPU time over all scan threads: what the load costs, whatever else runs on the machine. */
  printf ("load_cpu %.3f s\n", load_cpu);
  printf ("load_threads %u\n", MIN (g_get_num_processors (), 4));
  printf ("system_load %.2f\n", load_average ());
  printf ("model_rss %.1f MB\n", (rss_after - rss_before) / 1024.0);
  printf ("process_rss %.1f MB\n", rss_after / 1024.0);
  printf ("bytes_per_lock %.0f B\n", (rss_after - rss_before) * 1024.0 / MAX (n_locks, 1));

  waiter.loop = g_main_loop_new (NULL, FALSE);
  g_signal_connect (model, "items-changed", G_CALLBACK (items_changed_cb), &waiter);
  g_signal_connect (model, "entry-changed", G_CALLBACK (entry_changed_cb), &waiter);

  for (int i = 0; i < n_events; i++)
    {
      char name[64];
      g_autofree char *path = NULL;
      gint64 t0;
      guint id;

      /* Spread over the directory: the insert position matters for a sorted array. */
      g_snprintf (name, sizeof name, "target-%07d.new.lock",
                  (int) ((gint64) i * n_locks / MAX (n_events, 1)));
      path = g_build_filename (dir, name, NULL);

      pause_ms (waiter.loop, 20);
      t0 = g_get_monotonic_time ();
      write_lock (path, live);
      id = g_timeout_add (5000, timeout_cb, waiter.loop);
      g_main_loop_run (waiter.loop);
      g_source_remove (id);
      g_array_append_val (create_lat, (gint64) { waiter.done_at - t0 });

      pause_ms (waiter.loop, 20);
      t0 = g_get_monotonic_time ();
      write_lock (path, dead[0]);
      id = g_timeout_add (5000, timeout_cb, waiter.loop);
      g_main_loop_run (waiter.loop);
      g_source_remove (id);
      g_array_append_val (update_lat, (gint64) { waiter.done_at - t0 });

      pause_ms (waiter.loop, 20);
      t0 = g_get_monotonic_time ();
      g_unlink (path);
      id = g_timeout_add (5000, timeout_cb, waiter.loop);
      g_main_loop_run (waiter.loop);
      g_source_remove (id);
      g_array_append_val (delete_lat, (gint64) { waiter.done_at - t0 });
    }
  print_latency ("event_to_row_create", create_lat);
  print_latency ("event_to_row_update", update_lat);
  print_latency ("event_to_row_delete", delete_lat);

  start = g_get_monotonic_time ();
  fl_directory_model_rescan (model);
  rescan_us = g_get_monotonic_time () - start;
  printf ("rescan_time %.3f s\n", rescan_us / 1e6);
  printf ("peak_rss %.1f MB\n", status_kb ("VmHWM:") / 1024.0);

  g_signal_handlers_disconnect_by_data (model, &waiter);
  g_clear_object (&model);
  g_main_loop_unref (waiter.loop);

  if (!keep)
    {
      g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;

      while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_unlink (path);
        }
      g_rmdir (dir);
    }
  return 0;
}
