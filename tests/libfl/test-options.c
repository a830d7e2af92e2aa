/* test-options.c: option values at their extremes saturate, never overflow (issue 19, part 3)
 *
 * Run under UBSan too (meson setup build-asan -Db_sanitize=address,undefined
 * -Db_lundef=false): an overflow there is a failure even where the result happens to look right.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fl-options-private.h"
#include "fl-test-util.h"

#ifdef __linux__
/* Polls @cond every millisecond until it holds or the deadline passes. */
static gboolean
wait_for (gboolean (*cond) (gpointer),
          gpointer   data,
          gint64     deadline_us)
{
  while (!cond (data))
    {
      if (g_get_monotonic_time () >= deadline_us)
        return FALSE;
      g_usleep (1000);
    }
  return TRUE;
}

/* A waiter has its inotify instance once it waits (docs/protocol.md, section 5), or it has
 * given up already: either way it has judged the lock held and read its options. */
static gboolean
waiting_or_gone_cb (gpointer data)
{
  FlTestProc *proc = data;
  g_autofree char *fd_dir = g_strdup_printf ("/proc/%d/fd", (int) proc->pid);
  g_autoptr(GDir) dir = g_dir_open (fd_dir, 0, NULL);
  const char *name;

  if (dir == NULL)
    return TRUE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (fd_dir, name, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);

      if (target != NULL && strstr (target, "inotify") != NULL)
        return TRUE;
    }
  /* Exited (a zombie until reaped has no descriptors left). */
  return fl_test_proc_wait (proc, g_get_monotonic_time ());
}
#endif

static FlTestProc *
spawn_worker (const char *mode,
              const char *option,
              const char *target)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, option, mode, target, NULL };

  return fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
}

#ifdef __linux__
/* A waiter whose timeout means "forever" waits until the holder releases, then acquires. */
static void
test_timeout_forever (FlTestDir     *fx,
                      gconstpointer  data)
{
  const gint64 values[] = { G_MAXINT64, G_MAXINT64 / 1000 + 1, G_MININT64, FL_TIMEOUT_INFINITE,
                            -1000 };

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autofree char *option = g_strdup_printf ("--timeout-ms=%" G_GINT64_FORMAT, values[i]);
      g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
      g_autoptr(FlTestProc) waiter = spawn_worker ("acquire", option, fx->target);
      g_autofree char *line = NULL;

      g_test_message ("timeout %" G_GINT64_FORMAT " ms", values[i]);
      g_assert_true (wait_for (waiting_or_gone_cb, waiter, fl_test_deadline_ms (30000)));
      fl_test_holder_release (holder);
      line = fl_test_proc_read_line (waiter, fl_test_deadline_ms (30000));
      g_assert_cmpstr (line, ==, "acquired");
      g_assert_true (fl_test_proc_wait (waiter, fl_test_deadline_ms (30000)));
      g_assert_cmpint (fl_test_proc_exit_code (waiter), ==, 0);
    }
}
#endif

/* 0 is one try, as fl_lock_try_acquire(). */
static void
test_timeout_zero (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlTestProc) waiter = spawn_worker ("acquire", "--timeout-ms=0", fx->target);
  g_autofree char *line = fl_test_proc_read_line (waiter, fl_test_deadline_ms (30000));
  g_autofree char *busy = g_strdup_printf ("error %s %d ", g_quark_to_string (FL_ERROR),
                                           FL_ERROR_BUSY);

  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, busy));
  fl_test_holder_release (holder);
}

/* A fresh lock and an hour-old one whose content is not a PID: with stale_after at its largest
 * neither is ever stale, so neither is taken; with 0 both are stale at once. */
