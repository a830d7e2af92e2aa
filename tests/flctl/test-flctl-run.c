/* test-flctl-run.c: `flctl run` through the built binary
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "flctl-test-util.h"

#define LOOPS 8
#define ROUNDS 25

typedef struct
{
  char *dir;
  char *target;
  char *lock;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  f->dir = flctl_test_make_dir ();
  f->target = g_build_filename (f->dir, "job", NULL);
  f->lock = g_strconcat (f->target, ".lock", NULL);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  flctl_test_remove_dir (f->dir);
  g_free (f->dir);
  g_free (f->target);
  g_free (f->lock);
}

/* Nothing but the lock itself may be left: no temp, no graveyard. */
static void
assert_no_leftovers (Fixture *f)
{
  g_autoptr(GDir) dir = g_dir_open (f->dir, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_assert_false (g_str_has_suffix (name, ".tmp"));
      g_assert_null (strstr (name, ".lock.gy."));
    }
}

/* A holder whose command reports its PID and waits for a line on its stdin. */
static GSubprocess *
start_running_holder (Fixture *f,
                      int     *command_pid)
{
  GSubprocess *holder = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                          G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                          "run", f->target, "--",
                                          "sh", "-c", "echo $$; read line", NULL);
  g_autofree char *line = flctl_test_read_line (g_subprocess_get_stdout_pipe (holder),
                                                FLCTL_TEST_TIMEOUT_MS);

  g_assert_nonnull (line);
  if (command_pid != NULL)
    *command_pid = atoi (line);
  return holder;
}

static void
finish_running_holder (GSubprocess *holder)
{
  flctl_test_write (holder, "done\n");
  g_assert_cmpint (flctl_test_wait (holder, FLCTL_TEST_TIMEOUT_MS), ==, 0);
}

static void
test_run_serialises (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *counter = g_build_filename (f->dir, "counter", NULL);
  g_autofree char *increment = g_build_filename (f->dir, "increment.sh", NULL);
  g_autofree char *loop = g_build_filename (f->dir, "loop.sh", NULL);
  g_autofree char *rounds = g_strdup_printf ("%d", ROUNDS);
  g_autofree char *final = NULL;
  GSubprocess *loops[LOOPS];

  /* Read, then write later: without the lock, concurrent loops lose increments. */
  g_assert_true (g_file_set_contents (counter, "0", -1, NULL));
  g_assert_true (g_file_set_contents (increment,
                                      "n=$(cat \"$1\")\n"
                                      "echo $((n + 1)) > \"$1\"\n", -1, NULL));
  g_assert_true (g_file_set_contents (loop,
                                      "i=0\n"
                                      "while [ $i -lt \"$3\" ]; do\n"
                                      "  \"$FLCTL\" run -w 120 \"$1\" -- sh \"$4\" \"$2\" || exit 1\n"
                                      "  i=$((i + 1))\n"
                                      "done\n", -1, NULL));
  for (int i = 0; i < LOOPS; i++)
    {
      const char *argv[] = { "sh", loop, f->target, counter, rounds, increment, NULL };

      loops[i] = flctl_test_spawnv (G_SUBPROCESS_FLAGS_NONE, argv);
    }
  for (int i = 0; i < LOOPS; i++)
    {
      g_assert_cmpint (flctl_test_wait (loops[i], 10 * FLCTL_TEST_TIMEOUT_MS), ==, 0);
      g_object_unref (loops[i]);
    }

  final = flctl_test_read_file (counter);
  g_assert_cmpint (atoi (final), ==, LOOPS * ROUNDS);
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
  assert_no_leftovers (f);
}

