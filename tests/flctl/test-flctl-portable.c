/* test-flctl-portable.c: flctl status, list, run and reclaim, on every platform flctl is built for
 *
 * Portable on purpose, as tests/libfl/test-exclusion.c is: flctl (FLCTL names it) is run with
 * GSubprocess, whose force-exit is SIGKILL on Linux and TerminateProcess() on Windows, and the
 * COMMAND that `flctl run` runs is this program itself (--child-*), so nothing here needs a
 * shell, a helper on a foreign path, or JSON-GLib. Under wine it proves the Windows flctl.exe.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static const char *self_path;

/* The child that `flctl run` runs */

/* 0 when TARGET's lock is held now (by the flctl that runs us), 3 when not (no lock file
 * included), 4 on error. */
static int
child_check_held (const char *target)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snapshot = fl_snapshot_new_for_target (target, NULL, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return 3;
  if (snapshot == NULL)
    {
      g_printerr ("child: %s\n", error->message);
      return 4;
    }
  if (fl_snapshot_get_stale (snapshot))
    return 3;
  if (fl_snapshot_get_kernel_lock (snapshot) == FL_KERNEL_LOCK_HELD
      || fl_snapshot_get_liveness (snapshot) == FL_LIVENESS_ALIVE)
    return 0;
  return 3;
}

/* Running flctl */

static gint64
scaled_us (gint64 seconds)
{
  const char *s = g_getenv ("FL_TEST_TIME_SCALE");
  double scale = s != NULL ? g_ascii_strtod (s, NULL) : 1.0;

  return (gint64) (seconds * G_USEC_PER_SEC * (scale >= 1.0 ? scale : 1.0));
}

static const char *
flctl_path (void)
{
  const char *path = g_getenv ("FLCTL");

  if (path == NULL)
    g_error ("FLCTL must name the flctl binary (meson test sets it)");
  return path;
}

/* Runs flctl with ARGS; returns its exit status, its stdout in *OUT (may be NULL). */
static int
run_flctl (char **out,
           const char *first_arg,
           ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *stdout_text = NULL;
  g_autofree char *stderr_text = NULL;
  va_list args;

  g_ptr_array_add (argv, (char *) flctl_path ());
  va_start (args, first_arg);
  for (const char *arg = first_arg; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE
                               | G_SUBPROCESS_FLAGS_STDIN_PIPE, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, &stdout_text,
                                                &stderr_text, &error));
  g_assert_no_error (error);
  if (stderr_text != NULL && stderr_text[0] != '\0')
    g_test_message ("flctl %s: stderr: %s", first_arg, stderr_text);
  if (out != NULL)
    *out = g_steal_pointer (&stdout_text);
  g_assert_true (g_subprocess_get_if_exited (process));
  return g_subprocess_get_exit_status (process);
}

/* The word after "state:" in `flctl status TARGET`'s record. */
static char *
status_state (const char *target)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  int status = run_flctl (&out, "status", target, NULL);

  g_assert_cmpint (status, ==, 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *field = strstr (lines[i], "state:");

      if (field != NULL)
        return g_strstrip (g_strdup (field + strlen ("state:")));
    }
  g_error ("no state in: %s", out);
}

/* `flctl hold TARGET`, returned once it says the lock is its own. */
static GSubprocess *
hold (const char *target)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autofree char *line = NULL;

  holder = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, flctl_path (), "hold",
                             target, NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (holder));
  /* Blocks until flctl prints or exits (then NULL): its own exit ends the wait. */
  line = g_data_input_stream_read_line_utf8 (lines, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "held "));
  return g_steal_pointer (&holder);
}

