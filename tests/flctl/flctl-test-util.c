/* flctl-test-util.c: running the built flctl as a user would, with deadlines, never sleeps
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>

#include "flctl-test-util.h"

/* When this test runs under valgrind (build-aux/valgrind-tests), flctl runs under it too, and
 * any memory error or definite leak in flctl fails the test with status 99. */
static gboolean
under_valgrind (void)
{
  const char *preload = g_getenv ("LD_PRELOAD");

  return preload != NULL && strstr (preload, "vgpreload_memcheck") != NULL;
}

static void
add_flctl_command (GPtrArray *argv)
{
  if (under_valgrind ())
    {
      const char *suppressions = "/usr/share/glib-2.0/valgrind/glib.supp";

      g_ptr_array_add (argv, (gpointer) "valgrind");
      g_ptr_array_add (argv, (gpointer) "--quiet");
      g_ptr_array_add (argv, (gpointer) "--error-exitcode=99");
      g_ptr_array_add (argv, (gpointer) "--leak-check=full");
      g_ptr_array_add (argv, (gpointer) "--show-leak-kinds=definite");
      g_ptr_array_add (argv, (gpointer) "--errors-for-leak-kinds=definite");
      g_ptr_array_add (argv, (gpointer) "--child-silent-after-fork=yes");
      if (g_file_test (suppressions, G_FILE_TEST_EXISTS))
        g_ptr_array_add (argv, (gpointer) "--suppressions=/usr/share/glib-2.0/valgrind/glib.supp");
    }
  g_ptr_array_add (argv, (gpointer) flctl_test_exe ());
}

/* The suite's one multiplier, FL_TEST_TIME_SCALE (tests/helpers/fl-test-util.c reads it the
 * same way; this library does not link that one). */
gint64
flctl_test_scaled_ms (gint64 ms)
{
  const char *from_env = g_getenv ("FL_TEST_TIME_SCALE");
  double scale = from_env != NULL ? g_ascii_strtod (from_env, NULL) : 1.0;

  if (scale < 1.0 || scale > 1000.0)
    scale = 1.0;
  return (gint64) (ms * scale);
}

const char *
flctl_test_exe (void)
{
  const char *exe = g_getenv ("FLCTL");

  if (exe == NULL)
    g_error ("FLCTL is not set: run the tests with `meson test`");
  return exe;
}

char *
flctl_test_make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("flctl-test-XXXXXX", &error);

  g_assert_no_error (error);
  /* Traversable by the unprivileged user some tests run flctl as. */
  g_assert_cmpint (chmod (dir, 0755), ==, 0);
  return dir;
}

void
flctl_test_remove_dir (const char *dir)
{
  const char *argv[] = { "rm", "-rf", "--", dir, NULL };
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                &wait_status, &error);
  g_assert_no_error (error);
}

void
flctl_result_free (FlctlResult *result)
{
  g_free (result->out);
  g_free (result->err);
  g_free (result);
}

static gboolean
set_flag_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the default main context until *done or the deadline; FALSE on the deadline. */
static gboolean
iterate_until (gboolean *done,
               gint64    timeout_ms)
{
  gboolean timed_out = FALSE;
  guint timer = g_timeout_add ((guint) timeout_ms, set_flag_cb, &timed_out);

  while (!*done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timer);
  return *done;
}

static void
waited_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  *(gboolean *) user_data = TRUE;
}

static int
shell_status (GSubprocess *process)
{
  if (g_subprocess_get_if_signaled (process))
    return 128 + g_subprocess_get_term_sig (process);
  return g_subprocess_get_exit_status (process);
}

/* How a test run as root gets an unprivileged flctl. */
typedef enum
{
  UNPRIVILEGED_UNKNOWN,
  UNPRIVILEGED_ALREADY,    /* not root */
  UNPRIVILEGED_NOBODY,     /* uid and gid 65534 */
  UNPRIVILEGED_NO_CAPS,    /* still uid 0, without the capabilities that bypass permissions */
  UNPRIVILEGED_IMPOSSIBLE,
} Unprivileged;

static Unprivileged unprivileged = UNPRIVILEGED_UNKNOWN;

/* The child setups run between fork() and exec(): async-signal-safe calls only. */
static void
become_nobody_cb (gpointer user_data)
{
  if (setgroups (0, NULL) != 0 || setgid (65534) != 0 || setuid (65534) != 0)
    _exit (125);
}

/* Root keeps, across exec(), only the capabilities left in its bounding set. */
static void
drop_capabilities_cb (gpointer user_data)
{
  const int caps[] = { CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_SYS_PTRACE };

  prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (caps); i++)
    if (prctl (PR_CAPBSET_DROP, caps[i], 0, 0, 0) != 0)
      _exit (125);
}