static void
test_stale_after (FlTestDir     *fx,
                  gconstpointer  data)
{
  const gint64 never[] = { G_MAXINT64, G_MAXINT64 / 1000 + 1, G_MAXINT64 / 2 };
  const gint64 ages_s[] = { 0, 3600 };

  for (guint a = 0; a < G_N_ELEMENTS (ages_s); a++)
    {
      for (guint i = 0; i < G_N_ELEMENTS (never); i++)
        {
          g_autoptr(FlLockOptions) options = fl_lock_options_new ();
          g_autoptr(GError) error = NULL;
          g_autoptr(FlLock) lock = NULL;
          g_autofree char *content = NULL;

          g_test_message ("stale_after %" G_GINT64_FORMAT " ms, lock %" G_GINT64_FORMAT " s old",
                          never[i], ages_s[a]);
          fl_test_write (fx->lock, "not a pid", -1);
          fl_test_set_mtime_ago (fx->lock, ages_s[a]);
          fl_lock_options_set_stale_after_ms (options, never[i]);
          g_assert_cmpint (fl_lock_options_get_stale_after_ms (options), ==, FL_STALE_NEVER);
          lock = fl_lock_try_acquire (fx->target, options, &error);
          fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
          g_assert_null (lock);
          content = fl_test_read (fx->lock, NULL);
          g_assert_cmpstr (content, ==, "not a pid");
        }

      {
        g_autoptr(FlLockOptions) options = fl_lock_options_new ();
        g_autoptr(GError) error = NULL;
        g_autoptr(FlLock) lock = NULL;

        fl_lock_options_set_stale_after_ms (options, 0);
        lock = fl_lock_try_acquire (fx->target, options, &error);
        g_assert_no_error (error);
        g_assert_true (fl_lock_release (lock, &error));
        g_assert_no_error (error);
      }
    }
}

/* Negative values of stale_after and backoffs below 1 ms are a programmer's error, refused
 * and ignored: the options keep their values. */
static void
test_refused_values (void)
{
  const gint64 negative[] = { G_MININT64, -1 };
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  gint64 min_ms, max_ms;

  for (guint i = 0; i < G_N_ELEMENTS (negative); i++)
    {
      g_test_expect_message ("libfl", G_LOG_LEVEL_CRITICAL, "*stale_after_ms >= 0*");
      fl_lock_options_set_stale_after_ms (options, negative[i]);
      g_test_assert_expected_messages ();
      g_assert_cmpint (fl_lock_options_get_stale_after_ms (options), ==,
                       FL_DEFAULT_STALE_AFTER_MS);

      g_test_expect_message ("libfl", G_LOG_LEVEL_CRITICAL, "*min_ms >= 1*");
      fl_lock_options_set_backoff_ms (options, negative[i], G_MAXINT64);
      g_test_assert_expected_messages ();
    }
  g_test_expect_message ("libfl", G_LOG_LEVEL_CRITICAL, "*min_ms >= 1*");
  fl_lock_options_set_backoff_ms (options, 0, 10);
  g_test_assert_expected_messages ();
  g_test_expect_message ("libfl", G_LOG_LEVEL_CRITICAL, "*max_ms >= min_ms*");
  fl_lock_options_set_backoff_ms (options, 10, G_MININT64);
  g_test_assert_expected_messages ();

  fl_lock_options_get_backoff_ms (options, &min_ms, &max_ms);
  g_assert_cmpint (min_ms, ==, FL_DEFAULT_BACKOFF_MIN_MS);
  g_assert_cmpint (max_ms, ==, FL_DEFAULT_BACKOFF_MAX_MS);
}