/* Kills HOLDER outright, then waits, with a deadline, for flctl to call TARGET's lock stale. */
static void
kill_holder (GSubprocess *holder,
             const char  *target)
{
  g_autoptr(GError) error = NULL;
  gint64 deadline = g_get_monotonic_time () + scaled_us (30);

  g_subprocess_force_exit (holder);
  g_assert_true (g_subprocess_wait (holder, NULL, &error));
  g_assert_no_error (error);
  for (;;)
    {
      g_autofree char *state = status_state (target);

      if (g_str_equal (state, "stale"))
        break;
      g_assert_cmpstr (state, ==, "held");
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (10000);  /* polling a condition, with a deadline: not synchronisation by sleep */
    }
}

/* A line of STREAM, or NULL once DEADLINE_US (monotonic) has passed or the stream ended. */
typedef struct
{
  gboolean done;
  char    *line;
} LineRead;

static void
line_read_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  LineRead *read = user_data;

  read->line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result,
                                                          NULL, NULL);
  read->done = TRUE;
}

static gboolean
tick_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

static char *
read_line_until (GDataInputStream *stream,
                 gint64            deadline_us)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  LineRead read = { FALSE, NULL };

  g_data_input_stream_read_line_async (stream, G_PRIORITY_DEFAULT, cancellable, line_read_cb,
                                       &read);
  while (!read.done)
    {
      if (g_get_monotonic_time () >= deadline_us)
        g_cancellable_cancel (cancellable);
      /* Wakes at least every 50 ms to look at the deadline. */
      if (!g_main_context_pending (NULL))
        {
          g_autoptr(GSource) tick = g_timeout_source_new (50);

          g_source_set_callback (tick, tick_cb, NULL, NULL);
          g_source_attach (tick, NULL);
          g_main_context_iteration (NULL, TRUE);
          g_source_destroy (tick);
        }
      else
        {
          g_main_context_iteration (NULL, FALSE);
        }
    }
  return read.line;
}

/* Fixture: a directory of its own */

typedef struct
{
  char *dir;
  char *target;
  char *lock;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("flctl-portable-XXXXXX", &error);
  g_assert_no_error (error);
  f->target = g_build_filename (f->dir, "data.db", NULL);
  f->lock = g_strconcat (f->target, ".lock", NULL);
}

/* Every lock is released by now: nothing holds a file that GLib removes. */
static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (f->dir, name, NULL);

      g_remove (path);
    }
  g_assert_cmpint (g_rmdir (f->dir), ==, 0);
  g_free (f->dir);
  g_free (f->target);
  g_free (f->lock);
}

/* Tests */

static void
test_unlocked (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *state = status_state (f->target);
  g_autofree char *out = NULL;

  g_assert_cmpstr (state, ==, "unlocked");
  g_assert_cmpint (run_flctl (&out, "list", f->dir, NULL), ==, 0);
  g_assert_cmpstr (out, ==, "");
}

/* A live holder is "held" in status and list, and run --no-wait is refused with 75; once the
 * holder is killed its lock is stale, and reclaim removes it. */
static void
test_stale_reclaim (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GSubprocess) holder = hold (f->target);
  g_autofree char *state = status_state (f->target);
  g_autofree char *listed = NULL;
  g_autofree char *after = NULL;
  g_autofree char *left = NULL;
  int clean_status;

  g_assert_cmpstr (state, ==, "held");
  g_assert_cmpint (run_flctl (&listed, "list", f->dir, NULL), ==, 0);
  g_assert_nonnull (strstr (listed, "data.db.lock"));
  g_assert_nonnull (strstr (listed, "held"));
  g_assert_cmpint (run_flctl (NULL, "run", "--no-wait", f->target, "--", self_path,
                              "--child-exit", "0", NULL), ==, 75);

  kill_holder (holder, f->target);
  g_assert_cmpint (run_flctl (NULL, "reclaim", "-y", f->target, NULL), ==, 0);
  after = status_state (f->target);
  g_assert_cmpstr (after, ==, "unlocked");

  /* A killed holder may leave its temp behind (Windows has no unnamed files): clean removes
   * it, or finds nothing to clean (1); either way nothing is left to list. */
  clean_status = run_flctl (NULL, "clean", "-y", f->dir, NULL);
  g_assert_true (clean_status == 0 || clean_status == 1);
  g_assert_cmpint (run_flctl (&left, "list", f->dir, NULL), ==, 0);
  g_assert_cmpstr (left, ==, "");
}

