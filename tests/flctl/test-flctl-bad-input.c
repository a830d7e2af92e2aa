/* test-flctl-bad-input.c: what an operator may get wrong, and what a hostile directory holds
 *
 * SIGINT and SIGTERM while waiting, and SIGTERM to a running `flctl run`, are tested in
 * test-flctl-run.c with the other behaviour of `run`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "flctl-test-util.h"

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = flctl_test_make_dir ();
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  flctl_test_remove_dir (f->dir);
  g_free (f->dir);
}

static void
test_unknown_option (Fixture       *f,
                     gconstpointer  data)
{
  const char *commands[] = { "run", "status", "list", "reclaim", "clean", "watch", "demo" };
  g_autoptr(FlctlResult) top = NULL;
  g_autoptr(FlctlResult) unknown_command = NULL;
  g_autoptr(FlctlResult) nothing = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, commands[i], "--bogus", f->dir,
                                                      NULL);
      g_autofree char *hint = g_strdup_printf ("flctl %s --help", commands[i]);

      g_assert_cmpint (result->status, ==, 2);
      g_assert_nonnull (strstr (result->err, "--bogus"));
      g_assert_nonnull (strstr (result->err, hint));
      g_assert_cmpstr (result->out, ==, "");
    }

  top = flctl_test_run (0, NULL, "--bogus", NULL);
  g_assert_cmpint (top->status, ==, 2);
  unknown_command = flctl_test_run (0, NULL, "frobnicate", NULL);
  g_assert_cmpint (unknown_command->status, ==, 2);
  g_assert_nonnull (strstr (unknown_command->err, "frobnicate"));
  nothing = flctl_test_run (0, NULL, "list", NULL);
  g_assert_cmpint (nothing->status, ==, 2);
}

/* Help is printed by flctl's main(), not by GOption (flctl-args.c turns GOption's off). */
static void
test_help (Fixture       *f,
           gconstpointer  data)
{
  const char * const no_args[] = { NULL };
  g_autoptr(FlctlResult) nothing = flctl_test_runv (0, NULL, no_args);
  g_autoptr(FlctlResult) long_help = flctl_test_run (0, NULL, "--help", NULL);
  g_autoptr(FlctlResult) short_help = flctl_test_run (0, NULL, "-h", NULL);
  g_autoptr(FlctlResult) help_list = flctl_test_run (0, NULL, "help", "list", NULL);
  g_autoptr(FlctlResult) list_help = flctl_test_run (0, NULL, "list", "-h", f->dir, NULL);

  /* flctl alone: the commands, on standard error, as a usage error. */
  g_assert_cmpint (nothing->status, ==, 2);
  g_assert_cmpstr (nothing->out, ==, "");
  g_assert_nonnull (strstr (nothing->err, "reclaim"));

  g_assert_cmpint (long_help->status, ==, 0);
  g_assert_nonnull (strstr (long_help->out, "Usage:"));
  g_assert_nonnull (strstr (long_help->out, "reclaim"));
  g_assert_cmpstr (short_help->out, ==, long_help->out);

  g_assert_cmpint (help_list->status, ==, 0);
  g_assert_nonnull (strstr (help_list->out, "flctl list"));
  g_assert_nonnull (strstr (help_list->out, "--recursive"));
  g_assert_cmpstr (list_help->out, ==, help_list->out);
  g_assert_cmpstr (list_help->err, ==, "");
}

/* Help on a command that does not exist is a usage error naming it, not flctl's help. */
static void
test_help_unknown_command (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(FlctlResult) bogus = flctl_test_run (0, NULL, "help", "bogus", NULL);

  g_assert_cmpint (bogus->status, ==, 2);
  g_assert_cmpstr (bogus->out, ==, "");
  g_assert_nonnull (strstr (bogus->err, "'bogus'"));
  g_assert_nonnull (strstr (bogus->err, "flctl --help"));
}

/* Values are bytes, as typed: one that is not text in the locale still gets flctl's own
 * message, naming the option. */
static void
test_undecodable_value (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "t", NULL);
  g_autofree char *lock = g_build_filename (f->dir, "t.lock", NULL);
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "run", "-w", "\xff", target, "--",
                                                  "true", NULL);

  g_assert_cmpint (result->status, ==, 2);
  g_assert_nonnull (strstr (result->err, "-w expects a number of seconds, not '\\xff'"));
  g_assert_true (g_utf8_validate (result->err, -1, NULL));
  g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
}