/* What the rest of the library reads: saturated, in microseconds. */
static void
test_saturated_values (void)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  gint64 min_us, max_us;

  fl_lock_options_set_stale_after_ms (options, FL_STALE_NEVER);
  g_assert_cmpint (_fl_lock_options_stale_after_us (options), ==, G_MAXINT64);
  g_assert_cmpint (_fl_lock_options_stale_at_us (options, G_MAXINT64 / 2), ==, G_MAXINT64);
  fl_lock_options_set_stale_after_ms (options, FL_STALE_AFTER_NEVER_FROM_MS - 1);
  g_assert_cmpint (fl_lock_options_get_stale_after_ms (options), ==,
                   FL_STALE_AFTER_NEVER_FROM_MS - 1);
  g_assert_cmpint (_fl_lock_options_stale_at_us (options, G_MAXINT64 - 5), ==, G_MAXINT64);
  fl_lock_options_set_stale_after_ms (options, 0);
  g_assert_cmpint (_fl_lock_options_stale_at_us (options, 1234), ==, 1234);

  fl_lock_options_set_timeout_ms (options, G_MAXINT64);
  g_assert_cmpint (_fl_lock_options_deadline_us (options, g_get_monotonic_time ()), ==, -1);
  fl_lock_options_set_timeout_ms (options, G_MININT64);
  g_assert_cmpint (_fl_lock_options_deadline_us (options, g_get_monotonic_time ()), ==, -1);
  fl_lock_options_set_timeout_ms (options, 5);
  g_assert_cmpint (_fl_lock_options_deadline_us (options, 1000), ==, 6000);

  fl_lock_options_set_backoff_ms (options, G_MAXINT64, G_MAXINT64);
  _fl_lock_options_backoff_us (options, &min_us, &max_us);
  g_assert_cmpint (min_us, ==, FL_BACKOFF_LIMIT_MS * 1000);
  g_assert_cmpint (max_us, ==, FL_BACKOFF_LIMIT_MS * 1000);
  fl_lock_options_set_backoff_ms (options, 1, G_MAXINT64);
  _fl_lock_options_backoff_us (options, &min_us, &max_us);
  g_assert_cmpint (min_us, ==, 1000);
  g_assert_cmpint (max_us, ==, FL_BACKOFF_LIMIT_MS * 1000);
}

#ifdef __linux__
static guint64
context_switches (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  g_autofree char *status = NULL;
  guint64 total = 0;
  const char *p;

  if (!g_file_get_contents (path, &status, NULL, NULL))
    return 0;
  for (p = status; (p = strstr (p, "ctxt_switches:")) != NULL; p += 14)
    total += g_ascii_strtoull (p + 14, NULL, 10);
  return total;
}

typedef struct
{
  pid_t   pid;
  guint64 limit;
} SwitchWatch;

static gboolean
switched_past_cb (gpointer data)
{
  SwitchWatch *watch = data;

  return context_switches (watch->pid) > watch->limit;
}

/* A huge backoff_max is clamped, not overflowed into a negative number that made the waiter
 * re-check every millisecond: waiting on a live holder stays quiet. A 1 ms poll wakes the
 * waiter about 1,000 times a second, event-driven waiting about never; 100 wakes in the
 * window is the line between them with a wide margin either way. */
static void
test_backoff_huge (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autofree char *option = g_strdup_printf ("--backoff-max-ms=%" G_GINT64_FORMAT, G_MAXINT64);
  g_autoptr(FlTestProc) waiter = spawn_worker ("acquire", option, fx->target);
  g_autofree char *line = NULL;
  SwitchWatch watch;

  g_assert_true (wait_for (waiting_or_gone_cb, waiter, fl_test_deadline_ms (30000)));
  watch.pid = waiter->pid;
  watch.limit = context_switches (waiter->pid) + 100;
  g_assert_false (wait_for (switched_past_cb, &watch, fl_test_deadline_ms (1000)));

  fl_test_holder_release (holder);
  line = fl_test_proc_read_line (waiter, fl_test_deadline_ms (30000));
  g_assert_cmpstr (line, ==, "acquired");
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/options/timeout/forever", NULL, test_timeout_forever,
                     "/proc/PID/fd, to see that the waiter waits before the holder lets go");
  FL_TEST_ADD ("/libfl/options/timeout/zero", NULL, test_timeout_zero);
  FL_TEST_ADD ("/libfl/options/stale-after/extremes", NULL, test_stale_after);
  g_test_add_func ("/libfl/options/refused-values", test_refused_values);
  g_test_add_func ("/libfl/options/saturated-values", test_saturated_values);
  FL_TEST_ADD_LINUX ("/libfl/options/backoff/huge", NULL, test_backoff_huge,
                     "/proc/PID/status, to count the waiter's wake-ups");

  return g_test_run ();
}
