/* soak-chaos.c: the soak test's setup and its hostile directory
 *
 * Junk is what crashed processes of any program leave: temp and graveyard files with PIDs that
 * may or may not exist. Hostile entries are named like locks, temps or graveyards but are
 * symlinks, FIFOs or directories: libfl must report them as foreign and never open, follow or
 * remove them. An occupation puts one where a real lock goes, for a moment: acquirers of that
 * target are refused with FL_ERROR_FOREIGN meanwhile, and the entry must be found untouched.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <libfl/fl.h>

#include "protocol/fl-names-private.h"
#include "fl-test-util.h"
#include "soak-private.h"

const char *soak_worker_path;

void
soak_init (Soak *soak)
{
  g_autoptr(GError) error = NULL;
  const char *seconds = g_getenv ("FL_SOAK_SECONDS");

  soak->seconds = seconds != NULL ? g_ascii_strtoll (seconds, NULL, 10) : 3600;
  g_assert_cmpint (soak->seconds, >, 0);
  soak->seed = fl_test_seed ();
  soak->rand = g_rand_new_with_seed (soak->seed);

  soak->worker = soak_worker_path != NULL ? soak_worker_path : g_getenv ("FL_SOAK_WORKER");
  g_assert_nonnull (soak->worker);
  g_assert_true (g_file_test (soak->worker, G_FILE_TEST_IS_EXECUTABLE));

  soak->base_dir = g_dir_make_tmp ("fl-soak-XXXXXX", &error);
  g_assert_no_error (error);
  soak->lock_dir = g_build_filename (soak->base_dir, "locks", NULL);
  soak->state_dir = g_build_filename (soak->base_dir, "state", NULL);
  soak->results_dir = g_build_filename (soak->base_dir, "results", NULL);
  g_assert_cmpint (g_mkdir (soak->lock_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (soak->state_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (soak->results_dir, 0755), ==, 0);

  soak->killed = g_hash_table_new (NULL, NULL);
  soak->unreaped_kills = g_hash_table_new (NULL, NULL);
  soak->daemon_parents = g_hash_table_new (NULL, NULL);
  soak->module_argv = fl_test_module_argv ();
  soak->junk = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

void
soak_clear (Soak *soak)
{
  fl_test_rm_rf (soak->base_dir);
  g_clear_pointer (&soak->base_dir, g_free);
  g_clear_pointer (&soak->lock_dir, g_free);
  g_clear_pointer (&soak->state_dir, g_free);
  g_clear_pointer (&soak->results_dir, g_free);
  g_clear_pointer (&soak->occupied, g_free);
  g_clear_pointer (&soak->rand, g_rand_free);
  g_clear_pointer (&soak->killed, g_hash_table_unref);
  g_clear_pointer (&soak->unreaped_kills, g_hash_table_unref);
  g_clear_pointer (&soak->daemon_parents, g_hash_table_unref);
  g_clear_pointer (&soak->module_argv, g_strfreev);
  g_clear_pointer (&soak->junk, g_hash_table_unref);
}

/* A PID for a junk name: mostly one that cannot exist, sometimes a live worker's. */
static int
junk_pid (Soak *soak)
{
  guint slot = (guint) g_rand_int_range (soak->rand, 0, SOAK_WORKERS);

  if (g_rand_int_range (soak->rand, 0, 4) == 0 && soak->workers[slot].pid > 0)
    return soak->workers[slot].pid;
  return g_rand_int_range (soak->rand, FL_PID_MAX - 1000, FL_PID_MAX + 1);
}

static char *
junk_name (Soak     *soak,
           gboolean  graveyard)
{
  g_autofree char *lock_name =
    g_strdup_printf ("t%d.lock", g_rand_int_range (soak->rand, 0, SOAK_TARGETS));
  int pid = junk_pid (soak);
  guint32 tag = g_rand_int (soak->rand);

  return graveyard ? _fl_graveyard_name (lock_name, pid, tag)
                   : _fl_temp_name (lock_name, pid, tag);
}

static void
remember (Soak       *soak,
          const char *name,
          mode_t      type)
{
  g_hash_table_insert (soak->junk, g_strdup (name), GUINT_TO_POINTER (type));
}

void
soak_chaos_junk (Soak *soak)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *content = NULL;

  if (g_hash_table_size (soak->junk) >= SOAK_JUNK_MAX)
    return;

  name = junk_name (soak, g_rand_boolean (soak->rand));
  path = g_build_filename (soak->lock_dir, name, NULL);
  if (g_rand_boolean (soak->rand))
    content = g_strdup_printf ("%d", junk_pid (soak));
  else
    content = g_strdup ("\x1b[31mnot a pid\n");
  fl_test_write (path, content, -1);
  remember (soak, name, S_IFREG);
  soak->junk_files++;
}

