/* fl-test-dir.c: the portable half of the helpers: temporary directories, deadlines, listings
 *
 * Every wait here has a deadline and waits on the event itself or re-asks a condition, never
 * sleeps for synchronisation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-dir.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

void
fl_test_dir_setup (FlTestDir     *fx,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fx->dir = g_dir_make_tmp ("libfl-test-XXXXXX", &error);
  g_assert_no_error (error);
  fx->target = g_build_filename (fx->dir, "target", NULL);
  fx->lock = g_strconcat (fx->target, ".lock", NULL);
}

void
fl_test_dir_teardown (FlTestDir     *fx,
                      gconstpointer  data)
{
  fl_test_rm_rf (fx->dir);
  g_clear_pointer (&fx->dir, g_free);
  g_clear_pointer (&fx->target, g_free);
  g_clear_pointer (&fx->lock, g_free);
}

static void
skipped_cb (gconstpointer reason)
{
  g_test_skip (reason);
}

void
fl_test_add_skipped (const char *path,
                     const char *reason)
{
  g_test_add_data_func (path, reason, skipped_cb);
}

char *
fl_test_helper_path (const char *env_var,
                     const char *name)
{
  const char *from_env = g_getenv (env_var);
#ifdef G_OS_WIN32
  g_autofree char *file = g_strconcat (name, ".exe", NULL);
#else
  const char *file = name;
#endif

  if (from_env != NULL && *from_env != '\0')
    return g_strdup (from_env);
  /* meson sets G_TEST_BUILDDIR to tests/; run by hand, the base is the program's own
   * directory, tests/libfl/. */
  if (g_getenv ("G_TEST_BUILDDIR") != NULL)
    return g_test_build_filename (G_TEST_BUILT, "helpers", file, NULL);
  return g_test_build_filename (G_TEST_BUILT, "..", "helpers", file, NULL);
}

/* FL_TEST_SEED replays a run; the seed is always printed so that a failure can be replayed. */
guint32
fl_test_seed (void)
{
  const char *from_env = g_getenv ("FL_TEST_SEED");
  guint32 seed;

  if (from_env != NULL && *from_env != '\0')
    seed = (guint32) g_ascii_strtoull (from_env, NULL, 10);
  else
    seed = g_random_int ();
  g_test_message ("seed %u (replay with FL_TEST_SEED=%u)", seed, seed);
  return seed;
}

double
fl_test_time_scale (void)
{
  const char *from_env = g_getenv ("FL_TEST_TIME_SCALE");
  double scale = from_env != NULL ? g_ascii_strtod (from_env, NULL) : 1.0;

  /* Never shorter than written, and never absurd. */
  return scale >= 1.0 && scale <= 1000.0 ? scale : 1.0;
}

gint64
fl_test_scaled_ms (gint64 ms)
{
  return (gint64) (ms * fl_test_time_scale ());
}

gint64
fl_test_deadline_ms (gint64 ms_from_now)
{
  return g_get_monotonic_time () + fl_test_scaled_ms (ms_from_now) * G_TIME_SPAN_MILLISECOND;
}

/* Depth first; a symbolic link is removed, never followed, and nothing on another file system
 * (a test's mount that outlived it) is entered. */
static void
rm_rf_on (const char *path,
          dev_t       device)
{
  GStatBuf st;
  GDir *dir;
  const char *name;

  if (g_lstat (path, &st) < 0)
    return;
  if (S_ISDIR (st.st_mode) && st.st_dev == device && (dir = g_dir_open (path, 0, NULL)) != NULL)
    {
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          rm_rf_on (child, device);
        }
      g_dir_close (dir);
    }
  if ((S_ISDIR (st.st_mode) ? g_rmdir (path) : g_remove (path)) < 0 && errno != ENOENT)
    g_printerr ("# cannot remove %s: %s\n", path, g_strerror (errno));
}

void
fl_test_rm_rf (const char *path)
{
  GStatBuf st;

  if (path != NULL && g_lstat (path, &st) == 0)
    rm_rf_on (path, st.st_dev);
}

gboolean
fl_test_exists (const char *path)
{
  GStatBuf st;

  return g_lstat (path, &st) == 0;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

char **
fl_test_list_dir (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) handle = NULL;
  GPtrArray *names = g_ptr_array_new ();
  const char *name;

  handle = g_dir_open (dir, 0, &error);
  g_assert_no_error (error);
  while ((name = g_dir_read_name (handle)) != NULL)
    {
#ifdef G_OS_WIN32
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (_fl_test_dir_entry_is_gone (path))
        {
          g_test_message ("%s is delete-pending: not listed", name);
          continue;
        }
#endif
      g_ptr_array_add (names, g_strdup (name));
    }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

/* Temp and graveyard files of any target in @dir. */
guint
fl_test_count_protocol_litter (const char *dir)
{
  g_auto(GStrv) names = fl_test_list_dir (dir);
  guint count = 0;

  for (guint i = 0; names[i] != NULL; i++)
    if (g_str_has_suffix (names[i], ".tmp") || strstr (names[i], ".lock.gy.") != NULL)
      {
        g_test_message ("litter: %s", names[i]);
        count++;
      }
  return count;
}

static gboolean
deadline_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
recheck_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;  /* only wakes the loop, so that the condition is asked again */
}

/* Iterates the default main context until @cond holds or @timeout_ms passes. The condition is
 * asked after every event and at least every 5 ms: some (a line in /proc/locks, a process's
 * state) change without any event of this main context, and would otherwise be seen only at
 * the deadline. Returns whether @cond holds. */
gboolean
fl_test_wait_until (gboolean (*cond) (gpointer),
                    gpointer   data,
                    guint      timeout_ms)
{
  gboolean expired = FALSE;
  guint id = g_timeout_add ((guint) MIN (fl_test_scaled_ms (timeout_ms), G_MAXUINT),
                            deadline_cb, &expired);
  guint recheck = g_timeout_add (5, recheck_cb, NULL);

  while (!cond (data) && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (id);
  g_source_remove (recheck);
  return cond (data);
}
