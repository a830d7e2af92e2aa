/* test-bad-content.c: lock files whose content is not a valid PID
 *
 * Such a lock cannot be judged by its PID: it is "unknown", left alone while younger than
 * stale_after, and stale once older, counted from its last change (ctime), which touch cannot
 * move back. (What the original module reads as a number, PIDs <= 0 and the positive numbers
 * it calls alive for ever, 12.5 or 99999999999, are test-content-rule.c's.) The cases with a PID followed by garbage use a live PID and
 * a dead one, so that a lenient parser fails either way: it would call the first alive after
 * stale_after and the second dead before it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fl-test-util.h"

#define STALE_AFTER_MS 60000
#define HASTY_STALE_AFTER_MS 20

typedef enum
{
  PID_NONE,
  PID_LIVE,  /* this process */
  PID_DEAD,
} PidKind;

typedef struct
{
  const char *name;
  const char *prefix;   /* written first */
  gsize       prefix_len;
  PidKind     pid;      /* then this PID, if any */
  const char *suffix;   /* then this */
  gsize       suffix_len;
} BadContent;

#define S(str) str, sizeof (str) - 1

static const BadContent cases[] = {
  { "non-ascii", S ("\xd9\xa1\xd9\xa2\xd9\xa3"), PID_NONE, S ("") },   /* Arabic-Indic 123 */
  { "fullwidth-digits", S ("\xef\xbc\x91\xef\xbc\x92"), PID_NONE, S ("") },
  { "invalid-utf8", S ("\xff\xfe\xfd"), PID_NONE, S ("") },
  { "nul-bytes", S ("\0\0\0\0"), PID_NONE, S ("") },
  { "nul-inside", S ("1\0002"), PID_NONE, S ("") },
  { "live-pid-nul", S (""), PID_LIVE, S ("\0") },
  { "live-pid-garbage", S (""), PID_LIVE, S ("garbage") },
  { "dead-pid-garbage", S (""), PID_DEAD, S ("garbage") },
  { "dead-pid-space-digit", S (""), PID_DEAD, S (" 7") },
  { "live-pid-twice", S (""), PID_LIVE, S (" 1") },
  { "over-64-bytes", S (""), PID_DEAD,
    S ("garbagegarbagegarbagegarbagegarbagegarbagegarbagegarbagegarbagegarbage") },
  { "hex-fraction", S ("0x10.5"), PID_NONE, S ("") },
};

static GByteArray *
make_content (const BadContent *c)
{
  GByteArray *bytes = g_byte_array_new ();

  g_byte_array_append (bytes, (const guint8 *) c->prefix, c->prefix_len);
  if (c->pid != PID_NONE)
    {
      int pid = c->pid == PID_LIVE ? (int) getpid () : (int) fl_test_dead_pid ();
      g_autofree char *text = g_strdup_printf ("%d", pid);

      g_byte_array_append (bytes, (const guint8 *) text, strlen (text));
    }
  g_byte_array_append (bytes, (const guint8 *) c->suffix, c->suffix_len);
  return bytes;
}

/* Waits until the last change of @path (its ctime, which stale_after counts from) is @ms ago:
 * the clock must really pass, since nothing can set a ctime back. */
static void
wait_changed_ago (const char *path,
                  gint64      ms)
{
  gint64 deadline = fl_test_deadline_ms (30000);
  gint64 changed_us = fl_test_changed_us (path);

  while (g_get_real_time () < changed_us + ms * 1000)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (1000);
    }
}

static void
assert_untouched (FlTestDir  *fx,
                  GByteArray *bytes)
{
  g_autofree char *content = NULL;
  gsize len;

  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, bytes->data, bytes->len);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