static void
test_run_exit_status (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(FlctlResult) exited = NULL;
  g_autoptr(FlctlResult) killed = NULL;
  g_autoptr(FlctlResult) missing = NULL;
  g_autoptr(FlctlResult) no_token = NULL;
  g_autoptr(FlctlResult) inside = NULL;

  exited = flctl_test_run (0, NULL, "run", f->target, "--", "sh", "-c", "exit 42", NULL);
  g_assert_cmpint (exited->status, ==, 42);

  /* The command dies of SIGTERM: so does flctl, after releasing the lock. */
  killed = flctl_test_run (0, NULL, "run", f->target, "--", "sh", "-c", "kill -TERM $$", NULL);
  g_assert_cmpint (killed->status, ==, 128 + SIGTERM);

  /* A file lock has no fencing token to give (docs/fencing.md); --lost-signal is accepted
   * by name and number. */
  no_token = flctl_test_run (0, NULL, "run", "--lost-signal", "SIGUSR1", f->target, "--", "sh",
                             "-c", "test -z \"${FL_FENCING_TOKEN+set}\"", NULL);
  g_assert_cmpint (no_token->status, ==, 0);

  missing = flctl_test_run (0, NULL, "run", f->target, "--", "/nonexistent/command", NULL);
  g_assert_cmpint (missing->status, ==, 127);
  g_assert_nonnull (strstr (missing->err, "/nonexistent/command"));

  /* The command runs while the lock exists, and its data reaches stdout untouched. */
  inside = flctl_test_run (0, NULL, "run", f->target, "--", "cat", f->lock, NULL);
  g_assert_cmpint (inside->status, ==, 0);
  g_assert_cmpint (atoi (inside->out), >, 0);

  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
  assert_no_leftovers (f);
}

/* The command inherits a descriptor of the lock file, as flock(1) gives its command, so that
 * the kernel lock lives as long as the command does, whatever happens to flctl. */
static void
test_run_fd_inherited (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(GDir) fds = NULL;
  g_autofree char *fd_dir = NULL;
  g_autofree char *content = NULL;
  g_autofree char *expected = NULL;
  struct stat lock_st;
  const char *name;
  int command_pid = 0;
  guint checked = 0;
  guint of_lock = 0;

  holder = start_running_holder (f, &command_pid);
  g_assert_cmpint (stat (f->lock, &lock_st), ==, 0);

  /* The holder is flctl itself, not the command. */
  content = flctl_test_read_file (f->lock);
  expected = g_strdup_printf ("%d", flctl_test_pid (holder));
  g_assert_cmpstr (content, ==, expected);

  fd_dir = g_strdup_printf ("/proc/%d/fd", command_pid);
  fds = g_dir_open (fd_dir, 0, NULL);
  g_assert_nonnull (fds);
  while ((name = g_dir_read_name (fds)) != NULL)
    {
      g_autofree char *fd_path = g_build_filename (fd_dir, name, NULL);
      struct stat st;

      if (stat (fd_path, &st) != 0)
        continue;
      if (st.st_dev == lock_st.st_dev && st.st_ino == lock_st.st_ino)
        of_lock++;
      checked++;
    }
  g_assert_cmpuint (of_lock, ==, 1);
  g_assert_cmpuint (checked, >=, 4);

  finish_running_holder (holder);
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
}

/* flctl_test_start_orphaned_command() on the fixture's target. */
static int
start_orphaned_command (Fixture      *f,
                        GSubprocess **runner,
                        int          *flctl_pid)
{
  return flctl_test_start_orphaned_command (f->target, runner, flctl_pid);
}

/* flctl SIGKILLed (or killed by any signal it cannot pass on) while its command runs: the lock
 * lives as long as the command, as with flock(1), then is free. */
static void
test_run_lock_outlives_flctl (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GSubprocess) runner = NULL;
  g_autoptr(FlctlResult) refused = NULL;
  g_autoptr(FlctlResult) again = NULL;
  g_autoptr(FlctlResult) after = NULL;
  int command_pid = start_orphaned_command (f, &runner, NULL);

  refused = flctl_test_run (0, NULL, "run", "-n", f->target, "--", "true", NULL);
  g_assert_cmpint (refused->status, ==, 75);
  again = flctl_test_run (0, NULL, "run", "-n", f->target, "--", "true", NULL);
  g_assert_cmpint (again->status, ==, 75);

  /* The command still reads the test's pipe, through the dead flctl's stdin. */
  flctl_test_write (runner, "done\n");
  g_assert_true (flctl_test_wait_pid_gone (command_pid, FLCTL_TEST_TIMEOUT_MS));

  after = flctl_test_run (0, NULL, "run", "-n", f->target, "--", "true", NULL);
  g_assert_cmpint (after->status, ==, 0);
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
  assert_no_leftovers (f);
}

