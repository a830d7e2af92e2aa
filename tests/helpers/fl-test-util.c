/* fl-test-util.c: files, child processes and holders for the libfl tests, on every platform
 *
 * A child process (FlTestProc) has a Unix side (fl-test-proc-unix.c: pidfds, waitpid) and a
 * Win32 side (fl-test-proc-win32.c: process handles); what only Unix can do (fork, kernel locks
 * of every kind, other users) is in fl-test-util-unix.c. The portable basics are in
 * fl-test-dir.c. Every wait here has a deadline and waits on the event itself, or re-asks a
 * condition, never sleeps for synchronisation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-util.h"
#include "fl-test-counter.h"
#include "fl-test-open-flags.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>

#ifdef G_OS_WIN32
# include <io.h>
#else
# include <unistd.h>
#endif


void
fl_test_write (const char *path,
               const char *data,
               gssize      len)
{
  int fd;

  if (len < 0)
    len = strlen (data);
  fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC | O_BINARY | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    g_error ("cannot create %s: %s", path, g_strerror (errno));
  g_assert_cmpint (write (fd, data, (unsigned int) len), ==, len);
  g_assert_cmpint (close (fd), ==, 0);
}

void
fl_test_set_mtime_ago (const char *path,
                       gint64      seconds)
{
  fl_test_set_mtime_us (path, g_get_real_time () - seconds * G_USEC_PER_SEC);
}

void
fl_test_link (const char *from,
              const char *to)
{
  if (_fl_test_counter_link (from, to) != 0)
    g_error ("cannot link %s to %s: %s", to, from, g_strerror (errno));
}

/* Windows: fl-test-util-win32.c, since GLib's open there does not share delete, and a lock that
 * libfl holds (opened for delete) cannot be read that way (GLib issue #539). */
#ifndef G_OS_WIN32
char *
fl_test_read (const char *path,
              gsize      *len)
{
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  g_file_get_contents (path, &contents, len, &error);
  g_assert_no_error (error);
  return contents;
}
#endif

char *
fl_test_proc_read_line (FlTestProc *proc,
                        gint64      deadline_us)
{
  for (;;)
    {
      const char *nl = memchr (proc->out->str, '\n', proc->out->len);

      if (nl != NULL)
        {
          gsize len = nl - proc->out->str;
          char *line;

          /* A Windows child's C library ends its lines with "\r\n". */
          line = g_strndup (proc->out->str, len > 0 && nl[-1] == '\r' ? len - 1 : len);
          g_string_erase (proc->out, 0, len + 1);
          return line;
        }
      if (!_fl_test_proc_fill (proc, deadline_us))
        return NULL;
    }
}

char *
fl_test_proc_read_all (FlTestProc *proc,
                       gint64      deadline_us)
{
  char *all;

  while (_fl_test_proc_fill (proc, deadline_us))
    ;
  all = g_strndup (proc->out->str, proc->out->len);
  g_string_truncate (proc->out, 0);
  return all;
}

void
fl_test_proc_close_stdin (FlTestProc *proc)
{
  if (proc->stdin_fd >= 0)
    {
      close (proc->stdin_fd);
      proc->stdin_fd = -1;
    }
}

gboolean
fl_test_proc_wait (FlTestProc *proc,
                   gint64      deadline_us)
{
  g_autoptr(GPtrArray) one = g_ptr_array_new ();

  g_ptr_array_add (one, proc);
  return fl_test_proc_wait_any (one, deadline_us) == 0;
}

void
fl_test_counters_wait (GPtrArray  *procs,
                       const char *counter,
                       gint64      deadline_us)
{
  for (guint finished = 0; finished < procs->len; finished++)
    {
      int i = fl_test_proc_wait_any (procs, deadline_us);
      FlTestProc *proc;

      if (i < 0)
        g_error ("%u of %u workers still running at the deadline; counter at %ld",
                 procs->len - finished, procs->len, fl_test_counter_read (counter));
      proc = g_ptr_array_index (procs, i);
      if (fl_test_proc_exit_code (proc) == FL_TEST_EXIT_OVERLAP)
        g_error ("worker %d (spawned as number %d) found another holder inside the critical "
                 "section", (int) proc->pid, i);
      /* Exit 4 is also a release that found its lock taken (FL_ERROR_LOST). */
      g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 0);
    }
}