/* What was typed is quoted in the message, escaped: an escape sequence in an argument must
 * not reach the terminal (a title change, a cleared screen, colours), in flctl's own
 * messages, GOption's or libfl's. */
static void
test_escape_sequences (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "t", NULL);
  /* argv NULL-terminated: room for one more than the longest */
  struct { const char *argv[7]; const char *shown; } cases[] = {
    { { "run", "-w", "\033[2J", target, "--", "true" }, "not '\\x1b[2J'" },
    { { "run", "--\033[31m", target, "--", "true" }, "--\\x1b[31m" },
    { { "\033]0;owned\a" }, "unknown command '\\x1b]0;owned\\x07'" },
    { { "status", "--\xc2\x9b" "31m", target }, "--\\u009b31m" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(FlctlResult) result = flctl_test_runv (0, NULL, cases[i].argv);

      g_assert_cmpint (result->status, ==, 2);
      g_assert_nonnull (strstr (result->err, cases[i].shown));
      g_assert_null (strchr (result->err, '\033'));
      g_assert_null (strstr (result->err, "\xc2\x9b"));
      g_assert_true (g_utf8_validate (result->err, -1, NULL));
    }

  /* The same for libfl's errors, which name the path they concern. */
  {
    g_autofree char *hostile = g_build_filename (f->dir, "\033[2Jgone", NULL);
    g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "list", hostile, NULL);

    g_assert_cmpint (result->status, !=, 0);
    g_assert_nonnull (strstr (result->err, "\\x1b[2Jgone"));
    g_assert_null (strchr (result->err, '\033'));
  }
}

/* As flock(1): the first word after TARGET that is not an option starts COMMAND, without
 * "--"; the options after it are COMMAND's (here echo's -n, not flctl's no-wait). */
static void
test_optional_separator (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "t", NULL);
  g_autofree char *lock = g_build_filename (f->dir, "t.lock", NULL);
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "run", target, "-w", "5", "echo",
                                                  "-n", "x", NULL);

  g_assert_cmpint (result->status, ==, 0);
  g_assert_cmpstr (result->out, ==, "x");
  g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
}

static void
test_missing_dir (Fixture       *f,
                  gconstpointer  data)
{
  const char *commands[] = { "list", "clean", "watch" };
  g_autofree char *missing = g_build_filename (f->dir, "no such dir", NULL);
  g_autofree char *lower = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autoptr(FlctlResult) result = NULL;

      if (g_str_equal (commands[i], "clean"))
        result = flctl_test_run (0, NULL, commands[i], "-y", missing, NULL);
      else
        result = flctl_test_run (0, NULL, commands[i], missing, NULL);
      g_assert_cmpint (result->status, ==, 74);
      g_assert_nonnull (strstr (result->err, missing));
      /* The system's words (list, clean) or libfl's directory model's (watch). */
      lower = g_ascii_strdown (result->err, -1);
      g_assert_nonnull (strstr (lower, "no such"));
      g_clear_pointer (&lower, g_free);
    }
}

/* util-linux's case: "flctl list: cannot read ...", never "flctl list: Cannot read ...". */
static void
test_message_case (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "gone", NULL);
  g_autofree char *expected = g_strdup_printf ("flctl list: cannot read the directory “%s”",
                                               missing);
  g_autoptr(FlctlResult) result = NULL;
  g_autoptr(FlctlResult) option = NULL;

  result = flctl_test_run (0, NULL, "list", missing, NULL);
  g_assert_cmpint (result->status, ==, 74);
  g_assert_true (g_str_has_prefix (result->err, expected));
  option = flctl_test_run (0, NULL, "list", "--bogus", f->dir, NULL);
  g_assert_true (g_str_has_prefix (option->err, "flctl list: unknown option --bogus"));
}

/* `status DIR`: the lock of the directory itself, and a pointer to `list DIR`. */
static void
test_status_dir (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *hint = g_strdup_printf ("'flctl list %s' lists the locks in it", f->dir);
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "status", f->dir, NULL);

  g_assert_cmpint (result->status, ==, 0);
  g_assert_nonnull (strstr (result->out, "unlocked"));
  g_assert_nonnull (strstr (result->err, hint));
}

/* A lock in a directory that does not exist: the operator reads what to do, not the name of
 * a C function. */
static void
test_missing_lock_dir (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "no such dir", NULL);
  g_autofree char *target = g_build_filename (missing, "job", NULL);
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "run", "-n", target, "--", "true",
                                                  NULL);

  g_assert_cmpint (result->status, ==, 74);
  g_assert_nonnull (strstr (result->err, missing));
  g_assert_nonnull (strstr (result->err, "does not exist"));
  g_assert_null (strstr (result->err, "fl_"));
  g_assert_null (strstr (result->err, "_set_"));
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));
}

