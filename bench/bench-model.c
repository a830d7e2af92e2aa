/* bench-model.c: section 6, the inspector's directory model on 10,000 and 100,000 lock files
 *
 * A directory is filled with lock files in the original format (PID only: no identity, no
 * kernel lock, as a fleet of Node services would leave them), 90 % naming a live process and
 * 10 % a dead one. A fresh process then builds an FlDirectoryModel on it:
 * - load: from fl_directory_model_new() until the model has stopped loading and shows every file;
 * - peak RSS: the process's VmHWM, the model and GLib included (and VmRSS before, for scale);
 * - event-to-model: another process changes the directory at a fixed rate, alternately creating
 *   a new lock and removing an old one, stamping each change just before its syscall; the model
 *   process stamps the entry-changed signal that reports it (CREATED or RELEASED).
 * Changes never reported by the end of the burst plus 2 s are counted as missed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libfl/fl.h>

#include "bench.h"

#define LOAD_TIMEOUT_US (120 * G_USEC_PER_SEC)
#define GRACE_MS 2000
#define STEP_TIMEOUT_MS 300000

typedef struct
{
  guint64 load_ns;
  double  rss_before;
  double  rss_peak;
  guint   n_changes;
  guint   seen;
  guint64 change_at[];     /* then latency[n_changes] */
} Shared;

static double *
shared_latency (Shared *shared)
{
  return (double *) &shared->change_at[shared->n_changes];
}

static void
write_lock_file (int         dirfd,
                 const char *name,
                 int         pid)
{
  char buf[24];
  int len = g_snprintf (buf, sizeof buf, "%d", pid);
  int fd = openat (dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

  if (fd < 0 || write (fd, buf, (size_t) len) != len)
    bench_die ("%s: %s", name, g_strerror (errno));
  close (fd);
}

static int
dead_pid (void)
{
  pid_t pid = bench_fork ();

  if (pid == 0)
    _exit (0);
  waitpid (pid, NULL, 0);
  return (int) pid;
}

/* VmRSS or VmHWM of this process, in bytes. */
static double
status_bytes (const char *field)
{
  g_autofree char *text = NULL;
  const char *line;
  gsize len = strlen (field);

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return 0;
  for (line = text; line != NULL && *line != '\0'; line = strchr (line, '\n'))
    {
      if (*line == '\n')
        line++;
      if (strncmp (line, field, len) == 0 && line[len] == ':')
        return g_ascii_strtod (line + len + 1, NULL) * 1024;
    }
  return 0;
}

static G_GNUC_NORETURN void
changer (int         dirfd,
         int         start_fd,
         guint       n_changes,
         guint       rate,
         int         live_pid,
         Shared     *shared)
{
  guint64 start;

  bench_wait_byte (start_fd, STEP_TIMEOUT_MS, "model: start of the burst");
  start = bench_now_ns ();
  for (guint i = 0; i < n_changes; i++)
    {
      /* An absolute schedule: a late change does not push the others back. */
      guint64 at = start + (guint64) i * G_GUINT64_CONSTANT (1000000000) / rate;
      struct timespec when = {
        .tv_sec = (time_t) (at / G_GUINT64_CONSTANT (1000000000)),
        .tv_nsec = (long) (at % G_GUINT64_CONSTANT (1000000000)),
      };
      char name[32];

      while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &when, NULL) == EINTR)
        ;
      shared->change_at[i] = bench_now_ns ();
      if (i % 2 == 0)
        {
          g_snprintf (name, sizeof name, "n%06u.lock", i / 2);
          write_lock_file (dirfd, name, live_pid);
        }
      else
        {
          g_snprintf (name, sizeof name, "t%06u.lock", i / 2);
          if (unlinkat (dirfd, name, 0) < 0)
            bench_die ("%s: %s", name, g_strerror (errno));
        }
    }
  _exit (0);
}

/* The change a reported path stands for: n<k>.lock is change 2k, t<k>.lock is 2k + 1. */
static int
change_index (const char *path,
              FlChange    change)
{
  const char *name = strrchr (path, '/');
  guint k;
  int end = 0;

  name = name != NULL ? name + 1 : path;
  if (sscanf (name + 1, "%6u.lock%n", &k, &end) != 1 || name[end + 1] != '\0')
    return -1;
  if (name[0] == 'n' && change == FL_CHANGE_CREATED)
    return (int) (2 * k);
  if (name[0] == 't' && change == FL_CHANGE_RELEASED)
    return (int) (2 * k + 1);
  return -1;
}

static void
entry_changed_cb (FlDirectoryModel *model,
                  FlEntry          *entry,
                  FlChange          change,
                  gpointer          user_data)
{
  Shared *shared = user_data;
  guint64 now = bench_now_ns ();
  int i = change_index (fl_entry_get_path (entry), change);
  double *latency = shared_latency (shared);

  if (i < 0 || (guint) i >= shared->n_changes || shared->change_at[i] == 0 || latency[i] > 0)
    return;
  latency[i] = (double) (now - shared->change_at[i]);
  shared->seen++;
}

