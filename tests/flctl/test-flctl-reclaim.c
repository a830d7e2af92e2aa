/* test-flctl-reclaim.c: `flctl reclaim` and `flctl clean` on the states `flctl demo` makes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "flctl-test-util.h"

typedef struct
{
  char        *dir;
  GSubprocess *demo;
} Fixture;

static char *
path_in (Fixture    *f,
         const char *name)
{
  return g_build_filename (f->dir, name, NULL);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = flctl_test_make_dir ();
  f->demo = flctl_test_start_demo (f->dir, NULL);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  flctl_test_stop_demo (f->demo);
  g_object_unref (f->demo);
  flctl_test_remove_dir (f->dir);
  g_free (f->dir);
}

/* The state of each file, as `flctl list --records -R` reports it. */
static GHashTable *
list_states (Fixture *f)
{
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "list", "--records", "-R", f->dir, NULL);
  g_autoptr(JsonArray) array = NULL;
  GHashTable *states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  g_assert_cmpint (result->status, ==, 0);
  array = flctl_test_parse_array (result->out);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *record = json_array_get_object_element (array, i);

      g_hash_table_insert (states, g_strdup (json_object_get_string_member (record, "path")),
                           g_strdup (json_object_get_string_member (record, "state")));
    }
  return states;
}

static void
test_reclaim_refuses_live (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *lock = path_in (f, "database.sqlite.lock");
  g_autofree char *before = flctl_test_read_file (lock);
  g_autofree char *after = NULL;
  g_autoptr(FlctlResult) result = NULL;
  g_autoptr(GHashTable) states = NULL;

  result = flctl_test_run (0, NULL, "reclaim", "-y", lock, NULL);
  g_assert_cmpint (result->status, ==, 1);
  /* The evidence, then the refusal and its reason. */
  g_assert_nonnull (strstr (result->out, "(db-writer), alive"));
  g_assert_nonnull (strstr (result->err, "refusing"));
  g_assert_nonnull (strstr (result->err, "not stale"));
  g_assert_null (strstr (result->out, "Reclaimed"));

  after = flctl_test_read_file (lock);
  g_assert_cmpstr (after, ==, before);
  states = list_states (f);
  g_assert_cmpstr (g_hash_table_lookup (states, lock), ==, "held");
}

static void
test_reclaim_stale (Fixture       *f,
                    gconstpointer  data)
{
  const char *names[] = { "report.csv.lock", "session.db.lock" };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *lock = path_in (f, names[i]);
      g_autoptr(FlctlResult) dry = NULL;
      g_autoptr(FlctlResult) done = NULL;

      dry = flctl_test_run (0, NULL, "reclaim", "--dry-run", lock, NULL);
      g_assert_cmpint (dry->status, ==, 0);
      g_assert_nonnull (strstr (dry->out, "Would reclaim"));
      g_assert_nonnull (strstr (dry->out, "stale:         yes"));
      g_assert_true (g_file_test (lock, G_FILE_TEST_EXISTS));

      done = flctl_test_run (0, NULL, "reclaim", "-y", lock, NULL);
      g_assert_cmpint (done->status, ==, 0);
      g_assert_nonnull (strstr (done->out, "reason:"));
      g_assert_nonnull (strstr (done->out, "Reclaimed"));
      g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
    }
}

/* An empty lock younger than stale_after (30 s from its last change, whatever its mtime says)
 * is not stale yet: plain reclaim refuses it and says how to force it; --force reclaims it. A
 * held kernel lock is refused even forced. */
static void
test_reclaim_force (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *empty = path_in (f, "upload.part.lock");
  g_autofree char *held = path_in (f, "database.sqlite.lock");
  g_autoptr(FlctlResult) plain = NULL;
  g_autoptr(FlctlResult) dry = NULL;
  g_autoptr(FlctlResult) forced = NULL;
  g_autoptr(FlctlResult) live = NULL;

  plain = flctl_test_run (0, NULL, "reclaim", "-y", empty, NULL);
  g_assert_cmpint (plain->status, ==, 1);
  g_assert_nonnull (strstr (plain->err, "--force"));
  g_assert_true (g_file_test (empty, G_FILE_TEST_EXISTS));

  dry = flctl_test_run (0, NULL, "reclaim", "--force", "--dry-run", empty, NULL);
  g_assert_cmpint (dry->status, ==, 0);
  g_assert_nonnull (strstr (dry->out, "may be alive"));
  g_assert_true (g_file_test (empty, G_FILE_TEST_EXISTS));

  forced = flctl_test_run (0, NULL, "reclaim", "--force", "-y", empty, NULL);
  g_assert_cmpint (forced->status, ==, 0);
  g_assert_nonnull (strstr (forced->out, "Reclaimed"));
  g_assert_false (g_file_test (empty, G_FILE_TEST_EXISTS));

  live = flctl_test_run (0, NULL, "reclaim", "--force", "-y", held, NULL);
  g_assert_cmpint (live->status, ==, 1);
  g_assert_true (g_file_test (held, G_FILE_TEST_EXISTS));
}

