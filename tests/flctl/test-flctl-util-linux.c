/* test-flctl-util-linux.c: flctl's util-linux options (issue 14), against flock(1) and
 * lslocks(8) wherever they have an equivalent, run on the same case
 *
 * Every process here is real: flctl, flock and lslocks are spawned as a user runs them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "flctl-test-util.h"

typedef FlctlDirFixture Fixture;

/* A util-linux tool, to its end within the deadline; its exit status, and its standard
 * output in @out. */
static int
run_tool (char               **out,
          const char * const  *argv)
{
  g_autoptr(GSubprocess) process = flctl_test_spawnv (G_SUBPROCESS_FLAGS_STDOUT_PIPE, argv);
  GInputStream *stream = g_subprocess_get_stdout_pipe (process);
  g_autoptr(GString) text = g_string_new (NULL);
  char *line;
  int status;

  /* Read first: a full pipe would keep the tool from ending. */
  while ((line = flctl_test_read_line (stream, FLCTL_TEST_TIMEOUT_MS)) != NULL)
    {
      g_string_append_printf (text, "%s\n", line);
      g_free (line);
    }
  status = flctl_test_wait (process, FLCTL_TEST_TIMEOUT_MS);
  if (out != NULL)
    *out = g_string_free (g_steal_pointer (&text), FALSE);
  return status;
}

static gboolean
have_tool (const char *name)
{
  g_autofree char *path = g_find_program_in_path (name);

  if (path == NULL)
    g_test_skip_printf ("%s (util-linux) is not installed", name);
  return path != NULL;
}

/* flock(1) holding @file until its standard input is closed. */
static GSubprocess *
start_flock (const char *file)
{
  const char *argv[] = { "flock", file, "sh", "-c", "echo ready; exec cat", NULL };
  GSubprocess *holder = flctl_test_spawnv (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                           G_SUBPROCESS_FLAGS_STDOUT_PIPE, argv);
  g_autofree char *line = flctl_test_read_line (g_subprocess_get_stdout_pipe (holder),
                                                FLCTL_TEST_TIMEOUT_MS);

  g_assert_cmpstr (line, ==, "ready");
  return holder;
}

static void
stop_flock (GSubprocess *holder)
{
  g_assert_true (g_output_stream_close (g_subprocess_get_stdin_pipe (holder), NULL, NULL));
  g_assert_cmpint (flctl_test_wait (holder, FLCTL_TEST_TIMEOUT_MS), ==, 0);
}

/* -o picks columns by name in any case, +LIST adds to the defaults, --noheadings drops the
 * header; an unknown column is a usage error that names it and lists the real ones. */
