/* test-antivirus.c: an "antivirus" opens the lock, temp and graveyard files while P libfl
 * processes x N critical sections run, some killed: no error reaches a caller, nothing is lost
 *
 * Scanners and indexers on Windows open every new file for a few ms without FILE_SHARE_DELETE;
 * meanwhile a rename or delete of it fails with ERROR_SHARING_VIOLATION (32) or
 * ERROR_ACCESS_DENIED (5), and the platform layer retries (docs/windows.md). The scanner here is
 * this program as the worker "antivirus": it watches the lock directory and opens what appears there with
 * g_open(), which on Windows is the CRT's _wopen and shares read and write only, exactly a
 * scanner's open; on Linux it is a plain open(), which stops nothing, so there the test checks
 * that readers do no harm. Portable: libfl and GLib only, as test-exclusion.c, whose workers
 * and duplicate check these are.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fl-test-dir.h"
#include "fl-test-records.h"
#include "fl-test-worker.h"

#define SECTIONS 150
#define WORKERS  6
#define KILLS    2

/* The antivirus */

typedef struct
{
  char      *dir;
  gint       stop;       /* atomic: stdin reached its end */
  GMainLoop *loop;
  guint      opened[3];  /* lock, temp, graveyard */
  guint      missed;     /* gone before we could open it */
  guint      refused;    /* open failed otherwise: on Windows, a libfl handle that has DELETE
                          * access already open refuses an opener that does not share delete */
  guint      unreadable;
} Scanner;

static const char *const kinds[] = { "lock", "temp", "graveyard" };

static int
kind_of (const char *name)
{
  if (g_str_has_suffix (name, ".tmp"))
    return 1;
  if (strstr (name, ".gy.") != NULL)
    return 2;
  return 0;
}

/* How long the scanner keeps a file open: 1 to 8 ms, or up to FL_TEST_AV_HOLD_MS (an
 * experiment: past libfl's retry budget of about 1.5 s, errors must reach callers). */
static gulong
hold_us (void)
{
  const char *s = g_getenv ("FL_TEST_AV_HOLD_MS");
  gint64 max_ms = s != NULL ? g_ascii_strtoll (s, NULL, 10) : 8;

  return (gulong) g_random_int_range (1000, (gint32) CLAMP (max_ms, 2, 60000) * 1000);
}

/* Opens @name the way a scanner does, and keeps it open a few ms: the point is to overlap a
 * libfl link, rename or delete, not to wait for anything. */
static void
scan (Scanner    *self,
      const char *name)
{
  g_autofree char *path = g_build_filename (self->dir, name, NULL);
  int fd = g_open (path, O_RDONLY, 0);
  char byte;

  if (fd < 0)
    {
      if (errno == ENOENT)
        self->missed++;
      else
        self->refused++;
      return;
    }
  self->opened[kind_of (name)]++;
  /* A scanner reads; a failure here would be a lock on byte 0 (Windows locks are mandatory). */
  if (read (fd, &byte, 1) < 0)
    self->unreadable++;
  g_usleep (hold_us ());
  close (fd);
}

static void
changed_cb (GFileMonitor      *monitor,
            GFile             *file,
            GFile             *other,
            GFileMonitorEvent  event,
            gpointer           user_data)
{
  Scanner *self = user_data;
  g_autofree char *name = NULL;

  /* A rename's new name is @other: a graveyard, or a lock put back. */
  if (event == G_FILE_MONITOR_EVENT_RENAMED || event == G_FILE_MONITOR_EVENT_MOVED_IN)
    name = g_file_get_basename (other != NULL ? other : file);
  else if (event == G_FILE_MONITOR_EVENT_CREATED || event == G_FILE_MONITOR_EVENT_CHANGED)
    name = g_file_get_basename (file);
  if (name != NULL && g_random_boolean ())
    scan (self, name);
}

/* Between events, a sweep of the directory at random: locks that are only rewritten in place
 * and graveyards the monitor may have coalesced. */
static gboolean
sweep_cb (gpointer user_data)
{
  Scanner *self = user_data;
  GDir *dir;
  const char *name;

  if (g_atomic_int_get (&self->stop))
    {
      g_main_loop_quit (self->loop);
      return G_SOURCE_REMOVE;
    }
  dir = g_dir_open (self->dir, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_random_int_range (0, 3) == 0)
      scan (self, name);
  if (dir != NULL)
    g_dir_close (dir);
  return G_SOURCE_CONTINUE;
}

/* The scanner stops when its stdin ends: when the test closes it, or when the test dies (a
 * failed assertion must not leave a scanner running). A thread, because GLib cannot poll a pipe
 * on Windows. */
