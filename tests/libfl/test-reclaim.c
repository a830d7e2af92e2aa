/* test-reclaim.c: an operator's reclaim from a snapshot, and a scan of a directory
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/stat.h>
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

static void
assert_content (const char *path,
                const char *expected)
{
  g_autofree char *content = NULL;
  gsize len;

  content = fl_test_read (path, &len);
  g_assert_cmpmem (content, len, expected, strlen (expected));
}

static void
test_reclaim_live (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (fx->target);
  g_autofree char *pid = g_strdup_printf ("%d", (int) holder->pid);
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  guint64 before;

  before = fl_test_file_id (fx->lock);
  snapshot = snapshot_of (fx->lock);
  g_assert_false (fl_snapshot_reclaim (snapshot, NULL, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_NOT_STALE, fx->lock);

  g_assert_cmpuint (fl_test_file_id (fx->lock), ==, before);
  assert_content (fx->lock, pid);
  g_assert_true (fl_test_kernel_lock_held (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);

  /* The holder's own release still works: its lock was never touched. */
  fl_test_holder_release (holder);
}

typedef enum
{
  CHANGE_REPLACED,   /* another inode renamed over it */
  CHANGE_REWRITTEN,  /* same inode, other content */
  CHANGE_REMOVED,
} ChangeKind;

static void
test_reclaim_changed (FlTestDir     *fx,
                      gconstpointer  data)
{
  g_autofree char *first = g_strdup_printf ("%d", (int) fl_test_dead_pid ());
  g_autofree char *second = NULL;
  g_autofree char *replacement = g_build_filename (fx->dir, "replacement", NULL);
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  guint64 after = 0;

  /* Same length, so that a rewrite in place changes the content, not the size. */
  do
    {
      g_free (second);
      second = g_strdup_printf ("%d", (int) fl_test_dead_pid ());
    }
  while (strlen (second) != strlen (first));

  fl_test_write (fx->lock, first, -1);
  snapshot = snapshot_of (fx->lock);
  g_assert_true (fl_snapshot_get_stale (snapshot));

  switch (GPOINTER_TO_INT (data))
    {
    case CHANGE_REPLACED:
      fl_test_write (replacement, second, -1);
      g_assert_cmpint (g_rename (replacement, fx->lock), ==, 0);
      after = fl_test_file_id (fx->lock);
      break;
    case CHANGE_REWRITTEN:
      after = fl_test_file_id (fx->lock);
      fl_test_write (fx->lock, second, -1);
      break;
    case CHANGE_REMOVED:
      g_assert_cmpint (g_unlink (fx->lock), ==, 0);
      break;
    default:
      g_assert_not_reached ();
    }

  g_assert_false (fl_snapshot_reclaim (snapshot, NULL, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_CHANGED, fx->lock);

  if (GPOINTER_TO_INT (data) == CHANGE_REMOVED)
    g_assert_false (fl_test_exists (fx->lock));
  else
    {
      g_assert_cmpuint (fl_test_file_id (fx->lock), ==, after);
      assert_content (fx->lock, second);
    }
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

static void
test_reclaim_stale (FlTestDir     *fx,
                    gconstpointer  data)
{
  g_autofree char *dead = g_strdup_printf ("%d", (int) fl_test_dead_pid ());
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;

  fl_test_write (fx->lock, dead, -1);
  snapshot = snapshot_of (fx->lock);
  g_assert_true (fl_snapshot_reclaim (snapshot, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (fx->lock));
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);

  /* A second reclaim from the same snapshot finds nothing to do and says so. */
  g_assert_false (fl_snapshot_reclaim (snapshot, NULL, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_CHANGED, fx->lock);
  g_clear_error (&error);

  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  g_assert_no_error (error);
}

/* Orphan temp and graveyard files are removed; one whose creator lives stays. */
static void
test_reclaim_leftovers (FlTestDir     *fx,
                        gconstpointer  data)
{
  int dead = fl_test_dead_pid ();
  g_autofree char *temp = g_strdup_printf ("%s.%d.0000beef.tmp", fx->lock, dead);
  g_autofree char *gy = g_strdup_printf ("%s.gy.%d.0000cafe", fx->lock, dead);
  g_autofree char *live = g_strdup_printf ("%s.%d.0000f00d.tmp", fx->lock, (int) getpid ());
  g_autoptr(FlSnapshot) s_temp = NULL;
  g_autoptr(FlSnapshot) s_gy = NULL;
  g_autoptr(FlSnapshot) s_live = NULL;
  g_autoptr(GError) error = NULL;

  fl_test_write (temp, "1", -1);
  fl_test_write (gy, "2", -1);
  fl_test_write (live, "3", -1);
  s_temp = snapshot_of (temp);
  s_gy = snapshot_of (gy);
  s_live = snapshot_of (live);

  g_assert_true (fl_snapshot_reclaim (s_temp, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (temp));
  g_assert_true (fl_snapshot_reclaim (s_gy, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (fl_test_exists (gy));

  g_assert_false (fl_snapshot_reclaim (s_live, NULL, &error));
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_NOT_STALE, live);
  g_assert_true (fl_test_exists (live));
}

#ifdef __linux__
static GHashTable *
scan_names (const char  *dir,
            FlScanFlags  flags)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = fl_scan_directory (dir, flags, NULL, NULL, &error);
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_assert_no_error (error);
  g_assert_nonnull (entries);
  for (guint i = 0; i < entries->len; i++)
    {
      FlSnapshot *snapshot = g_ptr_array_index (entries, i);
      const char *path;

      g_assert_true (FL_IS_SNAPSHOT (snapshot));
      path = fl_snapshot_get_path (snapshot);
      g_assert_true (g_str_has_prefix (path, dir));
      g_assert_false (g_hash_table_contains (names, path + strlen (dir) + 1));
      g_hash_table_insert (names, g_strdup (path + strlen (dir) + 1),
                           GINT_TO_POINTER (fl_snapshot_get_kind (snapshot) + 1));
    }
  return names;
}

static void
test_scan (FlTestDir     *fx,
           gconstpointer  data)
{
  g_autofree char *sub = g_build_filename (fx->dir, "sub", NULL);
  g_autofree char *subsub = g_build_filename (sub, "deeper", NULL);
  g_autofree char *a_lock = g_build_filename (sub, "a.lock", NULL);
  g_autofree char *b_lock = g_build_filename (subsub, "b.lock", NULL);
  g_autofree char *loop = g_build_filename (fx->dir, "loop", NULL);
  g_autoptr(GHashTable) flat = NULL;
  g_autoptr(GHashTable) deep = NULL;
  int dead = fl_test_dead_pid ();
  g_autofree char *dead_text = g_strdup_printf ("%d", dead);
  g_autofree char *temp_name = g_strdup_printf ("target.lock.%d.0123abcd.tmp", dead);
  g_autofree char *gy_name = g_strdup_printf ("target.lock.gy.%d.0123abcd", dead);
  struct
  {
    const char *name;
    int         kind;   /* FlEntryKind + 1; 0 = not an entry */
  } expected[] = {
    { "target.lock", FL_ENTRY_LOCK + 1 },
    { temp_name, FL_ENTRY_TEMP + 1 },
    { gy_name, FL_ENTRY_GRAVEYARD + 1 },
    { "other.lock", FL_ENTRY_FOREIGN + 1 },
    { "readme.txt", 0 },
    { "target", 0 },
  };

  g_assert_cmpint (mkdir (sub, 0755), ==, 0);
  g_assert_cmpint (mkdir (subsub, 0755), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *path = g_build_filename (fx->dir, expected[i].name, NULL);

      if (g_str_equal (expected[i].name, "other.lock"))
        g_assert_cmpint (symlink ("/etc/passwd", path), ==, 0);
      else
        fl_test_write (path, dead_text, -1);
    }
  fl_test_write (a_lock, dead_text, -1);
  fl_test_write (b_lock, dead_text, -1);
  /* A symbolic link to a directory is not followed: sub's entries are found once. */
  g_assert_cmpint (symlink (sub, loop), ==, 0);

  flat = scan_names (fx->dir, FL_SCAN_NONE);
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (flat, expected[i].name)), ==,
                     expected[i].kind);
  g_assert_cmpuint (g_hash_table_size (flat), ==, 4);

  deep = scan_names (fx->dir, FL_SCAN_RECURSIVE);
  g_assert_cmpuint (g_hash_table_size (deep), ==, 6);
  g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (deep, "sub/a.lock")), ==,
                   FL_ENTRY_LOCK + 1);
  g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (deep, "sub/deeper/b.lock")), ==,
                   FL_ENTRY_LOCK + 1);
}
#endif