static void
test_output_columns (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "db", NULL);
  g_autofree char *lock = g_build_filename (f->dir, "db.lock", NULL);
  g_autoptr(GSubprocess) holder = flctl_test_hold (target);
  g_autofree char *expected = g_strdup_printf ("%d %s\n", flctl_test_pid (holder), lock);
  g_autoptr(FlctlResult) two = NULL;
  g_autoptr(FlctlResult) plus = NULL;
  g_autoptr(FlctlResult) bad = NULL;
  g_autoptr(FlctlResult) kernel_bad = NULL;
  g_autoptr(FlctlResult) with_json = NULL;
  g_auto(GStrv) lines = NULL;

  two = flctl_test_run (0, NULL, "list", "-o", "pid,Path", "--noheadings", "--raw", f->dir,
                        NULL);
  g_assert_cmpint (two->status, ==, 0);
  g_assert_cmpstr (two->out, ==, expected);

  plus = flctl_test_run (0, NULL, "list", "--output", "+TARGET", f->dir, NULL);
  g_assert_cmpint (plus->status, ==, 0);
  lines = g_strsplit (plus->out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (g_regex_match_simple ("^STATE +KIND +PID +PROCESS +LIVENESS +AGE +PATH +TARGET$",
                                       lines[0], 0, 0));
  g_assert_true (g_str_has_suffix (lines[1], target));

  bad = flctl_test_run (0, NULL, "list", "-o", "PID,BOGUS", f->dir, NULL);
  g_assert_cmpint (bad->status, ==, 2);
  g_assert_cmpstr (bad->out, ==, "");
  g_assert_nonnull (strstr (bad->err, "unknown column 'BOGUS'"));
  g_assert_nonnull (strstr (bad->err, "STATE, KIND, PID, PROCESS, LIVENESS, HOST, LEASE, "
                                      "WAITERS, AGE, PATH, TARGET"));

  /* -j's records are whole: a column list would be ignored, so it is refused. */
  with_json = flctl_test_run (0, NULL, "list", "-j", "-o", "PID", f->dir, NULL);
  g_assert_cmpint (with_json->status, ==, 2);
  g_assert_cmpstr (with_json->out, ==, "");
  g_assert_nonnull (strstr (with_json->err, "-o, --output-all"));

  kernel_bad = flctl_test_run (0, NULL, "list", "--kernel", "-o", "SIZE", NULL);
  g_assert_cmpint (kernel_bad->status, ==, 2);
  g_assert_nonnull (strstr (kernel_bad->err, "unknown column 'SIZE'"));
  g_assert_nonnull (strstr (kernel_bad->err, "TYPE, MODE, PID, PROCESS, RANGE, LIBFL, PATH"));

  flctl_test_release (holder);
}

/* status with a table option prints list's columns, one line per PATH, unlocked included. */
static void
test_status_columns (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *held = g_build_filename (f->dir, "held", NULL);
  g_autofree char *free_target = g_build_filename (f->dir, "free", NULL);
  g_autoptr(GSubprocess) holder = flctl_test_hold (held);
  g_autofree char *expected = g_strdup_printf ("held %d\nunlocked -\n", flctl_test_pid (holder));
  g_autoptr(FlctlResult) result = NULL;

  result = flctl_test_run (0, NULL, "status", "-o", "STATE,PID", "--noheadings", "--raw", held,
                           free_target, NULL);
  g_assert_cmpint (result->status, ==, 0);
  g_assert_cmpstr (result->out, ==, expected);
  flctl_test_release (holder);
}

/* A name with a space: flctl list --raw writes it \x20, as lslocks --raw writes a path it
 * shows (here flock(1)'s lock on "a b"), and flctl list --kernel --raw the same line. */
static void
test_raw_escapes_as_lslocks (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *spaced = g_build_filename (f->dir, "a b", NULL);
  g_autofree char *target = g_build_filename (f->dir, "my target", NULL);
  g_autoptr(GSubprocess) flock_holder = NULL;
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(FlctlResult) kernel = NULL;
  g_autoptr(FlctlResult) listed = NULL;
  g_autofree char *lslocks_out = NULL;
  g_autofree char *flock_line = NULL;
  g_autofree char *lock_line = NULL;
  const char *lslocks_argv[] = { "lslocks", "--raw", "--noheadings", "-o", "PID,PATH", NULL };
  const char *flctl_argv[] = { "list", "--kernel", "--raw", "--noheadings", "-o", "PID,PATH",
                               f->dir, NULL };
  g_auto(GStrv) escaped_dir = NULL;

  if (!have_tool ("lslocks") || !have_tool ("flock"))
    return;
  g_assert_true (g_file_set_contents (spaced, "", 0, NULL));
  flock_holder = start_flock (spaced);
  holder = flctl_test_hold (target);

  /* The space, and nothing else of these names, is escaped. */
  flock_line = g_strdup_printf ("%d %s/a\\x20b\n", flctl_test_pid (flock_holder), f->dir);
  g_assert_cmpint (run_tool (&lslocks_out, lslocks_argv), ==, 0);
  if (strstr (lslocks_out, "a\\x20b") == NULL)
    {
      /* In a container lslocks may not see the holder's files: nothing to compare with. */
      g_test_skip ("lslocks does not show flock's lock on this system");
    }
  else
    {
      g_assert_nonnull (strstr (lslocks_out, flock_line));
      kernel = flctl_test_runv (0, NULL, flctl_argv);
      g_assert_cmpint (kernel->status, ==, 0);
      g_assert_nonnull (strstr (kernel->out, flock_line));
    }

  listed = flctl_test_run (0, NULL, "list", "--raw", "--noheadings", "-o", "PID,PATH", f->dir,
                           NULL);
  g_assert_cmpint (listed->status, ==, 0);
  lock_line = g_strdup_printf ("%d %s/my\\x20target.lock\n", flctl_test_pid (holder), f->dir);
  g_assert_cmpstr (listed->out, ==, lock_line);
  /* A shell splits it into exactly the two fields. */
  escaped_dir = g_strsplit (listed->out, " ", -1);
  g_assert_cmpuint (g_strv_length (escaped_dir), ==, 2);

  flctl_test_release (holder);
  stop_flock (flock_holder);
}