static void
test_unreadable_dir (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *closed = g_build_filename (f->dir, "closed", NULL);
  g_autoptr(FlctlResult) result = NULL;

  g_assert_cmpint (g_mkdir (closed, 0), ==, 0);
  if (getuid () != 0 && access (closed, R_OK) == 0)
    {
      g_test_skip ("this user can read a directory with mode 0");
      return;
    }
  /* As root, flctl runs unprivileged, for whom mode 0 means what it says. */
  if (!flctl_test_check_unprivileged ())
    return;
  result = flctl_test_run (FLCTL_RUN_UNPRIVILEGED, NULL, "list", closed, NULL);
  g_assert_cmpint (result->status, ==, 74);
  g_assert_nonnull (strstr (result->err, closed));
  g_assert_nonnull (strstr (result->err, g_strerror (EACCES)));
}

/* Makes @levels nested directories "d" under @dir, with a lock (naming this live process) at
 * the top and one at the bottom; returns the deepest directory. */
static char *
make_deep_tree (const char *dir,
                guint       levels,
                char      **top_lock,
                char      **bottom_lock)
{
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  GString *deepest = g_string_new (dir);

  for (guint i = 0; i < levels; i++)
    g_string_append (deepest, "/d");
  g_assert_cmpint (g_mkdir_with_parents (deepest->str, 0755), ==, 0);
  *top_lock = g_build_filename (dir, "top.lock", NULL);
  *bottom_lock = g_build_filename (deepest->str, "bottom.lock", NULL);
  g_assert_true (g_file_set_contents (*top_lock, pid, -1, NULL));
  g_assert_true (g_file_set_contents (*bottom_lock, pid, -1, NULL));
  return g_string_free (deepest, FALSE);
}

/* list -R below the 64 levels it descends: what it could read is listed, the directory it did
 * not read is named, and the status says the listing is incomplete (74). */
static void
test_list_too_deep (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *top_lock = NULL;
  g_autofree char *bottom_lock = NULL;
  g_autofree char *deepest = make_deep_tree (f->dir, 65, &top_lock, &bottom_lock);
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "list", "--records", "-R", f->dir,
                                                  NULL);
  g_autoptr(JsonArray) records = NULL;

  g_assert_cmpint (result->status, ==, 74);
  records = flctl_test_parse_array (result->out);
  g_assert_nonnull (flctl_test_find_record (records, top_lock));
  g_assert_null (flctl_test_find_record (records, bottom_lock));
  g_assert_nonnull (strstr (result->err, deepest));
}

/* list -R with too few descriptors to open every subdirectory (RLIMIT_NOFILE lowered before
 * exec): each directory it could not open is named with the system's reason, the rest is
 * listed, and the status is 74. */
static void
test_list_emfile (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *top_lock = NULL;
  g_autofree char *bottom_lock = NULL;
  g_autofree char *deepest = make_deep_tree (f->dir, 40, &top_lock, &bottom_lock);
  const char *argv[] = {
    "sh", "-c", "ulimit -n 24 && exec \"$FLCTL\" list --records -R \"$0\"", f->dir, NULL
  };
  g_autoptr(GSubprocess) list = flctl_test_spawnv (G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                   G_SUBPROCESS_FLAGS_STDERR_PIPE, argv);
  g_autoptr(GBytes) out = NULL;
  g_autoptr(GBytes) err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) records = NULL;
  g_autofree char *out_text = NULL;
  g_autofree char *err_text = NULL;

  g_assert_true (g_file_test (deepest, G_FILE_TEST_IS_DIR));  /* 40 levels, more than 24 fds */
  g_subprocess_communicate (list, NULL, NULL, &out, &err, &error);
  g_assert_no_error (error);
  out_text = g_strndup (g_bytes_get_data (out, NULL), g_bytes_get_size (out));
  err_text = g_strndup (g_bytes_get_data (err, NULL), g_bytes_get_size (err));
  g_test_message ("stdout: %s\nstderr: %s", out_text, err_text);
  g_assert_cmpint (flctl_test_wait (list, FLCTL_TEST_TIMEOUT_MS), ==, 74);
  records = flctl_test_parse_array (out_text);
  g_assert_nonnull (flctl_test_find_record (records, top_lock));
  g_assert_null (flctl_test_find_record (records, bottom_lock));
  g_assert_nonnull (strstr (err_text, g_strerror (EMFILE)));
  g_assert_nonnull (strstr (err_text, f->dir));
}