static gpointer
stdin_thread (gpointer user_data)
{
  Scanner *self = user_data;
  char buf[64];

  while (read (0, buf, sizeof buf) > 0)
    ;
  g_atomic_int_set (&self->stop, 1);
  return NULL;
}

static int
antivirus_main (const char *lock_dir)
{
  g_autoptr(GFile) dir = g_file_new_for_path (lock_dir);
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileMonitor) monitor = NULL;
  Scanner self = { (char *) lock_dir, 0, NULL, { 0 }, 0, 0, 0 };

  monitor = g_file_monitor_directory (dir, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (monitor == NULL)
    {
      fprintf (stderr, "antivirus: %s\n", error->message);
      return 1;
    }
  g_signal_connect (monitor, "changed", G_CALLBACK (changed_cb), &self);
  self.loop = g_main_loop_new (NULL, FALSE);
  g_timeout_add (2, sweep_cb, &self);
  g_thread_unref (g_thread_new ("stdin", stdin_thread, &self));
  printf ("ready\n");
  fflush (stdout);
  g_main_loop_run (self.loop);
  g_main_loop_unref (self.loop);
  printf ("%s=%u %s=%u %s=%u missed=%u refused=%u unreadable=%u\n", kinds[0], self.opened[0],
          kinds[1], self.opened[1], kinds[2], self.opened[2], self.missed, self.refused,
          self.unreadable);
  return 0;
}

/* The test */

/* FlTestDir's directory, with the locks in a folder of their own (the scanner watches it) and
 * the counter and records beside it. */
typedef struct
{
  FlTestDir  base;
  char      *dir;
  char      *lock_dir;
  char      *target;
  char      *counter;
} Fixture;

static void
fixture_set_up (Fixture       *fx,
                gconstpointer  data)
{
  fl_test_dir_setup (&fx->base, data);
  fx->dir = fx->base.dir;
  fx->lock_dir = g_build_filename (fx->dir, "locks", NULL);
  g_assert_cmpint (g_mkdir (fx->lock_dir, 0700), ==, 0);
  fx->target = g_build_filename (fx->lock_dir, "shared", NULL);
  fx->counter = g_build_filename (fx->dir, "counter", NULL);
  g_assert_true (g_file_set_contents (fx->counter, "0", -1, NULL));
}

static void
fixture_tear_down (Fixture       *fx,
                   gconstpointer  data)
{
  fl_test_dir_teardown (&fx->base, data);
  g_free (fx->lock_dir);
  g_free (fx->target);
  g_free (fx->counter);
}

/* Starts the scanner and waits for its "ready": its monitor is in place before any worker.
 * Its report comes later on @in. */
static GSubprocess *
spawn_antivirus (Fixture           *fx,
                 GDataInputStream **in)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  GSubprocess *av;

  av = fl_test_worker_spawn (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                             "antivirus", fx->lock_dir, NULL);
  *in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (av));
  /* Blocking, but bounded: the scanner prints this at once or exits (end of stream). */
  line = g_data_input_stream_read_line_utf8 (*in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "ready");
  return av;
}