static void
test_scan_missing (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (fx->dir, "missing", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = fl_scan_directory (missing, FL_SCAN_NONE, NULL, NULL, &error);

  g_assert_null (entries);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, missing));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD ("/libfl/reclaim/live", NULL, test_reclaim_live);
  FL_TEST_ADD ("/libfl/reclaim/changed/replaced", GINT_TO_POINTER (CHANGE_REPLACED),
               test_reclaim_changed);
  FL_TEST_ADD ("/libfl/reclaim/changed/rewritten", GINT_TO_POINTER (CHANGE_REWRITTEN),
               test_reclaim_changed);
  FL_TEST_ADD ("/libfl/reclaim/changed/removed", GINT_TO_POINTER (CHANGE_REMOVED),
               test_reclaim_changed);
  FL_TEST_ADD ("/libfl/reclaim/stale", NULL, test_reclaim_stale);
  FL_TEST_ADD ("/libfl/reclaim/leftovers", NULL, test_reclaim_leftovers);
  FL_TEST_ADD_LINUX ("/libfl/scan/directory", NULL, test_scan,
                     "symbolic links in the tree (CreateSymbolicLinkW is a stub under wine, "
                     "wine gap 11)");
  FL_TEST_ADD ("/libfl/scan/missing", NULL, test_scan_missing);

  return g_test_run ();
}