/* Without a terminal to ask on, nothing happens unless -y says so. */
static void
test_reclaim_needs_yes (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *lock = path_in (f, "report.csv.lock");
  g_autoptr(FlctlResult) result = flctl_test_run (0, "y\n", "reclaim", lock, NULL);

  g_assert_cmpint (result->status, ==, 2);
  g_assert_nonnull (strstr (result->err, "-y"));
  g_assert_true (g_file_test (lock, G_FILE_TEST_EXISTS));
}

static void
test_reclaim_nothing (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *target = path_in (f, "never-locked");
  g_autofree char *lock = path_in (f, "never-locked.lock");
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "reclaim", "-y", target, NULL);

  /* Asked to do something, and nothing to do: refused. */
  g_assert_cmpint (result->status, ==, 1);
  g_assert_nonnull (strstr (result->err, lock));
  g_assert_nonnull (strstr (result->err, "nothing to reclaim"));
}

static void
test_reclaim_mixed (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *live = path_in (f, "backup.tar.lock");
  g_autofree char *dead = path_in (f, "report.csv.lock");
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "reclaim", "-y", live, dead, NULL);

  /* One refused: the batch says so, and the stale one was still reclaimed. */
  g_assert_cmpint (result->status, ==, 1);
  g_assert_true (g_file_test (live, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (dead, G_FILE_TEST_EXISTS));
}

static void
test_clean (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *live_temp = NULL;
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autoptr(FlctlResult) dry = NULL;
  g_autoptr(FlctlResult) done = NULL;
  g_autoptr(FlctlResult) again = NULL;
  g_autoptr(GHashTable) before = NULL;
  g_autoptr(GHashTable) unchanged = NULL;
  g_autoptr(GHashTable) after = NULL;
  GHashTableIter iter;
  gpointer path, state;
  guint orphans = 0;

  /* A temp file whose creator (this test) is alive: not an orphan. */
  live_temp = g_strdup_printf ("%s/inbox.lock.%d.0123abcd.tmp", f->dir, (int) getpid ());
  g_assert_true (g_file_set_contents (live_temp, pid, -1, NULL));

  before = list_states (f);
  g_assert_cmpstr (g_hash_table_lookup (before, live_temp), ==, "active");

  dry = flctl_test_run (0, NULL, "clean", "--dry-run", "-R", f->dir, NULL);
  g_assert_cmpint (dry->status, ==, 0);
  g_assert_nonnull (strstr (dry->out, "Would remove 2 orphaned files"));
  g_assert_null (strstr (dry->out, live_temp));
  unchanged = list_states (f);
  g_assert_cmpuint (g_hash_table_size (unchanged), ==, g_hash_table_size (before));

  done = flctl_test_run (0, NULL, "clean", "-y", "-R", f->dir, NULL);
  g_assert_cmpint (done->status, ==, 0);

  /* Exactly the orphans went; every lock, and the live temp, stayed. */
  after = list_states (f);
  g_hash_table_iter_init (&iter, before);
  while (g_hash_table_iter_next (&iter, &path, &state))
    {
      gboolean orphan = g_str_equal (state, "orphan");

      g_assert_cmpint (g_file_test (path, G_FILE_TEST_EXISTS), ==, !orphan);
      g_assert_cmpint (g_hash_table_contains (after, path), ==, !orphan);
      if (orphan)
        {
          g_assert_nonnull (strstr (done->out, path));
          orphans++;
        }
    }
  g_assert_cmpuint (orphans, ==, 2);

  /* Nothing left to do is success: a `set -e` cron job does not fail on a quiet night. */
  again = flctl_test_run (0, NULL, "clean", "-y", "-R", f->dir, NULL);
  g_assert_cmpint (again->status, ==, 0);
  g_assert_nonnull (strstr (again->err, "nothing to clean"));
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/flctl/reclaim/refuses-live", test_reclaim_refuses_live);
  ADD ("/flctl/reclaim/stale", test_reclaim_stale);
  ADD ("/flctl/reclaim/force", test_reclaim_force);
  ADD ("/flctl/reclaim/needs-yes", test_reclaim_needs_yes);
  ADD ("/flctl/reclaim/nothing", test_reclaim_nothing);
  ADD ("/flctl/reclaim/mixed", test_reclaim_mixed);
  ADD ("/flctl/clean/orphans-only", test_clean);
#undef ADD

  return g_test_run ();
}
