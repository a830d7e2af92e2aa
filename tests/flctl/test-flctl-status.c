/* test-flctl-status.c: `flctl demo`, then `status` and `list` on every state it makes
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "flctl-test-util.h"

typedef struct
{
  char        *dir;
  GSubprocess *demo;
  char        *temp;       /* the names demo chose at random */
  char        *graveyard;
} Fixture;

static char *
path_in (Fixture    *f,
         const char *name)
{
  return g_build_filename (f->dir, name, NULL);
}

/* Starts `flctl demo`, and finds in what it made the names it chose at random. */
static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_auto(GStrv) lines = NULL;

  f->dir = flctl_test_make_dir ();
  f->demo = flctl_test_start_demo (f->dir, &lines);
  for (guint l = 0; lines[l] != NULL; l++)
    {
      g_auto(GStrv) words = g_strsplit_set (lines[l], " ", -1);

      for (guint i = 0; words[i] != NULL; i++)
        {
          if (g_str_has_suffix (words[i], ".tmp"))
            f->temp = g_strdup (words[i]);
          else if (strstr (words[i], ".lock.gy.") != NULL)
            f->graveyard = g_strdup (words[i]);
        }
    }
  g_assert_nonnull (f->temp);
  g_assert_nonnull (f->graveyard);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  if (f->demo != NULL)
    {
      flctl_test_stop_demo (f->demo);
      g_object_unref (f->demo);
    }
  flctl_test_remove_dir (f->dir);
  g_free (f->dir);
  g_free (f->temp);
  g_free (f->graveyard);
}

static JsonObject *
expect_record (JsonArray  *array,
               const char *path,
               const char *kind,
               const char *state,
               const char *liveness,
               gboolean    stale)
{
  JsonObject *record = flctl_test_find_record (array, path);

  g_test_message ("checking %s", path);
  g_assert_nonnull (record);
  g_assert_cmpstr (json_object_get_string_member (record, "kind"), ==, kind);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, state);
  g_assert_cmpstr (json_object_get_string_member (record, "liveness"), ==, liveness);
  g_assert_cmpint (json_object_get_boolean_member (record, "stale"), ==, stale);
  g_assert_nonnull (json_object_get_string_member (record, "reason"));
  g_assert_true (json_object_has_member (record, "target"));
  g_assert_true (json_object_has_member (record, "pid"));
  g_assert_true (json_object_has_member (record, "process"));
  g_assert_true (json_object_has_member (record, "kernel_lock"));
  g_assert_true (json_object_has_member (record, "age_s"));
  return record;
}

static void
expect_kernel_lock (JsonObject *record,
                    gboolean    held)
{
  g_assert_false (json_object_get_null_member (record, "kernel_lock"));
  g_assert_cmpint (json_object_get_boolean_member (record, "kernel_lock"), ==, held);
}

static void
expect_holder (JsonObject *record,
               const char *process)
{
  g_assert_cmpint (json_object_get_int_member (record, "pid"), >, 0);
  g_assert_cmpstr (json_object_get_string_member (record, "process"), ==, process);
  g_assert_cmpint (json_object_get_int_member (record, "age_s"), >=, 0);
}