/* What status says of such a lock: held (the kernel lock is the command's), by flctl's PID. */
static void
test_run_status_after_flctl_killed (Fixture       *f,
                                    gconstpointer  data)
{
  g_autoptr(GSubprocess) runner = NULL;
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(JsonArray) records = NULL;
  JsonObject *record;
  g_autoptr(FlctlResult) human = NULL;
  g_autoptr(FlctlResult) reclaim = NULL;
  g_autofree char *holder_line = NULL;
  g_autofree char *kill_keeper = NULL;
  int flctl_pid = 0;
  int command_pid = start_orphaned_command (f, &runner, &flctl_pid);

  holder_line = g_strdup_printf ("PID %d, exited; the lock is kept by PID %d (sh)", flctl_pid,
                                 command_pid);
  kill_keeper = g_strdup_printf ("kill %d\n", command_pid);
  status = flctl_test_run (0, NULL, "status", "--records", f->target, NULL);
  g_assert_cmpint (status->status, ==, 0);
  records = flctl_test_parse_array (status->out);
  g_assert_cmpuint (json_array_get_length (records), ==, 1);
  record = json_array_get_object_element (records, 0);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, "held");
  g_assert_false (json_object_get_boolean_member (record, "stale"));
  g_assert_true (json_object_get_boolean_member (record, "kernel_lock"));
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, flctl_pid);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (record, "reason"), "held"));
  g_assert_nonnull (strstr (json_object_get_string_member (record, "reason"), "inherited"));

  /* The holder is said to have exited, and the command that keeps the lock is named. */
  g_assert_true (json_object_get_boolean_member (record, "holder_exited"));
  g_assert_cmpint (json_object_get_int_member (record, "keeper_pid"), ==, command_pid);
  g_assert_cmpstr (json_object_get_string_member (record, "keeper_process"), ==, "sh");
  human = flctl_test_run (0, NULL, "status", f->target, NULL);
  g_assert_cmpint (human->status, ==, 0);
  g_assert_nonnull (strstr (human->out, holder_line));
  g_assert_null (strstr (human->out, "alive"));

  /* reclaim --force cannot end it, and says what will. */
  reclaim = flctl_test_run (0, NULL, "reclaim", "--force", "-y", f->lock, NULL);
  g_assert_cmpint (reclaim->status, ==, 1);
  g_assert_nonnull (strstr (reclaim->err, kill_keeper));
  g_assert_true (g_file_test (f->lock, G_FILE_TEST_EXISTS));

  flctl_test_write (runner, "done\n");
  g_assert_true (flctl_test_wait_pid_gone (command_pid, FLCTL_TEST_TIMEOUT_MS));
}

/* While flctl lives, status names it and the command it runs. */
static void
test_run_status_names_command (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(GSubprocess) holder = start_running_holder (f, NULL);
  g_autoptr(FlctlResult) status = NULL;
  g_autoptr(JsonArray) records = NULL;
  JsonObject *record;
  const char *cmdline;

  status = flctl_test_run (0, NULL, "status", "--records", f->target, NULL);
  g_assert_cmpint (status->status, ==, 0);
  records = flctl_test_parse_array (status->out);
  record = json_array_get_object_element (records, 0);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, "held");
  g_assert_cmpstr (json_object_get_string_member (record, "process"), ==, "flctl");
  cmdline = json_object_get_string_member (record, "cmdline");
  g_assert_nonnull (cmdline);
  g_assert_nonnull (strstr (cmdline, "run"));
  g_assert_nonnull (strstr (cmdline, "echo $$; read line"));

  finish_running_holder (holder);
}

/* A signal ignored when flctl started (trap '' HUP, nohup) stays ignored in the command, as
 * flock(1) leaves it. */
static void
test_run_keeps_ignored_signals (Fixture       *f,
                                gconstpointer  data)
{
  const char *argv[] = {
    "sh", "-c", "trap '' HUP; exec \"$FLCTL\" run \"$0\" -- sh -c 'kill -HUP $$; echo alive'",
    f->target, NULL
  };
  g_autoptr(GSubprocess) runner = flctl_test_spawnv (G_SUBPROCESS_FLAGS_STDOUT_PIPE, argv);
  g_autofree char *line = flctl_test_read_line (g_subprocess_get_stdout_pipe (runner),
                                                FLCTL_TEST_TIMEOUT_MS);

  g_assert_cmpstr (line, ==, "alive");
  g_assert_cmpint (flctl_test_wait (runner, FLCTL_TEST_TIMEOUT_MS), ==, 0);
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
  assert_no_leftovers (f);
}