/* --raw writes every byte a shell or a terminal could trip on as \xNN, the same bytes
 * libsmartcols escapes (a backslash, a tab, a newline, non-ASCII); the table for people
 * keeps flctl's own escapes. */
static void
test_raw_escapes_bytes (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *lock = g_build_filename (f->dir, "x\\y\tz\n\xc3\xa9.lock", NULL);
  g_autofree char *raw_expected = g_strdup_printf ("%s/x\\x5cy\\x09z\\x0a\\xc3\\xa9.lock\n",
                                                   f->dir);
  g_autoptr(FlctlResult) raw = NULL;
  g_autoptr(FlctlResult) human = NULL;

  g_assert_true (g_file_set_contents (lock, "", 0, NULL));
  raw = flctl_test_run (0, NULL, "list", "--raw", "--noheadings", "-o", "PATH", f->dir, NULL);
  g_assert_cmpint (raw->status, ==, 0);
  g_assert_cmpstr (raw->out, ==, raw_expected);

  human = flctl_test_run (0, NULL, "list", "--noheadings", "-o", "PATH", f->dir, NULL);
  g_assert_cmpint (human->status, ==, 0);
  g_assert_nonnull (strstr (human->out, "/x\\y\\tz\\n\xc3\xa9.lock\n"));
}

/* -j and --records print flctl's records, which json-glib parses, each with "schema". */
static void
test_json_options (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "db", NULL);
  g_autoptr(GSubprocess) holder = flctl_test_hold (target);
  const char *spellings[] = { "--records", "-j" };
  g_autofree char *first = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autoptr(FlctlResult) list = flctl_test_run (0, NULL, "list", spellings[i], f->dir, NULL);
      g_autoptr(FlctlResult) status = flctl_test_run (0, NULL, "status", spellings[i], target,
                                                      NULL);
      g_autoptr(JsonArray) records = NULL;
      g_autoptr(JsonArray) status_records = NULL;
      JsonObject *record;

      g_assert_cmpint (list->status, ==, 0);
      records = flctl_test_parse_array (list->out);
      g_assert_cmpuint (json_array_get_length (records), ==, 1);
      record = json_array_get_object_element (records, 0);
      g_assert_cmpint (json_object_get_int_member (record, "schema"), ==, 1);
      g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, flctl_test_pid (holder));

      g_assert_cmpint (status->status, ==, 0);
      status_records = flctl_test_parse_array (status->out);
      record = json_array_get_object_element (status_records, 0);
      g_assert_cmpint (json_object_get_int_member (record, "schema"), ==, 1);

      /* The same records, whichever the spelling (ages aside, which may tick). */
      if (first == NULL)
        first = g_strdup (json_object_get_string_member (record, "path"));
      g_assert_cmpstr (json_object_get_string_member (record, "path"), ==, first);
    }
  flctl_test_release (holder);
}

/* The members of each object of {"locks": [...]}, in order, and their JSON types, as one
 * string: "pid:int,path:string;" per lock. What two tools agree on when they print one shape. */