static void
test_list_json (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "list", "--records", "-R", f->dir, NULL);
  g_autoptr(FlctlResult) flat = flctl_test_run (0, NULL, "list", "--records", f->dir, NULL);
  g_autoptr(JsonArray) all = NULL;
  g_autoptr(JsonArray) top = NULL;
  g_autofree char *db = path_in (f, "database.sqlite.lock");
  g_autofree char *backup = path_in (f, "backup.tar.lock");
  g_autofree char *nested = path_in (f, "projects/site/index.html.lock");
  g_autofree char *dead = path_in (f, "report.csv.lock");
  g_autofree char *reused = path_in (f, "session.db.lock");
  g_autofree char *empty = path_in (f, "upload.part.lock");
  g_autofree char *foreign = path_in (f, "legacy.lock");
  JsonObject *record;
  gint64 db_pid;

  g_assert_cmpint (result->status, ==, 0);
  all = flctl_test_parse_array (result->out);
  g_assert_cmpuint (json_array_get_length (all), ==, 9);

  record = expect_record (all, db, "lock", "held", "alive", FALSE);
  expect_kernel_lock (record, TRUE);
  expect_holder (record, "db-writer");
  db_pid = json_object_get_int_member (record, "pid");

  record = expect_record (all, backup, "lock", "held", "alive", FALSE);
  expect_kernel_lock (record, TRUE);
  expect_holder (record, "backup");

  record = expect_record (all, nested, "lock", "held", "alive", FALSE);
  expect_kernel_lock (record, TRUE);
  expect_holder (record, "site-builder");

  /* Killed: a libfl holder's lock whose kernel lock went with the process. */
  record = expect_record (all, dead, "lock", "stale", "dead", TRUE);
  expect_kernel_lock (record, FALSE);
  g_assert_cmpint (json_object_get_int_member (record, "pid"), >, 0);

  /* Names db-writer's PID, with the identity of an earlier process under it (flctl demo). */
  record = expect_record (all, reused, "lock", "stale", "reused", TRUE);
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, db_pid);
  g_assert_cmpint (json_object_get_int_member (record, "age_s"), >=, 24 * 60 * 60 - 60);
  {
    /* Issue 13: the reason once said "PID N now belongs to PID N (db-writer)". */
    g_autofree char *repeated = g_strdup_printf ("PID %" G_GINT64_FORMAT " now belongs to PID %"
                                                 G_GINT64_FORMAT, db_pid, db_pid);

    g_assert_null (strstr (json_object_get_string_member (record, "reason"), repeated));
    g_assert_nonnull (strstr (json_object_get_string_member (record, "reason"), "reused"));
  }

  /* Number("") is 0, which the original module calls alive: never stale by itself. */
  record = expect_record (all, empty, "lock", "unknown", "unknown", FALSE);
  g_assert_true (json_object_get_null_member (record, "pid"));
  g_assert_cmpstr (json_object_get_string_member (record, "content"), ==, "");

  /* list shows the command line of a live holder, as status does. */
  record = flctl_test_find_record (all, db);
  g_assert_false (json_object_get_null_member (record, "cmdline"));
  g_assert_nonnull (strstr (json_object_get_string_member (record, "cmdline"), "database.sqlite"));

  expect_record (all, f->temp, "temp", "orphan", "dead", TRUE);
  expect_record (all, f->graveyard, "graveyard", "orphan", "dead", TRUE);

  record = expect_record (all, foreign, "foreign", "foreign", "unknown", FALSE);
  g_assert_true (json_object_get_null_member (record, "kernel_lock"));

  /* Without -r the nested lock is not listed, the rest is. */
  g_assert_cmpint (flat->status, ==, 0);
  top = flctl_test_parse_array (flat->out);
  g_assert_cmpuint (json_array_get_length (top), ==, 8);
  g_assert_null (flctl_test_find_record (top, nested));
}

static void
test_status_json (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *db_target = path_in (f, "database.sqlite");
  g_autofree char *db = path_in (f, "database.sqlite.lock");
  g_autofree char *dead = path_in (f, "report.csv.lock");
  g_autofree char *free_target = path_in (f, "nobody-holds-this");
  g_autofree char *free_lock = path_in (f, "nobody-holds-this.lock");
  g_autoptr(FlctlResult) result = NULL;
  g_autoptr(JsonArray) array = NULL;
  JsonObject *record;

  /* A target, a lock file, a temp file, and a target nobody holds. */
  result = flctl_test_run (0, NULL, "status", "--records", db_target, dead, f->temp, free_target,
                           NULL);
  g_assert_cmpint (result->status, ==, 0);
  array = flctl_test_parse_array (result->out);
  g_assert_cmpuint (json_array_get_length (array), ==, 4);

  record = expect_record (array, db, "lock", "held", "alive", FALSE);
  expect_holder (record, "db-writer");
  g_assert_cmpstr (json_object_get_string_member (record, "target"), ==, db_target);
  g_assert_nonnull (strstr (json_object_get_string_member (record, "cmdline"), "database.sqlite"));
  expect_record (array, dead, "lock", "stale", "dead", TRUE);
  expect_record (array, f->temp, "temp", "orphan", "dead", TRUE);
  record = expect_record (array, free_lock, "lock", "unlocked", "unknown", FALSE);
  g_assert_true (json_object_get_null_member (record, "pid"));
  g_assert_true (json_object_get_null_member (record, "age_s"));
}