typedef enum { ODD_SYMLINK, ODD_FIFO, ODD_DIRECTORY } OddKind;

/* A lock path that is not a regular file: reported as foreign, never followed, opened (a FIFO
 * would block) or removed. */
static void
test_foreign_lock (Fixture       *f,
                   gconstpointer  data)
{
  OddKind kind = GPOINTER_TO_INT (data);
  g_autofree char *target = g_build_filename (f->dir, "job", NULL);
  g_autofree char *lock = g_build_filename (f->dir, "job.lock", NULL);
  g_autofree char *victim = g_build_filename (f->dir, "victim", NULL);
  g_autofree char *victim_content = NULL;
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(FlctlResult) reclaim = NULL;
  g_autoptr(FlctlResult) run = NULL;
  g_autoptr(FlctlResult) clean = NULL;
  g_autoptr(JsonArray) array = NULL;
  JsonObject *record;
  struct stat before, after;

  g_assert_true (g_file_set_contents (victim, "1", -1, NULL));
  switch (kind)
    {
    case ODD_SYMLINK:
      g_assert_cmpint (symlink (victim, lock), ==, 0);
      break;
    case ODD_FIFO:
      g_assert_cmpint (mkfifo (lock, 0644), ==, 0);
      break;
    case ODD_DIRECTORY:
    default:
      g_assert_cmpint (g_mkdir (lock, 0755), ==, 0);
      break;
    }
  g_assert_cmpint (lstat (lock, &before), ==, 0);

  status = flctl_test_run (0, NULL, "status", "--records", lock, target, NULL);
  g_assert_cmpint (status->status, ==, 0);
  array = flctl_test_parse_array (status->out);
  g_assert_cmpuint (json_array_get_length (array), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      record = json_array_get_object_element (array, i);
      g_assert_cmpstr (json_object_get_string_member (record, "path"), ==, lock);
      g_assert_cmpstr (json_object_get_string_member (record, "kind"), ==, "foreign");
      g_assert_false (json_object_get_boolean_member (record, "stale"));
    }

  reclaim = flctl_test_run (0, NULL, "reclaim", "-y", lock, NULL);
  g_assert_cmpint (reclaim->status, ==, 1);
  g_assert_nonnull (strstr (reclaim->err, "not a regular file"));

  run = flctl_test_run (0, NULL, "run", "-n", target, "--", "true", NULL);
  g_assert_cmpint (run->status, ==, 74);
  g_assert_nonnull (strstr (run->err, lock));

  /* Nothing for clean to do: a foreign file is never an orphan. */
  clean = flctl_test_run (0, NULL, "clean", "-y", f->dir, NULL);
  g_assert_cmpint (clean->status, ==, 0);
  g_assert_nonnull (strstr (clean->err, "nothing to clean"));

  /* Untouched, and so is what the symlink points to. */
  g_assert_cmpint (lstat (lock, &after), ==, 0);
  g_assert_cmpint (after.st_ino, ==, before.st_ino);
  g_assert_cmpint (after.st_mode, ==, before.st_mode);
  victim_content = flctl_test_read_file (victim);
  g_assert_cmpstr (victim_content, ==, "1");
}

/* Spaces and a newline in a name: exact in JSON, one line per entry for people. */
static void
test_odd_names (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "my report\nfinal", NULL);
  g_autofree char *lock = g_strconcat (target, ".lock", NULL);
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(FlctlResult) run = NULL;
  g_autoptr(FlctlResult) json = NULL;
  g_autoptr(FlctlResult) human = NULL;
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(JsonArray) array = NULL;
  g_auto(GStrv) lines = NULL;
  JsonObject *record;

  run = flctl_test_run (0, NULL, "run", target, "--", "test", "-f", lock, NULL);
  g_assert_cmpint (run->status, ==, 0);
  g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));

  holder = flctl_test_hold (target);

  json = flctl_test_run (0, NULL, "list", "--records", f->dir, NULL);
  g_assert_cmpint (json->status, ==, 0);
  array = flctl_test_parse_array (json->out);
  g_assert_cmpuint (json_array_get_length (array), ==, 1);
  record = flctl_test_find_record (array, lock);
  g_assert_nonnull (record);
  g_assert_cmpstr (json_object_get_string_member (record, "target"), ==, target);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, "held");

  human = flctl_test_run (0, NULL, "list", f->dir, NULL);
  g_assert_cmpint (human->status, ==, 0);
  lines = g_strsplit (human->out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_nonnull (strstr (lines[1], "my report\\nfinal.lock"));

  status = flctl_test_run (0, NULL, "status", target, NULL);
  g_assert_cmpint (status->status, ==, 0);
  g_assert_nonnull (strstr (status->out, "held"));

  flctl_test_release (holder);
  g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
}