static gboolean
still_loading (FlDirectoryModel *model,
               guint             n_files)
{
  gboolean loading = FALSE;

  if (g_object_class_find_property (G_OBJECT_GET_CLASS (model), "loading") != NULL)
    g_object_get (model, "loading", &loading, NULL);
  return loading || g_list_model_get_n_items (G_LIST_MODEL (model)) < n_files;
}

static gboolean
tick_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

static G_GNUC_NORETURN void
model_process (const char *dir,
               guint       n_files,
               int         start_fd,
               guint       burst_ms,
               Shared     *shared)
{
  g_autoptr(GError) error = NULL;
  FlDirectoryModel *model;
  guint64 start;
  gint64 deadline;
  guint tick;

  shared->rss_before = status_bytes ("VmRSS");
  start = bench_now_ns ();
  model = fl_directory_model_new (NULL);
  if (!fl_directory_model_add_directory (model, dir, FALSE, &error))
    bench_die ("model: %s", error->message);
  deadline = g_get_monotonic_time () + LOAD_TIMEOUT_US;
  while (still_loading (model, n_files))
    {
      if (g_get_monotonic_time () > deadline)
        bench_die ("model: %u of %u files after %d s",
                   g_list_model_get_n_items (G_LIST_MODEL (model)), n_files,
                   (int) (LOAD_TIMEOUT_US / G_USEC_PER_SEC));
      g_main_context_iteration (NULL, TRUE);
    }
  shared->load_ns = bench_now_ns () - start;

  if (g_signal_lookup ("entry-changed", FL_TYPE_DIRECTORY_MODEL) == 0)
    bench_die ("model: FlDirectoryModel has no entry-changed signal");
  g_signal_connect (model, "entry-changed", G_CALLBACK (entry_changed_cb), shared);

  bench_send_byte (start_fd);
  deadline = g_get_monotonic_time () + (gint64) (burst_ms + GRACE_MS) * 1000;
  /* A ticking source, so the loop sees the deadline even if no event comes. */
  tick = g_timeout_add (50, tick_cb, NULL);
  while (shared->seen < shared->n_changes && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
  shared->rss_peak = status_bytes ("VmHWM");
  /* No unref: 100,000 entries finalized would only time the exit. */
  _exit (0);
}

static void
populate (const char *dir,
          guint       n_files,
          int         live,
          int         dead)
{
  int dirfd;

  if (mkdir (dir, 0700) < 0)
    bench_die ("%s: %s", dir, g_strerror (errno));
  dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    bench_die ("%s: %s", dir, g_strerror (errno));
  for (guint i = 0; i < n_files; i++)
    {
      char name[32];

      g_snprintf (name, sizeof name, "t%06u.lock", i);
      write_lock_file (dirfd, name, i % 10 == 9 ? dead : live);
    }
  close (dirfd);
}

static void
run_round (const BenchConfig *config,
           guint              n_files,
           Shared            *shared)
{
  g_autofree char *dir = g_strdup_printf ("%s/model-%u", config->tmpfs_dir, n_files);
  guint n_changes = shared->n_changes;
  int start[2];
  pid_t changer_pid, model_pid;
  int dirfd;

  memset (shared->change_at, 0, n_changes * (sizeof (guint64) + sizeof (double)));
  shared->seen = 0;
  populate (dir, n_files, (int) getpid (), dead_pid ());
  dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    bench_die ("%s: %s", dir, g_strerror (errno));

  bench_pipe (start);
  changer_pid = bench_fork ();
  if (changer_pid == 0)
    changer (dirfd, start[0], n_changes, config->model_burst_rate, (int) getppid (), shared);
  model_pid = bench_fork ();
  if (model_pid == 0)
    model_process (dir, n_files, start[1], config->model_burst_ms, shared);
  close (start[0]);
  close (start[1]);

  bench_wait_child (model_pid, STEP_TIMEOUT_MS, "model");
  bench_wait_child (changer_pid, STEP_TIMEOUT_MS, "model: changer");
  close (dirfd);
  bench_scratch_clean (dir);
  if (rmdir (dir) < 0)
    bench_die ("%s: %s", dir, g_strerror (errno));
}

/* fl-bench --probe-model N: one load of N files, for strace and callgrind
 * (build-aux/bench --profile collects only inside fl_directory_model_add_directory). */
int
bench_model_probe_main (const char *parent,
                        guint       n_files)
{
  g_autofree char *tmpl = g_build_filename (parent, "fl-bench-model-XXXXXX", NULL);
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  FlDirectoryModel *model;
  guint64 start;

  if (g_mkdtemp_full (tmpl, 0700) == NULL)
    bench_die ("%s: %s", tmpl, g_strerror (errno));
  dir = g_build_filename (tmpl, "files", NULL);
  populate (dir, n_files, (int) getpid (), dead_pid ());

  start = bench_now_ns ();
  model = fl_directory_model_new (NULL);
  if (!fl_directory_model_add_directory (model, dir, FALSE, &error))
    bench_die ("model: %s", error->message);
  printf ("model: %u files loaded in %.1f ms, %u items\n", n_files,
          (double) (bench_now_ns () - start) / 1e6,
          g_list_model_get_n_items (G_LIST_MODEL (model)));
  g_object_unref (model);

  bench_scratch_clean (dir);
  rmdir (dir);
  rmdir (tmpl);
  return 0;
}

void
bench_run_model (const BenchConfig *config,
                 BenchReport       *report)
{
  guint rounds = config->model_rounds;
  guint n_changes = config->model_burst_ms * config->model_burst_rate / 1000;
  gsize size = sizeof (Shared) + n_changes * (sizeof (guint64) + sizeof (double));
  Shared *shared = bench_shared_alloc (size);
  g_autofree char *legend = NULL;

  shared->n_changes = n_changes;
  legend = g_strdup_printf ("tmpfs; N lock files in one directory, original format, 90 %% "
                            "live; load and RSS: median of %u rounds, ± half their min-max "
                            "range; a burst of %u changes/s for %.1f s per round",
                            rounds, config->model_burst_rate, config->model_burst_ms / 1000.0);
  bench_report_section (report, "6. The inspector's directory model (FlDirectoryModel), libfl "
                        "only", legend);
  bench_report_line (report, "%-10s%-17s%-17s%-17s%-15s%-12s%-12s%s", "files", "load",
                     "RSS before", "peak RSS", "event p50", "p90", "p99", "changes seen");

  for (guint s = 0; s < G_N_ELEMENTS (config->model_sizes); s++)
    {
      guint n_files = config->model_sizes[s];
      g_autofree double *load = g_new0 (double, rounds);
      g_autofree double *rss_before = g_new0 (double, rounds);
      g_autofree double *rss_peak = g_new0 (double, rounds);
      g_autoptr(GArray) latencies = g_array_new (FALSE, FALSE, sizeof (double));
      BenchCell load_cell, before_cell, peak_cell;
      g_autofree char *load_text = NULL, *before_text = NULL, *peak_text = NULL;
      g_autofree char *p50 = NULL, *p90 = NULL, *p99 = NULL;
      guint seen = 0;
      double p50_ns;

      for (guint r = 0; r < rounds; r++)
        {
          bench_progress ("model: %u files, round %u of %u", n_files, r + 1, rounds);
          run_round (config, n_files, shared);
          load[r] = (double) shared->load_ns;
          rss_before[r] = shared->rss_before;
          rss_peak[r] = shared->rss_peak;
          seen += shared->seen;
          for (guint i = 0; i < n_changes; i++)
            if (shared_latency (shared)[i] > 0)
              g_array_append_val (latencies, shared_latency (shared)[i]);
        }

      bench_cell_from_rounds (&load_cell, load, rounds);
      bench_cell_from_rounds (&before_cell, rss_before, rounds);
      bench_cell_from_rounds (&peak_cell, rss_peak, rounds);
      load_text = bench_format_cell (&load_cell, BENCH_UNIT_TIME);
      before_text = bench_format_cell (&before_cell, BENCH_UNIT_BYTES);
      peak_text = bench_format_cell (&peak_cell, BENCH_UNIT_BYTES);
      p50_ns = bench_percentile ((double *) latencies->data, latencies->len, 50);
      p50 = bench_format_value (p50_ns, BENCH_UNIT_TIME);
      p90 = bench_format_value (bench_percentile ((double *) latencies->data, latencies->len, 90),
                                BENCH_UNIT_TIME);
      p99 = bench_format_value (bench_percentile ((double *) latencies->data, latencies->len, 99),
                                BENCH_UNIT_TIME);
      {
        g_autofree char *c1 = bench_pad (load_text, 17);
        g_autofree char *c2 = bench_pad (before_text, 17);
        g_autofree char *c3 = bench_pad (peak_text, 17);
        g_autofree char *c4 = bench_pad (p50, 15);
        g_autofree char *c5 = bench_pad (p90, 12);
        g_autofree char *c6 = bench_pad (p99, 12);

        bench_report_line (report, "%-10u%s%s%s%s%s%s%u / %u", n_files, c1, c2, c3, c4, c5, c6,
                           seen, n_changes * rounds);
      }

      if (s == G_N_ELEMENTS (config->model_sizes) - 1)
        {
          g_autofree char *what_load = g_strdup_printf ("model, %u files: load", n_files);
          g_autofree char *what_rss = g_strdup_printf ("model, %u files: peak RSS", n_files);
          g_autofree char *what_p50 = g_strdup_printf ("model, %u files: event-to-model p50",
                                                       n_files);

          bench_report_target (report, what_load, load_cell.median, 1e9, BENCH_UNIT_TIME);
          bench_report_target (report, what_rss, peak_cell.median, 100e6, BENCH_UNIT_BYTES);
          bench_report_target (report, what_p50, p50_ns, 20e6, BENCH_UNIT_TIME);
        }
    }
  bench_shared_free (shared, size);
}