static void
test_run_busy (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GSubprocess) holder = start_running_holder (f, NULL);
  g_autofree char *holder_pid = g_strdup_printf ("PID %d (flctl)", flctl_test_pid (holder));
  g_autoptr(FlctlResult) no_wait = NULL;
  g_autoptr(FlctlResult) timed_out = NULL;
  g_autoptr(FlctlResult) custom = NULL;

  no_wait = flctl_test_run (0, NULL, "run", "-n", f->target, "--", "true", NULL);
  g_assert_cmpint (no_wait->status, ==, 75);
  g_assert_nonnull (strstr (no_wait->err, holder_pid));
  g_assert_cmpstr (no_wait->out, ==, "");

  timed_out = flctl_test_run (0, NULL, "run", "-w", "0.2", f->target, "--", "true", NULL);
  g_assert_cmpint (timed_out->status, ==, 75);
  g_assert_nonnull (strstr (timed_out->err, "gave up after 0.2 s"));
  g_assert_nonnull (strstr (timed_out->err, holder_pid));
  g_assert_nonnull (strstr (timed_out->err, " for "));

  custom = flctl_test_run (0, NULL, "run", "-n", "-E", "9", f->target, "--", "true", NULL);
  g_assert_cmpint (custom->status, ==, 9);

  finish_running_holder (holder);
  assert_no_leftovers (f);
}

static void
test_run_waits (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GSubprocess) holder = start_running_holder (f, NULL);
  g_autoptr(GSubprocess) waiter = NULL;
  g_autofree char *waiting = NULL;
  g_autofree char *out = NULL;

  waiter = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                             "run", "-v", "-w", "60", f->target, "--", "echo", "second", NULL);
  waiting = flctl_test_read_until (g_subprocess_get_stderr_pipe (waiter), "waiting for",
                                   FLCTL_TEST_TIMEOUT_MS);
  g_assert_nonnull (waiting);

  finish_running_holder (holder);
  out = flctl_test_read_line (g_subprocess_get_stdout_pipe (waiter), FLCTL_TEST_TIMEOUT_MS);
  g_assert_cmpstr (out, ==, "second");
  g_assert_cmpint (flctl_test_wait (waiter, FLCTL_TEST_TIMEOUT_MS), ==, 0);
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
}

/* SIGINT (or SIGTERM) while waiting: flctl dies of it, leaving no lock and no temp file, and
 * the holder's lock untouched. */
static void
test_run_signal_while_waiting (Fixture       *f,
                               gconstpointer  data)
{
  int signo = GPOINTER_TO_INT (data);
  g_autoptr(GSubprocess) holder = start_running_holder (f, NULL);
  g_autoptr(GSubprocess) waiter = NULL;
  g_autofree char *waiting = NULL;
  g_autofree char *content = NULL;
  g_autofree char *expected = g_strdup_printf ("%d", flctl_test_pid (holder));

  waiter = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDERR_PIPE,
                             "run", "-v", "-w", "60", f->target, "--", "true", NULL);
  waiting = flctl_test_read_until (g_subprocess_get_stderr_pipe (waiter), "waiting for",
                                   FLCTL_TEST_TIMEOUT_MS);
  g_assert_nonnull (waiting);

  g_subprocess_send_signal (waiter, signo);
  g_assert_cmpint (flctl_test_wait (waiter, FLCTL_TEST_TIMEOUT_MS), ==, 128 + signo);

  content = flctl_test_read_file (f->lock);
  g_assert_cmpstr (content, ==, expected);
  assert_no_leftovers (f);

  finish_running_holder (holder);
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
  assert_no_leftovers (f);
}

/* SIGTERM to a running `flctl run`: the command gets it, the lock is released, flctl dies of
 * the command's signal. */
static void
test_run_sigterm_forwarded (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GSubprocess) runner = NULL;
  g_autofree char *line = NULL;
  int command_pid;

  runner = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                             "run", f->target, "--", "sh", "-c", "echo $$; exec sleep 600",
                             NULL);
  line = flctl_test_read_line (g_subprocess_get_stdout_pipe (runner), FLCTL_TEST_TIMEOUT_MS);
  g_assert_nonnull (line);
  command_pid = atoi (line);
  g_assert_cmpint (command_pid, >, 0);
  g_assert_true (g_file_test (f->lock, G_FILE_TEST_EXISTS));

  g_subprocess_send_signal (runner, SIGTERM);
  g_assert_cmpint (flctl_test_wait (runner, FLCTL_TEST_TIMEOUT_MS), ==, 128 + SIGTERM);

  /* flctl reaped its command before it exited. */
  g_assert_true (flctl_test_pid_gone (command_pid));
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
  assert_no_leftovers (f);
}