/* What an operator reads: states in words (no colour without a terminal, NO_COLOR is set). */
static void
test_human (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *db_target = path_in (f, "database.sqlite");
  g_autofree char *reused = path_in (f, "session.db.lock");
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(FlctlResult) list = NULL;
  g_auto(GStrv) lines = NULL;

  status = flctl_test_run (0, NULL, "status", db_target, reused, NULL);
  g_assert_cmpint (status->status, ==, 0);
  g_assert_nonnull (strstr (status->out, "state:         held"));
  g_assert_nonnull (strstr (status->out, "(db-writer), alive"));
  g_assert_nonnull (strstr (status->out, "state:         stale"));
  g_assert_nonnull (strstr (status->out, "reused, for 24 h"));
  g_assert_null (strchr (status->out, '\033'));

  list = flctl_test_run (0, NULL, "list", "-R", f->dir, NULL);
  g_assert_cmpint (list->status, ==, 0);
  g_assert_null (strchr (list->out, '\033'));
  lines = g_strsplit (list->out, "\n", -1);
  /* A header, nine entries, and the empty string after the last newline. */
  g_assert_cmpuint (g_strv_length (lines), ==, 11);
  g_assert_true (g_str_has_prefix (lines[0], "STATE"));
  for (guint i = 1; i < 10; i++)
    {
      /* Aligned: every path starts in the header's PATH column. */
      const char *column = strstr (lines[0], "PATH");

      g_assert_cmpint (lines[i][column - lines[0]], ==, '/');
      g_assert_cmpint (lines[i][column - lines[0] - 1], ==, ' ');
    }
  g_assert_nonnull (strstr (list->out, "10 min"));
  g_assert_nonnull (strstr (list->out, "orphan"));
}

/* A lock whose content is no PID: its holder is unknown, in words an operator can read, from
 * status and from a refused run alike. */
static void
test_no_pid_wording (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *empty = path_in (f, "upload.part.lock");
  g_autofree char *empty_target = path_in (f, "upload.part");
  g_autofree char *fresh_target = path_in (f, "fresh");
  g_autofree char *fresh = path_in (f, "fresh.lock");
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(FlctlResult) refused = NULL;

  status = flctl_test_run (0, NULL, "status", empty, NULL);
  g_assert_cmpint (status->status, ==, 0);
  g_assert_null (strstr (status->out, "no PID ("));
  g_assert_nonnull (strstr (status->out, "an unknown process"));

  /* Fresh, so not yet stale: run is refused, and says by whom. */
  g_assert_true (g_file_set_contents (fresh, "not a pid", -1, NULL));
  refused = flctl_test_run (0, NULL, "run", "-n", fresh_target, "--", "true", NULL);
  g_assert_cmpint (refused->status, ==, 75);
  g_assert_null (strstr (refused->err, "by no PID"));
  g_assert_nonnull (strstr (refused->err, "locked by an unknown process"));
  g_assert_false (g_file_test (empty_target, G_FILE_TEST_EXISTS));
}

/* The inspector ends demo with SIGTERM: the live holders must end with it and release. */
static void
test_demo_sigterm (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "list", "--records", "-R", f->dir, NULL);
  g_autoptr(JsonArray) array = flctl_test_parse_array (result->out);
  g_autoptr(GArray) holders = g_array_new (FALSE, FALSE, sizeof (int));
  g_autofree char *db = path_in (f, "database.sqlite.lock");
  g_autofree char *nested = path_in (f, "projects/site/index.html.lock");

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *record = json_array_get_object_element (array, i);

      if (g_str_equal (json_object_get_string_member (record, "state"), "held"))
        {
          int pid = (int) json_object_get_int_member (record, "pid");

          g_array_append_val (holders, pid);
        }
    }
  g_assert_cmpuint (holders->len, ==, 3);

  flctl_test_stop_demo (f->demo);
  g_clear_object (&f->demo);

  for (guint i = 0; i < holders->len; i++)
    g_assert_true (flctl_test_pid_gone (g_array_index (holders, int, i)));
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (nested, G_FILE_TEST_EXISTS));
}

static void
test_demo_detach (void)
{
  g_autofree char *dir = flctl_test_make_dir ();
  g_autoptr(FlctlResult) demo = flctl_test_run (0, NULL, "demo", "--detach", dir, NULL);
  g_autoptr(FlctlResult) list = NULL;
  g_autoptr(JsonArray) array = NULL;
  g_auto(GStrv) lines = NULL;
  guint n_lines;
  guint held = 0;

  g_assert_cmpint (demo->status, ==, 0);
  lines = g_strsplit (demo->out, "\n", -1);
  n_lines = g_strv_length (lines);
  g_assert_cmpuint (n_lines, >=, 2);
  g_assert_cmpstr (lines[n_lines - 2], ==, "ready");
  g_assert_cmpstr (lines[n_lines - 1], ==, "");

  list = flctl_test_run (0, NULL, "list", "--records", "-R", dir, NULL);
  array = flctl_test_parse_array (list->out);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *record = json_array_get_object_element (array, i);
      int pid;

      if (!g_str_equal (json_object_get_string_member (record, "state"), "held"))
        continue;
      /* Still running after demo exited; this test is their reaper (subreaper). */
      pid = (int) json_object_get_int_member (record, "pid");
      g_assert_false (flctl_test_pid_gone (pid));
      g_assert_cmpint (kill (pid, SIGTERM), ==, 0);
      g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
      held++;
    }
  g_assert_cmpuint (held, ==, 3);
  flctl_test_remove_dir (dir);
}