/* COMMAND runs with the lock held, its status is flctl's, the lock is released after it. */
static void
test_run (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *state = NULL;

  g_assert_cmpint (run_flctl (NULL, "run", f->target, "--", self_path, "--child-check-held",
                              f->target, NULL), ==, 0);
  g_assert_cmpint (run_flctl (NULL, "run", f->target, "--", self_path, "--child-exit", "7",
                              NULL), ==, 7);
  state = status_state (f->target);
  g_assert_cmpstr (state, ==, "unlocked");
  /* The shell's status for a command that is not there. */
  g_assert_cmpint (run_flctl (NULL, "run", f->target, "--", "flctl-no-such-command", NULL),
                   ==, 127);
  /* The check itself can fail: with nothing holding the lock, the child says so. */
  g_assert_cmpint (child_check_held (f->target), ==, 3);
}

/* run takes over the lock of a killed holder without a reclaim first. */
static void
test_run_takes_stale (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GSubprocess) holder = hold (f->target);
  g_autofree char *state = NULL;

  kill_holder (holder, f->target);
  g_assert_cmpint (run_flctl (NULL, "run", f->target, "--", self_path, "--child-check-held",
                              f->target, NULL), ==, 0);
  state = status_state (f->target);
  g_assert_cmpstr (state, ==, "unlocked");
}

/* watch reports a new holder's lock; killed, the watcher ends (it has no lock to leave). The
 * deadline is past the model's periodic rescan (10 s), which finds what events missed. */
static void
test_watch (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) watcher = NULL;
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GDataInputStream) err = NULL;
  g_autofree char *ready = NULL;
  gint64 deadline = g_get_monotonic_time () + scaled_us (60);
  gboolean seen = FALSE;

  watcher = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                              &error, flctl_path (), "watch", f->dir, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (watcher));
  err = g_data_input_stream_new (g_subprocess_get_stderr_pipe (watcher));
  ready = read_line_until (err, deadline);
  g_assert_nonnull (ready);
  g_assert_nonnull (strstr (ready, "watching 1 directory"));

  holder = hold (f->target);
  while (!seen)
    {
      g_autofree char *line = read_line_until (out, deadline);

      g_assert_nonnull (line);
      g_test_message ("watch: %s", line);
      seen = strstr (line, "created") != NULL && g_str_has_suffix (line, "data.db.lock");
    }

  g_subprocess_force_exit (watcher);
  g_assert_true (g_subprocess_wait (watcher, NULL, &error));
  g_subprocess_force_exit (holder);
  g_assert_true (g_subprocess_wait (holder, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (run_flctl (NULL, "reclaim", "-y", f->target, NULL), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && g_str_equal (argv[1], "--child-exit"))
    return atoi (argv[2]);
  if (argc == 3 && g_str_equal (argv[1], "--child-check-held"))
    return child_check_held (argv[2]);

  self_path = argv[0];
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/flctl/portable/unlocked", Fixture, NULL, fixture_set_up, test_unlocked,
              fixture_tear_down);
  g_test_add ("/flctl/portable/stale-reclaim", Fixture, NULL, fixture_set_up,
              test_stale_reclaim, fixture_tear_down);
  g_test_add ("/flctl/portable/run", Fixture, NULL, fixture_set_up, test_run,
              fixture_tear_down);
  g_test_add ("/flctl/portable/run-takes-stale", Fixture, NULL, fixture_set_up,
              test_run_takes_stale, fixture_tear_down);
  g_test_add ("/flctl/portable/watch", Fixture, NULL, fixture_set_up, test_watch,
              fixture_tear_down);
  return g_test_run ();
}