static void
set_unprivileged (GSubprocessLauncher *launcher,
                  Unprivileged         how)
{
  if (how == UNPRIVILEGED_NOBODY)
    g_subprocess_launcher_set_child_setup (launcher, become_nobody_cb, NULL, NULL);
  else if (how == UNPRIVILEGED_NO_CAPS)
    g_subprocess_launcher_set_child_setup (launcher, drop_capabilities_cb, NULL, NULL);
}

static int
run_quietly (Unprivileged        how,
             const char * const *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  set_unprivileged (launcher, how);
  process = g_subprocess_launcher_spawnv (launcher, argv, NULL);
  return process != NULL ? flctl_test_wait (process, FLCTL_TEST_TIMEOUT_MS) : -1;
}

/* A way works when flctl starts that way and a directory of mode 0 is closed to it. */
static gboolean
unprivileged_works (Unprivileged how,
                    const char  *closed)
{
  const char *version[] = { flctl_test_exe (), "--version", NULL };
  const char *readable[] = { "test", "-r", closed, NULL };

  return run_quietly (how, version) == 0 && run_quietly (how, readable) == 1;
}

/* As root, the tests that need an unprivileged flctl run it as nobody, or, when nobody cannot
 * reach the build tree (under /root, say), as root without the capabilities that bypass file
 * permissions. They skip when neither works. */
gboolean
flctl_test_check_unprivileged (void)
{
  if (unprivileged == UNPRIVILEGED_UNKNOWN)
    {
      g_autofree char *dir = flctl_test_make_dir ();
      g_autofree char *closed = g_build_filename (dir, "closed", NULL);

      g_assert_cmpint (mkdir (closed, 0), ==, 0);
      if (getuid () != 0)
        unprivileged = UNPRIVILEGED_ALREADY;
      else if (unprivileged_works (UNPRIVILEGED_NOBODY, closed))
        unprivileged = UNPRIVILEGED_NOBODY;
      else if (unprivileged_works (UNPRIVILEGED_NO_CAPS, closed))
        unprivileged = UNPRIVILEGED_NO_CAPS;
      else
        unprivileged = UNPRIVILEGED_IMPOSSIBLE;
      flctl_test_remove_dir (dir);
      g_test_message ("unprivileged flctl: strategy %d", unprivileged);
    }
  if (unprivileged != UNPRIVILEGED_IMPOSSIBLE)
    return TRUE;
  g_test_skip ("cannot run $FLCTL without root's privileges here");
  return FALSE;
}

typedef struct
{
  gboolean  done;
  GBytes   *out;
  GBytes   *err;
  GError   *error;
} Communicate;

static void
communicated_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Communicate *c = user_data;

  g_subprocess_communicate_finish (G_SUBPROCESS (source), result, &c->out, &c->err, &c->error);
  c->done = TRUE;
}

static char *
bytes_to_string (GBytes *bytes)
{
  gsize size = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &size) : NULL;

  return g_strndup (data != NULL ? data : "", size);
}