static char *
locks_shape (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GString) shape = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  JsonObject *root;
  JsonArray *locks;

  g_assert_true (json_parser_load_from_data (parser, json, -1, &error));
  g_assert_no_error (error);
  root = json_node_get_object (json_parser_get_root (parser));
  g_assert_nonnull (root);
  g_assert_cmpuint (json_object_get_size (root), ==, 1);
  locks = json_object_get_array_member (root, "locks");
  g_assert_nonnull (locks);
  for (guint i = 0; i < json_array_get_length (locks); i++)
    {
      JsonObject *lock = json_array_get_object_element (locks, i);
      g_autoptr(GList) members = json_object_get_members (lock);

      for (GList *l = members; l != NULL; l = l->next)
        {
          JsonNode *node = json_object_get_member (lock, l->data);

          g_string_append_printf (shape, "%s%s:%s", l != members ? "," : "", (char *) l->data,
                                  JSON_NODE_HOLDS_NULL (node) ? "null"
                                  : json_node_get_value_type (node) == G_TYPE_INT64 ? "int"
                                  : "string");
        }
      g_string_append_c (shape, ';');
    }
  return g_string_free (g_steal_pointer (&shape), FALSE);
}

/* `lslocks -J -o PID,PATH` and `flctl list --kernel -J -o PID,PATH` print one shape,
 * {"locks": [{"pid": N, "path": "..."}]}, for the same lock (flock(1)'s); -p picks it. */
static void
test_json_as_lslocks (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->dir, "flocked", NULL);
  g_autoptr(GSubprocess) flock_holder = NULL;
  g_autofree char *pid = NULL;
  g_autofree char *lslocks_out = NULL;
  g_autofree char *lslocks_shape = NULL;
  g_autofree char *flctl_shape = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(FlctlResult) flctl = NULL;
  g_autoptr(FlctlResult) files = NULL;

  if (!have_tool ("lslocks") || !have_tool ("flock"))
    return;
  g_assert_true (g_file_set_contents (file, "", 0, NULL));
  flock_holder = start_flock (file);
  /* flock(1) takes the lock and runs sh, which holds it on: the PID /proc/locks shows. */
  pid = g_strdup_printf ("%d", flctl_test_pid (flock_holder));
  {
    const char *argv[] = { "lslocks", "-J", "-o", "PID,PATH", "-p", pid, NULL };

    g_assert_cmpint (run_tool (&lslocks_out, argv), ==, 0);
  }
  flctl = flctl_test_run (0, NULL, "list", "--kernel", "-J", "-o", "PID,PATH", "-p", pid,
                          f->dir, NULL);
  g_assert_cmpint (flctl->status, ==, 0);
  lslocks_shape = locks_shape (lslocks_out);
  flctl_shape = locks_shape (flctl->out);
  g_assert_cmpstr (lslocks_shape, ==, "pid:int,path:string;");
  g_assert_cmpstr (flctl_shape, ==, lslocks_shape);
  expected = g_strdup_printf ("\"path\": \"%s\"", file);
  g_assert_nonnull (strstr (flctl->out, expected));

  /* list -J: the same shape of its own columns; "-" is null, as lslocks writes a missing value. */
  files = flctl_test_run (0, NULL, "list", "-J", "-o", "PID,PATH,HOST", f->dir, NULL);
  g_assert_cmpint (files->status, ==, 0);
  g_clear_pointer (&flctl_shape, g_free);
  flctl_shape = locks_shape (files->out);
  g_assert_cmpstr (flctl_shape, ==, "");   /* flock's file is no libfl lock */
  stop_flock (flock_holder);
}

/* lslocks' letters: -r raw, -n no headings, -u no truncation, --output-all, -p PID, -V; and
 * --help lists the columns with what they mean. */
