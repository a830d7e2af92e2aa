/* test-entry-state.c: the one verdict every view shows (fl_snapshot_get_state()), its stable
 * names and its translated summary, against real files and processes
 *
 * flctl, the inspector and the directory model's counts all present this state; these tests
 * pin what it says for each kind of evidence, so that a view cannot call an entry "held" that
 * the others call "unknown".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <locale.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <fcntl.h>
#include <sys/file.h>
#endif

#include "fl-test-util.h"

static FlSnapshot *
snapshot_of (const char *path)
{
  g_autoptr(GError) error = NULL;
  FlSnapshot *snapshot = fl_snapshot_new (path, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (snapshot);
  return snapshot;
}

/* The getter, the "state" property, the stable name and the summary, checked together. */
static void
assert_state (FlSnapshot   *snapshot,
              FlEntryState  expected,
              const char   *nick,
              const char   *summary)
{
  FlEntryState from_property = FL_ENTRY_STATE_UNKNOWN;
  g_autofree char *text = fl_snapshot_dup_state_summary (snapshot);

  g_object_get (snapshot, "state", &from_property, NULL);
  g_test_message ("%s: %s (%s)", fl_snapshot_get_path (snapshot),
                  fl_entry_state_to_string (fl_snapshot_get_state (snapshot)), text);
  g_assert_cmpint (fl_snapshot_get_state (snapshot), ==, expected);
  g_assert_cmpint (from_property, ==, expected);
  g_assert_cmpstr (fl_entry_state_to_string (expected), ==, nick);
  g_assert_cmpstr (text, ==, summary);
}

static void
test_held (FlTestDir     *fx,
           gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlSnapshot) snapshot = snapshot_of (fx->lock);

  g_assert_cmpint (fl_snapshot_get_pid (snapshot), ==, holder->pid);
  assert_state (snapshot, FL_ENTRY_STATE_HELD, "held", "Held");
  g_assert_false (fl_entry_state_is_problem (FL_ENTRY_STATE_HELD));
}

static void
test_stale (FlTestDir     *fx,
            gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autoptr(FlSnapshot) snapshot = NULL;

  fl_test_proc_kill (holder);
  snapshot = snapshot_of (fx->lock);
  assert_state (snapshot, FL_ENTRY_STATE_STALE, "stale", "Stale: holder exited");
  g_assert_true (fl_entry_state_is_problem (FL_ENTRY_STATE_STALE));
}

/* A young empty file is a lock being created: nobody may call it stale, and "no PID yet" is
 * true of it. */
static void
test_unknown_empty (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autoptr(FlSnapshot) snapshot = NULL;

  fl_test_write (fx->lock, "", 0);
  snapshot = snapshot_of (fx->lock);
  assert_state (snapshot, FL_ENTRY_STATE_UNKNOWN, "unknown", "Unknown: no PID yet");
}

/* Content that is not a PID is not "no PID yet": the summary says what is there. */
static void
test_unknown_not_a_pid (FlTestDir     *fx,
                        gconstpointer  data)
{
  g_autoptr(FlSnapshot) snapshot = NULL;

  fl_test_write (fx->lock, "hello", 5);
  snapshot = snapshot_of (fx->lock);
  assert_state (snapshot, FL_ENTRY_STATE_UNKNOWN, "unknown", "Unknown: not a PID");
}

#ifdef __linux__
/* The kernel lock is exact: a file whose kernel lock a process holds is held, whatever its
 * content says (the judge counts its holder alive). */
static void
test_held_by_kernel_lock (FlTestDir     *fx,
                          gconstpointer  data)
{
  g_autoptr(FlSnapshot) snapshot = NULL;
  int fd;

  fl_test_write (fx->lock, "hello", 5);
  fd = open (fx->lock, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), ==, 0);

  snapshot = snapshot_of (fx->lock);
  g_assert_cmpint (fl_snapshot_get_kernel_lock (snapshot), ==, FL_KERNEL_LOCK_HELD);
  g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
  assert_state (snapshot, FL_ENTRY_STATE_HELD, "held", "Held");
  close (fd);
}
#endif