static void
test_bad_content (FlTestDir     *fx,
                  gconstpointer  data)
{
  const BadContent *c = data;
  g_autoptr(GByteArray) bytes = make_content (c);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(FlSnapshot) fresh = NULL;
  g_autoptr(FlSnapshot) moved = NULL;
  g_autoptr(FlSnapshot) old = NULL;
  g_autoptr(FlLockOptions) hasty = fl_lock_options_new ();
  g_autoptr(GBytes) raw = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *content = NULL;
  gsize len;

  fl_lock_options_set_stale_after_ms (options, STALE_AFTER_MS);
  fl_lock_options_set_stale_after_ms (hasty, HASTY_STALE_AFTER_MS);
  fl_test_write (fx->lock, (const char *) bytes->data, bytes->len);

  /* Younger than stale_after: unknown, left alone. */
  fresh = fl_snapshot_new (fx->lock, options, &error);
  g_assert_no_error (error);
  g_test_message ("fresh: %s", fl_snapshot_get_reason (fresh));
  g_assert_cmpint (fl_snapshot_get_kind (fresh), ==, FL_ENTRY_LOCK);
  g_assert_cmpint (fl_snapshot_get_liveness (fresh), ==, FL_LIVENESS_UNKNOWN);
  g_assert_false (fl_snapshot_get_stale (fresh));
  g_assert_cmpint (fl_snapshot_get_pid (fresh), <=, 0);
  raw = fl_snapshot_dup_content_bytes (fresh);
  g_assert_cmpmem (g_bytes_get_data (raw, NULL), g_bytes_get_size (raw),
                   bytes->data, MIN (bytes->len, 64));
  g_assert_true (g_utf8_validate (fl_snapshot_get_content (fresh), -1, NULL));

  g_assert_true (fl_is_locked (fx->target, options, &error));
  g_assert_no_error (error);
  lock = fl_lock_try_acquire (fx->target, options, &error);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_clear_error (&error);
  g_assert_false (fl_snapshot_reclaim (fresh, options, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_NOT_STALE, fx->lock);
  g_clear_error (&error);
  assert_untouched (fx, bytes);

  /* Its mtime moved back (touch -d, cp -p, tar, rsync -t) does not age it: the clock of
   * stale_after is its last change, which no one can set into the past. */
  fl_test_set_mtime_ago (fx->lock, 2 * STALE_AFTER_MS / 1000);
  moved = fl_snapshot_new (fx->lock, options, &error);
  g_assert_no_error (error);
  g_test_message ("mtime moved back: %s", fl_snapshot_get_reason (moved));
  g_assert_cmpint (fl_snapshot_get_liveness (moved), ==, FL_LIVENESS_UNKNOWN);
  g_assert_false (fl_snapshot_get_stale (moved));
  g_assert_true (fl_is_locked (fx->target, options, &error));
  g_assert_no_error (error);

  /* Really older than stale_after: stale, and taken over. */
  wait_changed_ago (fx->lock, HASTY_STALE_AFTER_MS + 5);
  old = fl_snapshot_new (fx->lock, hasty, &error);
  g_assert_no_error (error);
  g_test_message ("old: %s", fl_snapshot_get_reason (old));
  g_assert_cmpint (fl_snapshot_get_liveness (old), ==, FL_LIVENESS_UNKNOWN);
  g_assert_true (fl_snapshot_get_stale (old));
  g_assert_false (fl_is_locked (fx->target, hasty, &error));
  g_assert_no_error (error);

  /* An operator's reclaim removes it... */
  g_assert_true (fl_snapshot_reclaim (old, hasty, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);

  /* ...and so does an acquirer's takeover. */
  fl_test_write (fx->lock, (const char *) bytes->data, bytes->len);
  wait_changed_ago (fx->lock, HASTY_STALE_AFTER_MS + 5);
  lock = fl_lock_try_acquire (fx->target, hasty, &error);
  g_assert_no_error (error);
  content = fl_test_read (fx->lock, &len);
  g_assert_cmpmem (content, len, pid, strlen (pid));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* A waiter on an unparsable lock wakes when the lock turns stale, not before, and does not
 * wait for its whole timeout. */
static void
test_wait_until_stale (FlTestDir     *fx,
                       gconstpointer  data)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  gint64 start, elapsed_ms;

  fl_lock_options_set_stale_after_ms (options, 1500);
  fl_lock_options_set_timeout_ms (options, 30000);
  fl_test_write (fx->lock, "garbage", -1);
  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  elapsed_ms = (g_get_monotonic_time () - start) / 1000;
  g_assert_no_error (error);
  g_test_message ("acquired after %" G_GINT64_FORMAT " ms", elapsed_ms);
  g_assert_cmpint (elapsed_ms, >=, 1400);
  g_assert_cmpint (elapsed_ms, <, 15000);
}

#ifdef __linux__
/* Issue 29: `flock T.lock CMD` (util-linux) creates T.lock empty and leaves it behind. The
 * module takes such a lock over once its mtime is older than staleAfterMs; libfl once it is
 * older than stale_after, not before (it used to wait for it for ever). */
static void
test_flock_leftover (FlTestDir     *fx,
                     gconstpointer  data)
{
  g_autofree char *flock_path = g_find_program_in_path ("flock");
  const char *argv[] = { flock_path, fx->lock, "true", NULL };
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(FlTestProc) proc = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;
  gint64 stale_after_ms = fl_test_scaled_ms (2000), changed_us;
  struct stat st;
  gsize len;

  g_assert_nonnull (flock_path);  /* util-linux: build-aux/install-deps installs it */
  proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 0);
  g_assert_cmpint (stat (fx->lock, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);
  changed_us = MAX ((gint64) st.st_ctim.tv_sec * G_USEC_PER_SEC + st.st_ctim.tv_nsec / 1000,
                    (gint64) st.st_mtim.tv_sec * G_USEC_PER_SEC + st.st_mtim.tv_nsec / 1000);

  fl_lock_options_set_stale_after_ms (options, stale_after_ms);
  fl_lock_options_set_timeout_ms (options, fl_test_scaled_ms (30000));
  lock = fl_lock_try_acquire (fx->target, options, &error);
  g_assert_cmpint (g_get_real_time () - changed_us, <, stale_after_ms * 1000);
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
  g_clear_error (&error);

  /* A waiter gets it once stale_after has passed, and not before. */
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  g_assert_cmpint (g_get_real_time () - changed_us, >=, stale_after_ms * 1000);
  content = fl_test_read (fx->lock, &len);
  g_assert_cmpint (atoi (content), ==, getpid ());
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/libfl/bad-input/content/%s", cases[i].name);

      FL_TEST_ADD (path, &cases[i], test_bad_content);
    }
  FL_TEST_ADD ("/libfl/bad-input/content/wait-until-stale", NULL, test_wait_until_stale);
  FL_TEST_ADD_LINUX ("/libfl/bad-input/content/flock-leftover", NULL, test_flock_leftover,
                     "flock(1) of util-linux, whose leftover it is");

  return g_test_run ();
}