FlctlResult *
flctl_test_runv (FlctlRunFlags       flags,
                 const char         *input,
                 const char * const *args)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GBytes) stdin_bytes = NULL;
  g_autofree char *input_path = NULL;
  Communicate c = { FALSE, NULL, NULL, NULL };
  FlctlResult *result;

  add_flctl_command (argv);
  for (gsize i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  /* Input comes from a file, not a pipe: flctl may exit without reading it (refusing without
   * a terminal), and a write into a pipe it closed would fail the run, or not, depending on
   * which of the two processes the scheduler ran first. */
  launcher = g_subprocess_launcher_new ((input == NULL ? G_SUBPROCESS_FLAGS_STDIN_PIPE : 0) |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  if (input != NULL)
    {
      int fd = g_file_open_tmp ("flctl-test-input-XXXXXX", &input_path, &error);

      g_assert_no_error (error);
      g_assert_true (g_file_set_contents (input_path, input, -1, &error));
      g_assert_no_error (error);
      close (fd);
      g_subprocess_launcher_set_stdin_file_path (launcher, input_path);
    }
  if (flags & FLCTL_RUN_UNPRIVILEGED)
    {
      g_assert_true (flctl_test_check_unprivileged ());
      set_unprivileged (launcher, unprivileged);
    }
  process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  if (input_path != NULL)
    g_unlink (input_path);

  /* No input: an empty pipe, closed at once, so nothing is written to it. */
  stdin_bytes = input == NULL ? g_bytes_new ("", 0) : NULL;
  g_subprocess_communicate_async (process, stdin_bytes, NULL, communicated_cb, &c);
  if (!iterate_until (&c.done, FLCTL_TEST_TIMEOUT_MS))
    {
      g_subprocess_force_exit (process);
      g_error ("flctl %s did not finish in time", args[0]);
    }
  g_assert_no_error (c.error);
  if (!g_subprocess_get_if_exited (process) && !g_subprocess_get_if_signaled (process))
    {
      c.done = FALSE;
      g_subprocess_wait_async (process, NULL, waited_cb, &c.done);
      g_assert_true (iterate_until (&c.done, FLCTL_TEST_TIMEOUT_MS));
    }

  result = g_new0 (FlctlResult, 1);
  result->status = shell_status (process);
  result->out = bytes_to_string (c.out);
  result->err = bytes_to_string (c.err);
  g_clear_pointer (&c.out, g_bytes_unref);
  g_clear_pointer (&c.err, g_bytes_unref);
  g_test_message ("flctl %s -> %d\nstdout: %s\nstderr: %s", args[0], result->status, result->out,
                  result->err);
  return result;
}

FlctlResult *
flctl_test_run (FlctlRunFlags  flags,
                const char    *input,
                const char    *first_arg,
                ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  va_list ap;

  va_start (ap, first_arg);
  for (const char *arg = first_arg; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return flctl_test_runv (flags, input, (const char * const *) args->pdata);
}

/* A test that fails leaves no process behind: they get SIGKILL when the test exits. */
static void
die_with_test_cb (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

GSubprocess *
flctl_test_spawnv (GSubprocessFlags    flags,
                   const char * const *argv)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (flags);
  g_autoptr(GError) error = NULL;
  GSubprocess *process;

  g_subprocess_launcher_set_child_setup (launcher, die_with_test_cb, NULL, NULL);
  process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  return process;
}

GSubprocess *
flctl_test_spawn (GSubprocessFlags  flags,
                  const char       *first_arg,
                  ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  va_list ap;

  add_flctl_command (argv);
  va_start (ap, first_arg);
  for (const char *arg = first_arg; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  return flctl_test_spawnv (flags, (const char * const *) argv->pdata);
}

/* Reads one line (without its newline) from a pipe, or returns NULL at EOF or the deadline. */
char *
flctl_test_read_line (GInputStream *stream,
                      gint64        timeout_ms)
{
  g_autoptr(GString) line = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + timeout_ms * 1000;
  int fd = g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (stream));

  for (;;)
    {
      GPollFD poll_fd = { fd, G_IO_IN, 0 };
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      char c;
      ssize_t n;

      if (left_ms <= 0)
        return NULL;
      if (g_poll (&poll_fd, 1, (int) left_ms) <= 0)
        continue;
      n = read (fd, &c, 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return NULL;
      if (c == '\n')
        return g_string_free (g_steal_pointer (&line), FALSE);
      g_string_append_c (line, c);
    }
}

char *
flctl_test_read_until (GInputStream *stream,
                       const char   *needle,
                       gint64        timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * 1000;

  for (;;)
    {
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      g_autofree char *line = left_ms > 0 ? flctl_test_read_line (stream, left_ms) : NULL;

      if (line == NULL)
        return NULL;
      g_test_message ("read: %s", line);
      if (strstr (line, needle) != NULL)
        return g_steal_pointer (&line);
    }
}

int
flctl_test_wait (GSubprocess *process,
                 gint64       timeout_ms)
{
  gboolean done = FALSE;

  g_subprocess_wait_async (process, NULL, waited_cb, &done);
  if (!iterate_until (&done, timeout_ms))
    return -1;
  return shell_status (process);
}

int
flctl_test_pid (GSubprocess *process)
{
  const char *identifier = g_subprocess_get_identifier (process);

  g_assert_nonnull (identifier);
  return atoi (identifier);
}

gboolean
flctl_test_pid_gone (int pid)
{
  g_assert_cmpint (pid, >, 0);
  return kill (pid, 0) != 0 && errno == ESRCH;
}

/* Waits until @pid, which need not be our child, has exited: its pidfd polls readable then
 * (even while it is a zombie nobody reaps). Without pidfds it looks every millisecond. */
gboolean
flctl_test_wait_pid_gone (int    pid,
                          gint64 timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * 1000;
  int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  gboolean gone = FALSE;

  g_assert_cmpint (pid, >, 0);
  if (pidfd < 0)
    {
      while (!(gone = flctl_test_pid_gone (pid)) && g_get_monotonic_time () < deadline)
        g_usleep (1000);
      return gone;
    }
  while (!gone)
    {
      struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      int n;

      if (left_ms <= 0)
        break;
      n = poll (&pfd, 1, (int) MIN (left_ms, G_MAXINT));
      gone = n > 0;
    }
  close (pidfd);
  return gone;
}

void
flctl_test_write (GSubprocess *process,
                  const char  *text)
{
  g_autoptr(GError) error = NULL;
  GOutputStream *in = g_subprocess_get_stdin_pipe (process);

  g_output_stream_write_all (in, text, strlen (text), NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_flush (in, NULL, &error);
  g_assert_no_error (error);
}

/* A live holder: the hidden `flctl hold`, which says "held PID" once the lock is its own. */
GSubprocess *
flctl_test_hold (const char *target)
{
  GSubprocess *holder = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE, "hold", target, NULL);
  g_autofree char *line = flctl_test_read_line (g_subprocess_get_stdout_pipe (holder),
                                                FLCTL_TEST_TIMEOUT_MS);

  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "held "));
  return holder;
}

/* `flctl run TARGET -- sh -c 'echo $$; read line'`, SIGKILLed once its command runs: the
 * command lives on, without flctl, and keeps the lock through the descriptor it inherited.
 * Returns the command's PID; @runner is the dead flctl, whose stdin the command still reads
 * (write a line to end it), and whose PID was @flctl_pid (may be NULL). */
int
flctl_test_start_orphaned_command (const char   *target,
                                   GSubprocess **runner,
                                   int          *flctl_pid)
{
  g_autofree char *line = NULL;
  int command_pid;

  *runner = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                              "run", target, "--", "sh", "-c", "echo $$; read line", NULL);
  line = flctl_test_read_line (g_subprocess_get_stdout_pipe (*runner), FLCTL_TEST_TIMEOUT_MS);
  g_assert_nonnull (line);
  command_pid = atoi (line);
  g_assert_cmpint (command_pid, >, 0);
  if (flctl_pid != NULL)
    *flctl_pid = flctl_test_pid (*runner);
  g_subprocess_send_signal (*runner, SIGKILL);
  g_assert_cmpint (flctl_test_wait (*runner, FLCTL_TEST_TIMEOUT_MS), ==, 128 + SIGKILL);
  g_assert_false (flctl_test_pid_gone (command_pid));
  return command_pid;
}