static void
test_antivirus (Fixture       *fx,
                gconstpointer  data)
{
  GSubprocess *workers[WORKERS];
  gboolean killed[WORKERS] = { FALSE };
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *values = g_new0 (gint64, WORKERS * SECTIONS);
  g_autofree char *sections = g_strdup_printf ("%d", SECTIONS);
  g_autofree char *report = NULL;
  g_autoptr(GSubprocess) av = NULL;
  g_autoptr(GDataInputStream) av_out = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  gint64 deadline = start + fl_test_scaled_ms (240000) * G_TIME_SPAN_MILLISECOND;
  gint64 final_value;
  guint n_values = 0, n_killed = 0, opened[3] = { 0 }, missed = 0, refused = 0, unreadable = 0;

  av = spawn_antivirus (fx, &av_out);
  for (guint i = 0; i < WORKERS; i++)
    {
      g_autofree char *record = g_strdup_printf ("%s%crecord.%u", fx->dir, G_DIR_SEPARATOR, i);

      workers[i] = fl_test_worker_spawn (G_SUBPROCESS_FLAGS_NONE, "section", fx->target,
                                         fx->counter, record, sections, NULL);
    }

  for (guint k = 0; k < KILLS; k++)
    {
      gint64 at = (gint64) WORKERS * SECTIONS * (k + 1) / (KILLS + 1);
      guint victim = (guint) g_test_rand_int_range (0, WORKERS);

      while (killed[victim])
        victim = (victim + 1) % WORKERS;
      if (!fl_test_records_wait_counter (fx->counter, at, deadline))
        g_error ("the counter never reached %" G_GINT64_FORMAT ": at %" G_GINT64_FORMAT, at,
                 fl_test_records_read_counter (fx->counter));
      g_subprocess_force_exit (workers[victim]);
      killed[victim] = TRUE;
      n_killed++;
    }

  for (guint i = 0; i < WORKERS; i++)
    {
      g_assert_true (g_subprocess_wait (workers[i], NULL, &error));
      g_assert_no_error (error);
      if (!killed[i])
        {
          g_assert_true (g_subprocess_get_if_exited (workers[i]));
          if (g_subprocess_get_exit_status (workers[i]) != 0)
            g_error ("worker %u exited with %d: an error reached the caller (its stderr says "
                     "which)", i, g_subprocess_get_exit_status (workers[i]));
        }
      g_object_unref (workers[i]);
    }

  g_assert_true (g_output_stream_close (g_subprocess_get_stdin_pipe (av), NULL, &error));
  g_assert_no_error (error);
  /* Bounded: the scanner sees the end of stdin within its next sweep, reports and exits. */
  report = g_data_input_stream_read_line_utf8 (av_out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (report);
  g_assert_true (g_subprocess_wait_check (av, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("antivirus: %s", report);
  g_assert_cmpint (sscanf (report, "lock=%u temp=%u graveyard=%u missed=%u refused=%u "
                           "unreadable=%u", &opened[0], &opened[1], &opened[2], &missed,
                           &refused, &unreadable), ==, 6);
  g_assert_cmpuint (unreadable, ==, 0);

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
          if (!g_hash_table_add (seen, v))
            g_error ("the value %" G_GINT64_FORMAT " was written twice: two holders at once", *v);
        }
    }

  final_value = fl_test_records_read_counter (fx->counter);
  g_test_message ("%u workers (%u killed) x %d sections under the antivirus: counter %"
                  G_GINT64_FORMAT ", %u recorded, %.1f s", WORKERS, n_killed, SECTIONS,
                  final_value, n_values, (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpint (final_value, >=, (gint64) (WORKERS - n_killed) * SECTIONS);
  g_assert_cmpint (final_value - (gint64) n_values, <=, n_killed);
  g_assert_cmpint (final_value - (gint64) n_values, >=, 0);
  /* The scanner really was in the way: the lock and (on Windows) the temps were opened under
   * it. Linux's temps are O_TMPFILE, nameless until linked as the lock. */
  g_assert_cmpuint (opened[0], >, 0);
#ifdef G_OS_WIN32
  g_assert_cmpuint (opened[1], >, 0);
#endif

  /* What a killed holder left is stale, and taken over at once. */
  {
    g_autoptr(FlLock) lock = fl_lock_try_acquire (fx->target, NULL, &error);

    g_assert_no_error (error);
    g_assert_true (fl_lock_is_held (lock));
    g_assert_true (fl_lock_release (lock, &error));
    g_assert_no_error (error);
  }
}

/* The premise: a file the scanner has open cannot be renamed on Windows (ERROR_SHARING_VIOLATION,
 * EACCES from the CRT), and can on Linux. Without it the test above would prove nothing. */
static void
test_scanner_blocks_rename (Fixture       *fx,
                            gconstpointer  data)
{
  g_autofree char *path = g_build_filename (fx->lock_dir, "probe", NULL);
  g_autofree char *moved = g_build_filename (fx->lock_dir, "probe.moved", NULL);
  int fd;
  int ret;

  g_assert_true (g_file_set_contents (path, "1", -1, NULL));
  fd = g_open (path, O_RDONLY, 0);
  g_assert_cmpint (fd, >=, 0);
  ret = g_rename (path, moved);
#ifdef G_OS_WIN32
  g_assert_cmpint (ret, <, 0);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_cmpint (g_remove (path), <, 0);
#else
  g_assert_cmpint (ret, ==, 0);
#endif
  close (fd);
#ifdef G_OS_WIN32
  g_assert_cmpint (g_rename (path, moved), ==, 0);
#endif
  g_assert_true (g_file_test (moved, G_FILE_TEST_EXISTS));
}

static int
section_main (char **args)
{
  return fl_test_records_worker (args[0], args[1], args[2], (guint) atoi (args[3]), FALSE);
}

static int
antivirus_role (char **args)
{
  return antivirus_main (args[0]);
}

int
main (int    argc,
      char **argv)
{
  static const FlTestWorkerRole roles[] = {
    { "section", 4, section_main },
    { "antivirus", 1, antivirus_role },
    { NULL }
  };
  int status;

  if (fl_test_worker_main (argc, argv, roles, &status))
    return status;
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/libfl/antivirus/scanner-blocks-rename", Fixture, NULL, fixture_set_up,
              test_scanner_blocks_rename, fixture_tear_down);
  g_test_add ("/libfl/antivirus/p6x150-with-kills", Fixture, NULL, fixture_set_up,
              test_antivirus, fixture_tear_down);
  return g_test_run ();
}