static void
test_lslocks_letters (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *held = g_build_filename (f->dir, "held", NULL);
  g_autofree char *other = g_build_filename (f->dir, "other", NULL);
  g_autoptr(GSubprocess) holder = flctl_test_hold (held);
  g_autoptr(GSubprocess) other_holder = flctl_test_hold (other);
  g_autofree char *pid = g_strdup_printf ("%d", flctl_test_pid (holder));
  g_autofree char *expected = g_strdup_printf ("%s %s.lock\n", pid, held);
  g_autoptr(FlctlResult) letters = NULL;
  g_autoptr(FlctlResult) all = NULL;
  g_autoptr(FlctlResult) version = NULL;
  g_autoptr(FlctlResult) help = NULL;
  g_autoptr(FlctlResult) bad = NULL;
  g_autofree char *list = NULL;
  g_auto(GStrv) names = NULL;

  letters = flctl_test_run (0, NULL, "list", "-r", "-n", "-u", "-o", "PID,PATH", "-p", pid,
                            f->dir, NULL);
  g_assert_cmpint (letters->status, ==, 0);
  g_assert_cmpstr (letters->out, ==, expected);

  all = flctl_test_run (0, NULL, "list", "--output-all", "-p", pid, f->dir, NULL);
  g_assert_true (g_regex_match_simple ("^STATE +KIND +PID +PROCESS +LIVENESS +HOST +LEASE "
                                       "+WAITERS +AGE +PATH +TARGET\n", all->out, 0, 0));

  version = flctl_test_run (0, NULL, "-V", NULL);
  g_assert_cmpint (version->status, ==, 0);
  g_assert_true (g_str_has_prefix (version->out, "flctl "));

  /* Every column -o knows is in --help, with a description. */
  help = flctl_test_run (0, NULL, "list", "--help", NULL);
  bad = flctl_test_run (0, NULL, "list", "-o", "BOGUS", f->dir, NULL);
  list = g_strndup (strstr (bad->err, "the columns are: ") + strlen ("the columns are: "),
                    strcspn (strstr (bad->err, "the columns are: "), "\n")
                    - strlen ("the columns are: "));
  names = g_strsplit (list, ", ", -1);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *name = g_strstrip (g_strdup (names[i]));
      g_autofree char *line = g_strdup_printf ("\n  %s ", name);

      g_assert_nonnull (strstr (help->out, line));
    }
  g_assert_cmpuint (g_strv_length (names), ==, 11);

  flctl_test_release (holder);
  flctl_test_release (other_holder);
}

/* `flock -E 7 -w 0` on a held lock exits 7, and so does `flctl run -E 7 -w 0`; -n alike. */
static void
test_conflict_exit_code_as_flock (Fixture       *f,
                                  gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->dir, "flocked", NULL);
  g_autofree char *target = g_build_filename (f->dir, "target", NULL);
  const char *flock_argv[] = { "flock", "-E", "7", "-w", "0", file, "true", NULL };
  const char *flock_n_argv[] = { "flock", "-E", "7", "-n", file, "true", NULL };
  g_autoptr(GSubprocess) flock_holder = NULL;
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(FlctlResult) zero = NULL;
  g_autoptr(FlctlResult) no_wait = NULL;

  if (!have_tool ("flock"))
    return;
  g_assert_true (g_file_set_contents (file, "", 0, NULL));
  flock_holder = start_flock (file);
  g_assert_cmpint (run_tool (NULL, flock_argv), ==, 7);
  g_assert_cmpint (run_tool (NULL, flock_n_argv), ==, 7);
  stop_flock (flock_holder);

  holder = flctl_test_hold (target);
  zero = flctl_test_run (0, NULL, "run", "-E", "7", "-w", "0", target, "--", "true", NULL);
  g_assert_cmpint (zero->status, ==, 7);
  no_wait = flctl_test_run (0, NULL, "run", "--conflict-exit-code", "7", "-n", target, "--",
                            "true", NULL);
  g_assert_cmpint (no_wait->status, ==, 7);
  flctl_test_release (holder);
}

/* flock(1)'s script forms: `flock FILE -c 'LINE'` and `flock FILE COMMAND` (no "--"); flctl run
 * takes both, and gives the command line to the shell the same way. */
