/* test-flctl-other-locks.c: `flctl list`, `status` and `reclaim` on other programs' lock files
 * (docs/other-lock-files.md): listed with their program and owner, never reclaimed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fl-test-util.h"
#include "flctl-test-util.h"

typedef struct
{
  char *dir;
  char *git_lock;
  char *emacs_live;
  char *emacs_dead;
  char *serial;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *git_dir = NULL;
  g_autofree char *live = g_strdup_printf ("alice@%s.%d", g_get_host_name (), (int) getpid ());
  g_autofree char *dead = g_strdup_printf ("bob@%s.%d", g_get_host_name (), (int) fl_test_dead_pid ());

  f->dir = flctl_test_make_dir ();
  git_dir = g_build_filename (f->dir, ".git", NULL);
  f->git_lock = g_build_filename (git_dir, "index.lock", NULL);
  f->emacs_live = g_build_filename (f->dir, ".#notes.txt", NULL);
  f->emacs_dead = g_build_filename (f->dir, ".#old.txt", NULL);
  f->serial = g_build_filename (f->dir, "LCK..ttyS0", NULL);

  g_assert_no_errno (mkdir (git_dir, 0755));
  g_assert_true (g_file_set_contents (f->git_lock, "DIRC", 4, NULL));
  g_assert_true (g_file_set_contents (f->serial, "", 0, NULL));
  g_assert_no_errno (symlink (live, f->emacs_live));
  g_assert_no_errno (symlink (dead, f->emacs_dead));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  flctl_test_remove_dir (f->dir);
  g_free (f->dir);
  g_free (f->git_lock);
  g_free (f->emacs_live);
  g_free (f->emacs_dead);
  g_free (f->serial);
}

static void
assert_record (JsonArray  *array,
               const char *path,
               const char *format,
               const char *state)
{
  JsonObject *record = flctl_test_find_record (array, path);

  g_assert_nonnull (record);
  g_assert_cmpstr (json_object_get_string_member (record, "kind"), ==, "other-program");
  g_assert_cmpstr (json_object_get_string_member (record, "format"), ==, format);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, state);
}

static void
test_list (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(FlctlResult) json = flctl_test_run (0, NULL, "list", "--records", "-R", f->dir, NULL);
  g_autoptr(FlctlResult) text = flctl_test_run (0, NULL, "list", "-R", f->dir, NULL);
  g_autoptr(JsonArray) array = NULL;
  JsonObject *live;

  g_assert_cmpint (json->status, ==, 0);
  array = flctl_test_parse_array (json->out);
  g_assert_cmpuint (json_array_get_length (array), ==, 4);
  assert_record (array, f->git_lock, "git", "unknown");
  assert_record (array, f->emacs_live, "emacs", "held");
  assert_record (array, f->emacs_dead, "emacs", "stale");
  assert_record (array, f->serial, "flock", "free");
  live = flctl_test_find_record (array, f->emacs_live);
  g_assert_cmpstr (json_object_get_string_member (live, "owner_user"), ==, "alice");
  g_assert_cmpint (json_object_get_int_member (live, "pid"), ==, getpid ());
  g_assert_false (json_object_get_boolean_member (live, "stale"));

  /* The table names the program as KIND and the recorded owner. */
  g_assert_cmpint (text->status, ==, 0);
  g_assert_nonnull (strstr (text->out, "Emacs: alice@"));
  g_assert_nonnull (strstr (text->out, "git: no owner recorded"));
  g_assert_nonnull (strstr (text->out, "flock: nobody holds it"));
}

static void
test_status_explains (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "status", f->git_lock, NULL);

  g_assert_cmpint (result->status, ==, 0);
  g_assert_nonnull (strstr (result->out, "format:        git"));
  g_assert_nonnull (strstr (result->out, "A git lock"));
  g_assert_nonnull (strstr (result->out, "nor flctl reclaims another program's lock"));
}

/* Refused, forced or not, and nothing touched: a stale Emacs link and git's lock. */
static void
test_reclaim_refuses (Fixture       *f,
                      gconstpointer  data)
{
  const char *paths[] = { f->emacs_dead, f->git_lock };
  g_autofree char *content = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(FlctlResult) plain = flctl_test_run (0, NULL, "reclaim", "-y", paths[i], NULL);
      g_autoptr(FlctlResult) forced = flctl_test_run (0, NULL, "reclaim", "-y", "--force",
                                                      paths[i], NULL);
      struct stat st;

      g_assert_cmpint (plain->status, ==, 1);
      g_assert_cmpint (forced->status, ==, 1);
      g_assert_nonnull (strstr (plain->err, "not libfl's"));
      g_assert_nonnull (strstr (forced->err, "not libfl's"));
      g_assert_no_errno (lstat (paths[i], &st));
    }
  content = flctl_test_read_file (f->git_lock);
  g_assert_cmpstr (content, ==, "DIRC");
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/flctl/other-locks/list", test_list);
  ADD ("/flctl/other-locks/status-explains", test_status_explains);
  ADD ("/flctl/other-locks/reclaim-refuses", test_reclaim_refuses);
#undef ADD

  return g_test_run ();
}