void
soak_chaos_hostile (Soak *soak)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  guint n = soak->hostile_entries;
  mode_t type;
  int r;

  if (g_hash_table_size (soak->junk) >= SOAK_JUNK_MAX)
    return;

  switch (g_rand_int_range (soak->rand, 0, 6))
    {
    case 0:
      name = junk_name (soak, FALSE);
      path = g_build_filename (soak->lock_dir, name, NULL);
      r = symlink ("/etc/passwd", path);
      type = S_IFLNK;
      break;
    case 1:
      name = g_strdup_printf ("s%u.lock", n);
      path = g_build_filename (soak->lock_dir, name, NULL);
      r = symlink ("t0.lock", path);     /* a link to a live lock: never followed */
      type = S_IFLNK;
      break;
    case 2:
      name = junk_name (soak, TRUE);
      path = g_build_filename (soak->lock_dir, name, NULL);
      r = mkfifo (path, 0644);
      type = S_IFIFO;
      break;
    case 3:
      name = g_strdup_printf ("f%u.lock", n);
      path = g_build_filename (soak->lock_dir, name, NULL);
      r = mkfifo (path, 0644);
      type = S_IFIFO;
      break;
    case 4:
      name = g_strdup_printf ("d%u.lock", n);
      path = g_build_filename (soak->lock_dir, name, NULL);
      r = g_mkdir (path, 0755);
      type = S_IFDIR;
      break;
    default:
      name = junk_name (soak, FALSE);
      path = g_build_filename (soak->lock_dir, name, NULL);
      r = g_mkdir (path, 0755);
      type = S_IFDIR;
      break;
    }
  g_assert_cmpint (r, ==, 0);
  remember (soak, name, type);
  soak->hostile_entries++;
}

/* Puts a foreign entry where the last target's lock goes, if it is free. */
void
soak_chaos_occupy (Soak   *soak,
                   gint64  now)
{
  g_autofree char *name = g_strdup_printf ("t%d.lock", SOAK_TARGETS - 1);
  g_autofree char *path = g_build_filename (soak->lock_dir, name, NULL);
  int r;

  if (soak->occupied != NULL)
    return;

  switch (g_rand_int_range (soak->rand, 0, 3))
    {
    case 0:
      r = mkfifo (path, 0644);
      soak->occupied_type = S_IFIFO;
      break;
    case 1:
      r = g_mkdir (path, 0755);
      soak->occupied_type = S_IFDIR;
      break;
    default:
      r = symlink ("t0.lock", path);
      soak->occupied_type = S_IFLNK;
      break;
    }
  if (r < 0)
    {
      g_assert_cmpint (errno, ==, EEXIST);  /* held right now: another time */
      return;
    }
  soak->occupied = g_steal_pointer (&path);
  soak->occupied_until = now + g_rand_int_range (soak->rand, 100, 500) * 1000;
  soak->occupations++;
}

void
soak_chaos_release_occupied (Soak     *soak,
                             gint64    now,
                             gboolean  always)
{
  struct stat st;

  if (soak->occupied == NULL || (!always && now < soak->occupied_until))
    return;

  /* Nobody but us may have removed or replaced it: libfl never touches a foreign entry. */
  g_assert_cmpint (lstat (soak->occupied, &st), ==, 0);
  g_assert_cmpuint (st.st_mode & S_IFMT, ==, soak->occupied_type);
  if (soak->occupied_type == S_IFDIR)
    g_assert_cmpint (rmdir (soak->occupied), ==, 0);
  else
    g_assert_cmpint (unlink (soak->occupied), ==, 0);
  g_clear_pointer (&soak->occupied, g_free);
}

/* What an inspector does: every entry judged, none followed or opened if foreign. */
void
soak_chaos_scan (Soak *soak)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) found = NULL;

  found = fl_scan_directory (soak->lock_dir, FL_SCAN_NONE, NULL, NULL, &error);
  soak->scans++;
  if (found == NULL)
    {
      g_test_message ("scan failed: %s", error->message);
      soak->scan_errors++;
      return;
    }

  for (guint i = 0; i < found->len; i++)
    {
      FlSnapshot *snapshot = g_ptr_array_index (found, i);
      gpointer type;

      if (g_hash_table_lookup_extended (soak->junk, fl_snapshot_get_name (snapshot), NULL,
                                        &type) &&
          GPOINTER_TO_UINT (type) != S_IFREG &&
          fl_snapshot_get_kind (snapshot) != FL_ENTRY_FOREIGN)
        {
          g_test_message ("%s is not a regular file but was not reported as foreign",
                          fl_snapshot_get_path (snapshot));
          soak->scan_errors++;
        }
    }
}