static void
test_run_as_flock (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *file = g_build_filename (f->dir, "flocked", NULL);
  g_autofree char *target = g_build_filename (f->dir, "target", NULL);
  const char *line = "echo \"$((6 * 7))\" $0";
  const char *flock_c[] = { "flock", file, "-c", line, NULL };
  const char *flock_plain[] = { "flock", file, "printf", "%s\\n", "-n", NULL };
  g_autofree char *flock_c_out = NULL;
  g_autofree char *flock_plain_out = NULL;
  g_autoptr(FlctlResult) flctl_c = NULL;
  g_autoptr(FlctlResult) flctl_c_first = NULL;
  g_autoptr(FlctlResult) flctl_plain = NULL;
  g_autoptr(FlctlResult) status = NULL;

  if (!have_tool ("flock"))
    return;
  g_assert_cmpint (run_tool (&flock_c_out, flock_c), ==, 0);
  g_assert_cmpint (run_tool (&flock_plain_out, flock_plain), ==, 0);

  flctl_c = flctl_test_run (0, NULL, "run", target, "-c", line, NULL);
  g_assert_cmpint (flctl_c->status, ==, 0);
  g_assert_cmpstr (flctl_c->out, ==, flock_c_out);
  flctl_c_first = flctl_test_run (0, NULL, "run", "-c", line, target, NULL);
  g_assert_cmpstr (flctl_c_first->out, ==, flock_c_out);
  /* The -n after COMMAND is COMMAND's argument, not flctl's (nor flock's) no-wait. */
  flctl_plain = flctl_test_run (0, NULL, "run", target, "printf", "%s\\n", "-n", NULL);
  g_assert_cmpint (flctl_plain->status, ==, 0);
  g_assert_cmpstr (flock_plain_out, ==, "-n\n");
  g_assert_cmpstr (flctl_plain->out, ==, flock_plain_out);

  /* The status of the shell's command is flctl's, as it is flock's. */
  status = flctl_test_run (0, NULL, "run", target, "-c", "exit 3", NULL);
  g_assert_cmpint (status->status, ==, 3);
}

/* lslocks --noheadings keeps libsmartcols' padding (a column is as wide as its header), so a
 * script takes one bare value with --raw; flctl status the same. */
static void
test_single_value (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "free", NULL);
  g_autoptr(FlctlResult) raw = NULL;
  g_autoptr(FlctlResult) padded = NULL;

  raw = flctl_test_run (0, NULL, "status", "-o", "PID", "--noheadings", "--raw", target, NULL);
  g_assert_cmpint (raw->status, ==, 0);
  g_assert_cmpstr (raw->out, ==, "-\n");
  padded = flctl_test_run (0, NULL, "status", "-o", "PID", "--noheadings", target, NULL);
  g_assert_cmpstr (padded->out, ==, "  -\n");
}

/* -w forever (and -w -1) waits past any deadline flctl has, until the holder lets go; a
 * word that is neither a number nor "forever" is still refused. */
static void
test_wait_forever (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "target", NULL);
  const char *spellings[] = { "forever", "-1" };

  for (gsize i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autoptr(GSubprocess) holder = flctl_test_hold (target);
      g_autoptr(GSubprocess) waiter = NULL;
      g_autofree char *waiting = NULL;
      g_autofree char *out = NULL;

      waiter = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                 "run", "-v", "-w", spellings[i], target, "--", "echo", "got it",
                                 NULL);
      waiting = flctl_test_read_until (g_subprocess_get_stderr_pipe (waiter), "waiting for",
                                       FLCTL_TEST_TIMEOUT_MS);
      g_assert_nonnull (waiting);
      flctl_test_release (holder);
      out = flctl_test_read_line (g_subprocess_get_stdout_pipe (waiter), FLCTL_TEST_TIMEOUT_MS);
      g_assert_cmpstr (out, ==, "got it");
      g_assert_cmpint (flctl_test_wait (waiter, FLCTL_TEST_TIMEOUT_MS), ==, 0);
    }

  {
    g_autoptr(FlctlResult) bad = flctl_test_run (0, NULL, "run", "-w", "always", target, "--",
                                                 "true", NULL);

    g_assert_cmpint (bad->status, ==, 2);
    g_assert_nonnull (strstr (bad->err, "'always'"));
  }
}