/* A holder whose /proc entry this user may not fully read (PID 1, for flctl run without
 * privileges): flctl still reports it alive and leaves it alone. */
static void
test_unreadable_proc (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *lock = g_build_filename (f->dir, "init.lock", NULL);
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(FlctlResult) reclaim = NULL;
  g_autoptr(JsonArray) array = NULL;
  JsonObject *record;

  if (getuid () != 0 && access ("/proc/1/environ", R_OK) == 0)
    {
      g_test_skip ("this user can read all of /proc/1");
      return;
    }
  if (!flctl_test_check_unprivileged ())
    return;
  g_assert_true (g_file_set_contents (lock, "1", -1, NULL));
  g_assert_cmpint (chmod (lock, 0644), ==, 0);

  status = flctl_test_run (FLCTL_RUN_UNPRIVILEGED, NULL, "status", "--records", lock, NULL);
  g_assert_cmpint (status->status, ==, 0);
  array = flctl_test_parse_array (status->out);
  record = json_array_get_object_element (array, 0);
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (record, "liveness"), ==, "alive");
  g_assert_false (json_object_get_boolean_member (record, "stale"));

  reclaim = flctl_test_run (FLCTL_RUN_UNPRIVILEGED, NULL, "reclaim", "-y", lock, NULL);
  g_assert_cmpint (reclaim->status, ==, 1);
  g_assert_true (g_file_test (lock, G_FILE_TEST_EXISTS));
}

/* A lock directory the user may not write: run says so, with the path and the reason. */
static void
test_unwritable_dir (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "job", NULL);
  g_autoptr(FlctlResult) result = NULL;

  if (!flctl_test_check_unprivileged ())
    return;
  g_assert_cmpint (chmod (f->dir, 0555), ==, 0);
  result = flctl_test_run (FLCTL_RUN_UNPRIVILEGED, NULL, "run", "-n", target, "--", "true",
                           NULL);
  g_assert_cmpint (chmod (f->dir, 0755), ==, 0);
  g_assert_cmpint (result->status, ==, 74);
  g_assert_nonnull (strstr (result->err, f->dir));
  g_assert_nonnull (strstr (result->err, g_strerror (EACCES)));
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

#define ADD(path, func, data) \
  g_test_add (path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  ADD ("/flctl/bad-input/unknown-option", test_unknown_option, NULL);
  ADD ("/flctl/bad-input/help", test_help, NULL);
  ADD ("/flctl/bad-input/help-unknown-command", test_help_unknown_command, NULL);
  ADD ("/flctl/bad-input/undecodable-value", test_undecodable_value, NULL);
  ADD ("/flctl/bad-input/escape-sequences", test_escape_sequences, NULL);
  ADD ("/flctl/bad-input/optional-separator", test_optional_separator, NULL);
  ADD ("/flctl/bad-input/message-case", test_message_case, NULL);
  ADD ("/flctl/bad-input/status-dir", test_status_dir, NULL);
  ADD ("/flctl/bad-input/missing-dir", test_missing_dir, NULL);
  ADD ("/flctl/bad-input/missing-lock-dir", test_missing_lock_dir, NULL);
  ADD ("/flctl/bad-input/unreadable-dir", test_unreadable_dir, NULL);
  ADD ("/flctl/bad-input/list-too-deep", test_list_too_deep, NULL);
  ADD ("/flctl/bad-input/list-emfile", test_list_emfile, NULL);
  ADD ("/flctl/bad-input/symlink-lock", test_foreign_lock, GINT_TO_POINTER (ODD_SYMLINK));
  ADD ("/flctl/bad-input/fifo-lock", test_foreign_lock, GINT_TO_POINTER (ODD_FIFO));
  ADD ("/flctl/bad-input/directory-lock", test_foreign_lock, GINT_TO_POINTER (ODD_DIRECTORY));
  ADD ("/flctl/bad-input/spaces-and-newlines", test_odd_names, NULL);
  ADD ("/flctl/bad-input/unreadable-proc", test_unreadable_proc, NULL);
  ADD ("/flctl/bad-input/unwritable-dir", test_unwritable_dir, NULL);
#undef ADD

  return g_test_run ();
}