void
fl_test_proc_free (FlTestProc *proc)
{
  if (proc == NULL)
    return;
  fl_test_proc_close_stdin (proc);
  fl_test_proc_kill (proc);
  if (proc->stdout_fd >= 0)
    close (proc->stdout_fd);
  g_string_free (proc->out, TRUE);
  g_free (proc);
}

FlTestProc *
fl_test_spawn_holder_argv (const char * const *argv)
{
  FlTestProc *holder = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *line = fl_test_proc_read_line (holder, fl_test_deadline_ms (10000));
  g_autofree char *expected = g_strdup_printf ("held %d", (int) holder->pid);

  g_assert_cmpstr (line, ==, expected);
  return holder;
}

FlTestProc *
fl_test_spawn_holder_of (const char *env_var,
                         const char *helper,
                         const char *target)
{
  g_autofree char *path = fl_test_helper_path (env_var, helper);
  const char *argv[] = { path, "hold", target, NULL };

  return fl_test_spawn_holder_argv (argv);
}

char **
fl_test_module_argv (void)
{
  g_autofree char *node = g_find_program_in_path ("node");
  const char *driver = g_getenv ("FL_MODULE_DRIVER");
  const char *module = g_getenv ("FL_NODE_REFERENCE");

  /* Not a skip: a run without the reference would pass without checking what it claims. */
  if (node == NULL || driver == NULL || module == NULL ||
      !g_file_test (module, G_FILE_TEST_IS_REGULAR))
    g_error ("the Node.js module these tests compare libfl with is missing (node: %s; "
             "FL_NODE_REFERENCE: %s): run build-aux/install-deps",
             node != NULL ? node : "not found", module != NULL ? module : "unset");
  return g_strdupv ((char *[]) { node, (char *) driver, NULL });
}

FlTestProc *
fl_test_spawn_module_holder (const char *target)
{
  g_auto(GStrv) module = fl_test_module_argv ();
  const char *argv[] = { module[0], module[1], "hold", target, NULL };
  FlTestProc *holder = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  /* node's start-up, on a busy machine, is most of this. */
  g_autofree char *line = fl_test_proc_read_line (holder, fl_test_deadline_ms (30000));
  g_autofree char *expected = g_strdup_printf ("held %d", (int) holder->pid);

  g_assert_cmpstr (line, ==, expected);
  return holder;
}

/* The usual holder: fl-worker, which takes the lock with libfl. */
FlTestProc *
fl_test_spawn_holder (const char *target)
{
  return fl_test_spawn_holder_of ("FL_WORKER", "fl-worker", target);
}

/* Closes the holder's stdin and waits until it has let go and exited cleanly. */
void
fl_test_holder_release (FlTestProc *holder)
{
  g_autofree char *line = NULL;

  fl_test_proc_close_stdin (holder);
  line = fl_test_proc_read_line (holder, fl_test_deadline_ms (10000));
  g_assert_cmpstr (line, ==, "released");
  g_assert_true (fl_test_proc_wait (holder, fl_test_deadline_ms (10000)));
  g_assert_cmpint (fl_test_proc_exit_code (holder), ==, 0);
}

FlTestProc *
fl_test_spawn_waiting (void)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, "wait", NULL };
  FlTestProc *proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *line = fl_test_proc_read_line (proc, fl_test_deadline_ms (10000));
  g_autofree char *expected = g_strdup_printf ("ready %d", (int) proc->pid);

  g_assert_cmpstr (line, ==, expected);
  return proc;
}