static void
test_run_usage (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(FlctlResult) unknown = NULL;
  g_autoptr(FlctlResult) no_separator = NULL;
  g_autoptr(FlctlResult) no_command = NULL;
  g_autoptr(FlctlResult) shell_and_command = NULL;
  g_autoptr(FlctlResult) both = NULL;
  g_autoptr(FlctlResult) bad_wait = NULL;
  g_autoptr(FlctlResult) bad_signal = NULL;
  g_autoptr(FlctlResult) help = NULL;

  unknown = flctl_test_run (0, NULL, "run", "--frobnicate", f->target, "--", "true", NULL);
  g_assert_cmpint (unknown->status, ==, 2);
  g_assert_nonnull (strstr (unknown->err, "--frobnicate"));

  no_separator = flctl_test_run (0, NULL, "run", f->target, NULL);
  g_assert_cmpint (no_separator->status, ==, 2);
  g_assert_nonnull (strstr (no_separator->err, "no COMMAND given"));

  no_command = flctl_test_run (0, NULL, "run", f->target, "--", NULL);
  g_assert_cmpint (no_command->status, ==, 2);

  shell_and_command = flctl_test_run (0, NULL, "run", "-c", "true", f->target, "true", NULL);
  g_assert_cmpint (shell_and_command->status, ==, 2);

  both = flctl_test_run (0, NULL, "run", "-n", "-w", "3", f->target, "--", "true", NULL);
  g_assert_cmpint (both->status, ==, 2);

  bad_wait = flctl_test_run (0, NULL, "run", "-w", "soon", f->target, "--", "true", NULL);
  g_assert_cmpint (bad_wait->status, ==, 2);
  g_assert_nonnull (strstr (bad_wait->err, "soon"));

  bad_signal = flctl_test_run (0, NULL, "run", "--lost-signal", "SIGNOPE", f->target, "--",
                               "true", NULL);
  g_assert_cmpint (bad_signal->status, ==, 2);
  g_assert_nonnull (strstr (bad_signal->err, "SIGNOPE"));

  help = flctl_test_run (0, NULL, "run", "--help", NULL);
  g_assert_cmpint (help->status, ==, 0);
  g_assert_nonnull (strstr (help->out, "TARGET [--] COMMAND"));
  g_assert_nonnull (strstr (help->out, "TARGET -c COMMAND"));

  /* Nothing ran, nothing was left. */
  g_assert_false (g_file_test (f->lock, G_FILE_TEST_EXISTS));
  assert_no_leftovers (f);
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

#define ADD(path, func, data) \
  g_test_add (path, Fixture, data, fixture_set_up, func, fixture_tear_down)
  ADD ("/flctl/run/serialises", test_run_serialises, NULL);
  ADD ("/flctl/run/exit-status", test_run_exit_status, NULL);
  ADD ("/flctl/run/fd-inherited", test_run_fd_inherited, NULL);
  ADD ("/flctl/run/lock-outlives-flctl", test_run_lock_outlives_flctl, NULL);
  ADD ("/flctl/run/status-after-flctl-killed", test_run_status_after_flctl_killed, NULL);
  ADD ("/flctl/run/status-names-command", test_run_status_names_command, NULL);
  ADD ("/flctl/run/keeps-ignored-signals", test_run_keeps_ignored_signals, NULL);
  ADD ("/flctl/run/busy", test_run_busy, NULL);
  ADD ("/flctl/run/waits", test_run_waits, NULL);
  ADD ("/flctl/run/sigint-while-waiting", test_run_signal_while_waiting,
       GINT_TO_POINTER (SIGINT));
  ADD ("/flctl/run/sigterm-while-waiting", test_run_signal_while_waiting,
       GINT_TO_POINTER (SIGTERM));
  ADD ("/flctl/run/sigterm-forwarded", test_run_sigterm_forwarded, NULL);
  ADD ("/flctl/run/usage", test_run_usage, NULL);
#undef ADD

  return g_test_run ();
}