static void
test_temp (FlTestDir     *fx,
           gconstpointer  data)
{
  g_autofree char *mine = g_strdup_printf ("%s.%d.0123abcd.tmp", fx->lock, (int) getpid ());
  g_autofree char *dead = g_strdup_printf ("%s.%d.4567cdef.tmp", fx->lock,
                                           (int) fl_test_dead_pid ());
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autoptr(FlSnapshot) active = NULL;
  g_autoptr(FlSnapshot) orphan = NULL;

  fl_test_write (mine, pid, strlen (pid));
  fl_test_write (dead, "", 0);
  active = snapshot_of (mine);
  orphan = snapshot_of (dead);
  assert_state (active, FL_ENTRY_STATE_ACTIVE, "active", "Being written");
  assert_state (orphan, FL_ENTRY_STATE_ORPHAN, "orphan", "Orphan: creator exited");
  g_assert_false (fl_entry_state_is_problem (FL_ENTRY_STATE_ACTIVE));
  g_assert_true (fl_entry_state_is_problem (FL_ENTRY_STATE_ORPHAN));
}

#ifdef __linux__
static void
test_foreign (FlTestDir     *fx,
              gconstpointer  data)
{
  g_autoptr(FlSnapshot) snapshot = NULL;

  g_assert_cmpint (symlink ("/nonexistent", fx->lock), ==, 0);
  snapshot = snapshot_of (fx->lock);
  assert_state (snapshot, FL_ENTRY_STATE_FOREIGN, "foreign", "Foreign: not a file");
  g_assert_true (fl_entry_state_is_problem (FL_ENTRY_STATE_FOREIGN));
}
#endif

/* The stable names are the generated types' nicks, so a value added to an enum has its name
 * without a second table; a value outside the enum gets "unknown", not a crash. */
static void
test_names (void)
{
  g_autoptr(GEnumClass) states = g_type_class_ref (FL_TYPE_ENTRY_STATE);

  for (guint i = 0; i < states->n_values; i++)
    {
      g_assert_cmpstr (fl_entry_state_to_string (states->values[i].value), ==,
                       states->values[i].value_nick);
      g_assert_nonnull (fl_entry_state_get_label (states->values[i].value));
    }
  g_assert_cmpuint (states->n_values, ==, 7);
  g_assert_cmpstr (fl_entry_state_to_string (FL_ENTRY_STATE_FREE), ==, "free");
  g_assert_cmpstr (fl_entry_state_get_label (FL_ENTRY_STATE_FREE), ==, "Free");
  g_assert_false (fl_entry_state_is_problem (FL_ENTRY_STATE_FREE));
  g_assert_cmpstr (fl_entry_kind_to_string (FL_ENTRY_OTHER_PROGRAM), ==, "other-program");
  g_assert_cmpstr (fl_lock_format_to_string (FL_LOCK_FORMAT_LIBREOFFICE), ==, "libreoffice");
  g_assert_cmpstr (fl_lock_format_to_string ((FlLockFormat) 99), ==, "libfl");
  g_assert_cmpstr (fl_lock_format_get_label ((FlLockFormat) 99), ==, "libfl");
  g_assert_cmpstr (fl_entry_state_to_string ((FlEntryState) 99), ==, "unknown");
  g_assert_cmpstr (fl_entry_kind_to_string (FL_ENTRY_GRAVEYARD), ==, "graveyard");
  g_assert_cmpstr (fl_entry_kind_to_string ((FlEntryKind) 99), ==, "unknown");
  g_assert_cmpstr (fl_liveness_to_string (FL_LIVENESS_REUSED), ==, "reused");
  g_assert_cmpstr (fl_kernel_lock_to_string (FL_KERNEL_LOCK_FREE), ==, "free");
  g_assert_cmpstr (fl_entry_state_get_label (FL_ENTRY_STATE_STALE), ==, "Stale");
}

int
main (int   argc,
      char *argv[])
{
  /* The summaries are compared in English. */
  setlocale (LC_ALL, "C");
  g_setenv ("LANGUAGE", "C", TRUE);
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/entry-state/held", NULL, test_held);
  FL_TEST_ADD ("/libfl/entry-state/stale", NULL, test_stale);
  FL_TEST_ADD ("/libfl/entry-state/unknown-empty", NULL, test_unknown_empty);
  FL_TEST_ADD ("/libfl/entry-state/unknown-not-a-pid", NULL, test_unknown_not_a_pid);
  FL_TEST_ADD_LINUX ("/libfl/entry-state/held-by-kernel-lock", NULL, test_held_by_kernel_lock,
                     "flock(2) taken by the test on a file whose content is no PID");
  FL_TEST_ADD ("/libfl/entry-state/temp", NULL, test_temp);
  FL_TEST_ADD_LINUX ("/libfl/entry-state/foreign", NULL, test_foreign,
                     "a symbolic link where the lock goes (Windows makes one only with a "
                     "privilege)");
  g_test_add_func ("/libfl/entry-state/names", test_names);

  return g_test_run ();
}
