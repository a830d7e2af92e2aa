/* test-walk.c: fl_scan_directory() and the directory model list the same tree
 *
 * Both read directories through one walker (libfl/model/fl-walk.c). This checks the two edges
 * where they used to differ: a tree deeper than the walker's limit, and a listing that cannot
 * tell an entry's type (d_type DT_UNKNOWN, as on some file systems). Linked with
 * `-Wl,--wrap=readdir64`: while `force_unknown` is set, every entry the platform layer lists
 * comes back as DT_UNKNOWN, deterministically.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include "fl-test-util.h"

/* The cases need Linux: the wrapped libc call (see above). Elsewhere they are registered
 * and skip, saying so, so that every platform lists the same cases (docs/porting.md). */
#define NEEDS "link-time wrapping of readdir() (-Wl,--wrap), a listing without d_type; " \
  "Windows' platform layer calls kernel32, where a wrap has nothing to catch"

#ifdef __linux__
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/fl-directory-model-private.h"
#include "model/fl-walk-private.h"

struct dirent64 *__real_readdir64 (DIR *dir);
struct dirent64 *__wrap_readdir64 (DIR *dir);

static gboolean force_unknown;
static guint n_forced;

struct dirent64 *
__wrap_readdir64 (DIR *dir)
{
  struct dirent64 *de = __real_readdir64 (dir);

  if (de != NULL && force_unknown)
    {
      de->d_type = DT_UNKNOWN;
      n_forced++;
    }
  return de;
}

static void
write_lock (const char *dir,
            const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *content = g_strdup_printf ("%d\n", getpid ());

  /* A live holder: this process. */
  fl_test_write (path, content, -1);
}

static char **
scan_paths (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) snaps = fl_scan_directory (dir, FL_SCAN_RECURSIVE, NULL, NULL, &error);
  GStrvBuilder *builder = g_strv_builder_new ();
  char **paths;

  g_assert_no_error (error);
  for (guint i = 0; i < snaps->len; i++)
    g_strv_builder_add (builder, fl_snapshot_get_path (snaps->pdata[i]));
  paths = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return paths;
}

static char **
model_paths (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlDirectoryModel) model = fl_directory_model_new (NULL);
  GStrvBuilder *builder = g_strv_builder_new ();
  char **paths;

  _fl_directory_model_set_monitoring (model, FALSE);
  g_assert_true (fl_directory_model_add_directory (model, dir, TRUE, &error));
  g_assert_no_error (error);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (G_LIST_MODEL (model), i);

      g_strv_builder_add (builder, fl_entry_get_path (entry));
    }
  paths = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return paths;
}

static void
assert_same_strv (char **a,
                  char **b)
{
  g_autofree char *ja = g_strjoinv ("\n", a);
  g_autofree char *jb = g_strjoinv ("\n", b);

  g_assert_cmpstr (ja, ==, jb);
}

/* A lock at every level 0..FL_WALK_MAX_DEPTH + 1: the deepest is one level too deep. */
static void
test_walk_deep (FlTestDir     *fx,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) errors = NULL;
  g_autoptr(GPtrArray) snaps = NULL;
  g_autofree char *path = g_strdup (fx->dir);
  g_auto(GStrv) from_scan = NULL;
  g_auto(GStrv) from_model = NULL;

  for (guint depth = 0; depth <= FL_WALK_MAX_DEPTH + 1; depth++)
    {
      g_autofree char *name = g_strdup_printf ("level%u.lock", depth);
      char *sub;

      write_lock (path, name);
      sub = g_build_filename (path, "d", NULL);
      g_assert_cmpint (mkdir (sub, 0700), ==, 0);
      g_free (path);
      path = sub;
    }

  force_unknown = GPOINTER_TO_INT (data);
  n_forced = 0;
  from_scan = scan_paths (fx->dir);
  from_model = model_paths (fx->dir);
  snaps = fl_scan_directory_full (fx->dir, FL_SCAN_RECURSIVE, NULL, NULL, &errors, &error);
  force_unknown = FALSE;

  g_assert_no_error (error);
  if (GPOINTER_TO_INT (data))
    g_assert_cmpuint (n_forced, >, 0);
  /* Levels 0..64 are read, level 65 is not: by both. */
  g_assert_cmpuint (g_strv_length (from_scan), ==, FL_WALK_MAX_DEPTH + 1);
  assert_same_strv (from_scan, from_model);
  for (guint i = 0; from_scan[i] != NULL; i++)
    g_assert_null (strstr (from_scan[i], "/level65.lock"));
  /* And the full scan says what it left out. */
  g_assert_cmpuint (errors->len, ==, 1);
  g_assert_nonnull (strstr (((GError *) errors->pdata[0])->message, "directories deep"));
}

/* Entries of every type, named like locks or not; a link to a directory is never followed. */
static void
test_walk_types (FlTestDir     *fx,
                 gconstpointer  data)
{
  g_autofree char *sub = g_build_filename (fx->dir, "sub", NULL);
  g_autofree char *outside = g_dir_make_tmp ("fl-walk-outside-XXXXXX", NULL);
  g_autofree char *lockdir = g_build_filename (fx->dir, "dir.lock", NULL);
  g_autofree char *fifo = g_build_filename (sub, "fifo.lock", NULL);
  g_autofree char *link_dir = g_build_filename (fx->dir, "link", NULL);
  g_autofree char *link_lock = g_build_filename (fx->dir, "dangling.lock", NULL);
  g_auto(GStrv) from_scan = NULL;
  g_auto(GStrv) from_model = NULL;
  const char *expected[] = { "dangling.lock", "dir.lock", "dir.lock/inner.lock", "sub/a.lock",
                             "sub/fifo.lock", "top.lock", NULL };
  guint n_expected = g_strv_length ((char **) expected);

  g_assert_cmpint (mkdir (sub, 0700), ==, 0);
  g_assert_cmpint (mkdir (lockdir, 0700), ==, 0);
  g_assert_nonnull (outside);
  write_lock (outside, "hidden.lock");
  write_lock (fx->dir, "top.lock");
  write_lock (fx->dir, "notes.lockfile");
  write_lock (sub, "a.lock");
  write_lock (lockdir, "inner.lock");
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_cmpint (symlink (outside, link_dir), ==, 0);
  g_assert_cmpint (symlink ("nowhere", link_lock), ==, 0);

  force_unknown = GPOINTER_TO_INT (data);
  n_forced = 0;
  from_scan = scan_paths (fx->dir);
  from_model = model_paths (fx->dir);
  force_unknown = FALSE;

  if (GPOINTER_TO_INT (data))
    g_assert_cmpuint (n_forced, >, 0);
  g_assert_cmpuint (g_strv_length (from_scan), ==, n_expected);
  for (guint i = 0; i < n_expected; i++)
    {
      g_autofree char *want = g_build_filename (fx->dir, expected[i], NULL);

      g_assert_cmpstr (from_scan[i], ==, want);
    }
  assert_same_strv (from_scan, from_model);

  fl_test_rm_rf (outside);
}

#endif /* __linux__ */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/walk/deep", GINT_TO_POINTER (FALSE), test_walk_deep, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/walk/deep-unknown-type", GINT_TO_POINTER (TRUE),
                     test_walk_deep, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/walk/types", GINT_TO_POINTER (FALSE), test_walk_types, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/walk/types-unknown-type", GINT_TO_POINTER (TRUE),
                     test_walk_types, NEEDS);

  return g_test_run ();
}