/* `flctl run T.lock` warns that T was probably meant, and still runs; a target does not. */
static void
test_run_warns_on_lock_file (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "data", NULL);
  g_autofree char *lock = g_build_filename (f->dir, "data.lock", NULL);
  g_autofree char *meant = g_strdup_printf ("give '%s'", target);
  g_autoptr(FlctlResult) warned = NULL;
  g_autoptr(FlctlResult) quiet = NULL;

  warned = flctl_test_run (0, NULL, "run", lock, "--", "echo", "ran", NULL);
  g_assert_cmpint (warned->status, ==, 0);
  g_assert_cmpstr (warned->out, ==, "ran\n");
  g_assert_nonnull (strstr (warned->err, "warning"));
  g_assert_nonnull (strstr (warned->err, meant));

  quiet = flctl_test_run (0, NULL, "run", target, "--", "echo", "ran", NULL);
  g_assert_cmpint (quiet->status, ==, 0);
  g_assert_cmpstr (quiet->err, ==, "");
}

static gboolean
is_ascii (const char *text)
{
  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    if (*p >= 0x80)
      return FALSE;
  return TRUE;
}

/* As cron runs it (LANG=C, no UTF-8): libfl's and GLib's quotes come out ASCII, not '?'. */
static void
test_c_locale_quotes (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "gone", "x", NULL);
  g_autofree char *quoted = g_strdup_printf ("\"%s/gone\"", f->dir);
  g_autofree char *saved_all = g_strdup (g_getenv ("LC_ALL"));
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(FlctlResult) option = NULL;

  /* flctl's environment is this process's, when it is spawned. */
  g_setenv ("LC_ALL", "C", TRUE);
  status = flctl_test_run (0, NULL, "status", missing, NULL);
  option = flctl_test_run (0, NULL, "run", "-E", "abc", missing, "--", "true", NULL);
  if (saved_all != NULL)
    g_setenv ("LC_ALL", saved_all, TRUE);
  else
    g_unsetenv ("LC_ALL");

  g_assert_cmpint (status->status, ==, 74);
  g_assert_true (is_ascii (status->err));
  g_assert_null (strchr (status->err, '?'));
  g_assert_nonnull (strstr (status->err, quoted));

  g_assert_cmpint (option->status, ==, 2);
  g_assert_true (is_ascii (option->err));
  g_assert_null (strchr (option->err, '?'));
  g_assert_nonnull (strstr (option->err, "\"abc\""));
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

#define ADD(path, func) \
  g_test_add ("/flctl/util-linux/" path, Fixture, NULL, flctl_dir_fixture_set_up, func, \
              flctl_dir_fixture_tear_down)
  ADD ("output-columns", test_output_columns);
  ADD ("status-columns", test_status_columns);
  ADD ("raw-escapes-as-lslocks", test_raw_escapes_as_lslocks);
  ADD ("raw-escapes-bytes", test_raw_escapes_bytes);
  ADD ("json-options", test_json_options);
  ADD ("conflict-exit-code-as-flock", test_conflict_exit_code_as_flock);
  ADD ("wait-forever", test_wait_forever);
  ADD ("run-as-flock", test_run_as_flock);
  ADD ("json-as-lslocks", test_json_as_lslocks);
  ADD ("lslocks-letters", test_lslocks_letters);
  ADD ("single-value", test_single_value);
  ADD ("run-warns-on-lock-file", test_run_warns_on_lock_file);
  ADD ("c-locale-quotes", test_c_locale_quotes);
#undef ADD

  return g_test_run ();
}