void
flctl_test_release (GSubprocess *holder)
{
  g_subprocess_send_signal (holder, SIGTERM);
  g_assert_cmpint (flctl_test_wait (holder, FLCTL_TEST_TIMEOUT_MS), ==, 0);
}

/* `flctl demo DIR`, once it has made every kind of entry in @dir and says "ready"; its live
 * holders keep their locks until flctl_test_stop_demo(). @lines, if not NULL, gets what it
 * printed before "ready": one line per entry it made. */
GSubprocess *
flctl_test_start_demo (const char   *dir,
                       char       ***lines)
{
  GSubprocess *demo = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE, "demo", dir, NULL);
  GInputStream *out = g_subprocess_get_stdout_pipe (demo);
  g_autoptr(GStrvBuilder) before_ready = g_strv_builder_new ();

  for (;;)
    {
      g_autofree char *line = flctl_test_read_line (out, FLCTL_TEST_TIMEOUT_MS);

      g_assert_nonnull (line);
      if (g_str_equal (line, "ready"))
        break;
      g_strv_builder_add (before_ready, line);
    }
  if (lines != NULL)
    *lines = g_strv_builder_end (before_ready);
  return demo;
}

/* SIGTERM is how the inspector ends demo: it must release its holders' locks and exit 0. */
void
flctl_test_stop_demo (GSubprocess *demo)
{
  g_subprocess_send_signal (demo, SIGTERM);
  g_assert_cmpint (flctl_test_wait (demo, FLCTL_TEST_TIMEOUT_MS), ==, 0);
}

char *
flctl_test_read_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  char *content = NULL;

  if (!g_file_get_contents (path, &content, NULL, &error))
    return NULL;
  return content;
}

JsonArray *
flctl_test_parse_array (const char *json)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;

  json_parser_load_from_data (parser, json, -1, &error);
  g_assert_no_error (error);
  root = json_parser_get_root (parser);
  g_assert_nonnull (root);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (root));
  return json_array_ref (json_node_get_array (root));
}

JsonObject *
flctl_test_find_record (JsonArray  *array,
                        const char *path)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *record = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member (record, "path"), path) == 0)
        return record;
    }
  return NULL;
}

void
flctl_test_init (int    *argc,
                 char ***argv)
{
  g_test_init (argc, argv, NULL);
  signal (SIGPIPE, SIG_IGN);
}

void
flctl_dir_fixture_set_up (FlctlDirFixture *f,
                          gconstpointer    data)
{
  f->dir = flctl_test_make_dir ();
}

void
flctl_dir_fixture_tear_down (FlctlDirFixture *f,
                             gconstpointer    data)
{
  flctl_test_remove_dir (f->dir);
  g_free (f->dir);
}