static void
test_demo_refuses_full_dir (void)
{
  g_autofree char *dir = flctl_test_make_dir ();
  g_autofree char *file = g_build_filename (dir, "precious", NULL);
  g_autoptr(FlctlResult) demo = NULL;

  g_assert_true (g_file_set_contents (file, "keep", -1, NULL));
  demo = flctl_test_run (0, NULL, "demo", dir, NULL);
  g_assert_cmpint (demo->status, ==, 1);
  g_assert_nonnull (strstr (demo->err, "not empty"));
  g_assert_null (strstr (demo->out, "ready"));
  flctl_test_remove_dir (dir);
}

/* A SIGSTOPped holder, the classic stuck lock: alive and holding, but running no code. status,
 * list and reclaim say it is stopped and how to end it (issue 32). */
static void
test_stopped_holder (void)
{
  g_autofree char *dir = flctl_test_make_dir ();
  g_autofree char *target = g_build_filename (dir, "stuck", NULL);
  g_autofree char *lock = g_build_filename (dir, "stuck.lock", NULL);
  g_autoptr(GSubprocess) holder = flctl_test_hold (target);
  g_autofree char *cont = g_strdup_printf ("kill -CONT %d", flctl_test_pid (holder));
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(FlctlResult) human = NULL;
  g_autoptr(FlctlResult) column = NULL;
  g_autoptr(FlctlResult) reclaim = NULL;
  g_autoptr(JsonArray) records = NULL;
  JsonObject *record;
  siginfo_t info = { 0 };

  g_subprocess_send_signal (holder, SIGSTOP);
  /* Returns once it has stopped; WNOWAIT leaves the event for nobody else to miss. */
  g_assert_cmpint (waitid (P_PID, (id_t) flctl_test_pid (holder), &info, WSTOPPED | WNOWAIT),
                   ==, 0);
  g_assert_cmpint (info.si_code, ==, CLD_STOPPED);

  status = flctl_test_run (0, NULL, "status", "--records", target, NULL);
  g_assert_cmpint (status->status, ==, 0);
  records = flctl_test_parse_array (status->out);
  record = json_array_get_object_element (records, 0);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, "held");
  g_assert_true (json_object_get_boolean_member (record, "holder_stopped"));
  g_assert_false (json_object_get_boolean_member (record, "holder_exited"));
  g_assert_nonnull (strstr (json_object_get_string_member (record, "reason"),
                            "stopped (SIGSTOP)"));
  g_assert_nonnull (strstr (json_object_get_string_member (record, "reason"), cont));

  human = flctl_test_run (0, NULL, "status", target, NULL);
  g_assert_nonnull (strstr (human->out, "alive, stopped (SIGSTOP)"));
  column = flctl_test_run (0, NULL, "list", "-o", "LIVENESS", "--noheadings", dir, NULL);
  g_assert_cmpstr (column->out, ==, "stopped\n");

  /* --force overrides no held kernel lock, and says how the holder ends. */
  reclaim = flctl_test_run (0, NULL, "reclaim", "--force", "-y", lock, NULL);
  g_assert_cmpint (reclaim->status, ==, 1);
  g_assert_nonnull (strstr (reclaim->err, "never removes a lock whose kernel lock is held"));
  g_assert_nonnull (strstr (reclaim->err, cont));
  g_assert_true (g_file_test (lock, G_FILE_TEST_EXISTS));

  g_subprocess_send_signal (holder, SIGCONT);
  flctl_test_release (holder);
  flctl_test_remove_dir (dir);
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

  /* Detached holders are re-parented to this process, which can then reap them. */
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

#define ADD(path, func) \
  g_test_add (path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)
  ADD ("/flctl/status/list-json", test_list_json);
  ADD ("/flctl/status/status-json", test_status_json);
  ADD ("/flctl/status/human", test_human);
  ADD ("/flctl/status/no-pid-wording", test_no_pid_wording);
  ADD ("/flctl/demo/sigterm-ends-holders", test_demo_sigterm);
#undef ADD
  g_test_add_func ("/flctl/status/stopped-holder", test_stopped_holder);
  g_test_add_func ("/flctl/demo/detach", test_demo_detach);
  g_test_add_func ("/flctl/demo/refuses-full-dir", test_demo_refuses_full_dir);

  return g_test_run ();
}
