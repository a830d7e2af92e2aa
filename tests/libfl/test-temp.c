/* test-temp.c: a named temp is never linked without its kernel lock (docs/protocol.md, step A2)
 *
 * The attacker is any process that can read the directory: it watches for new `*.tmp` files
 * and takes LOCK_SH on each as fast as it can, holding it a little. Issue 13, part 2: before
 * the fix it won that race in about a quarter of all named-temp acquisitions, and the holders
 * it beat held their locks without a kernel lock, so a holder that forked and let its parent
 * exit had its lock taken while the child was still in its critical section.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <errno.h>
# include <fcntl.h>
# include <poll.h>
# include <signal.h>
# include <sys/file.h>
# include <sys/inotify.h>
# include <sys/prctl.h>
# include <sys/wait.h>
# include <sys/xattr.h>
# include <unistd.h>
# include "protocol/fl-lock-private.h"
# include "fl-test-attacker.h"

/* The sixth field of the identity is the kernel lock flag (docs/protocol.md, section 1). */
static gboolean
identity_says_kernel_lock (const char *lock)
{
  char xattr[256];
  gssize n = lgetxattr (lock, "user.libfl.holder", xattr, sizeof xattr - 1);
  g_auto(GStrv) fields = NULL;

  if (n < 0 && (errno == ENOTSUP || errno == EOPNOTSUPP))
    return TRUE;  /* no user xattrs here: the probe below still decides */
  g_assert_cmpint (n, >, 0);
  xattr[n] = '\0';
  fields = g_strsplit (xattr, " ", -1);
  g_assert_cmpuint (g_strv_length (fields), ==, 7);
  return g_str_equal (fields[5], "1");
}

/* A LOCK_EX probe from another open file description: refused while a holder has its lock. */
static gboolean
exclusive_probe_refused (const char *lock)
{
  int fd = open (lock, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  gboolean refused;

  g_assert_cmpint (fd, >=, 0);
  refused = flock (fd, LOCK_EX | LOCK_NB) < 0;
  if (refused)
    g_assert_cmpint (errno, ==, EWOULDBLOCK);
  close (fd);
  return refused;
}

static void
test_attacker (FlTestDir     *fx,
               gconstpointer  data)
{
  const guint rounds = 1000;
  FlTestAttacker attacker;
  guint without_flag = 0, without_lock = 0;
  guint64 wins;

  _fl_lock_set_force_named_temp (TRUE);
  fl_test_attacker_start (&attacker, fx->dir);

  for (guint i = 0; i < rounds; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = fl_lock_acquire (fx->target, NULL, NULL, &error);

      g_assert_no_error (error);
      if (!identity_says_kernel_lock (fx->lock))
        without_flag++;
      if (!exclusive_probe_refused (fx->lock))
        without_lock++;
      g_assert_true (fl_lock_release (lock, &error));
      g_assert_no_error (error);
    }

  wins = fl_test_attacker_stop (&attacker, FALSE);
  _fl_lock_set_force_named_temp (FALSE);

  g_test_message ("%u acquisitions: the attacker took LOCK_SH on %" G_GUINT64_FORMAT " temps; "
                  "%u holders had an identity without the kernel lock, %u had no kernel lock",
                  rounds, wins, without_flag, without_lock);
  g_assert_cmpuint (without_flag, ==, 0);
  g_assert_cmpuint (without_lock, ==, 0);
  g_assert_cmpuint (fl_test_count_protocol_litter (fx->dir), ==, 0);
}

/* A contender in another process: TRUE if it got the lock. */
static gboolean
contender_acquires (const char *target)
{
  int status;
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      FlLock *lock = fl_lock_try_acquire (target, NULL, NULL);

      _exit (lock != NULL ? 0 : 1);  /* the lock, if any, stays: the check below looks */
    }
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status) == 0;
}

/* The daemon() shape: the holder forks, the parent exits, the child stays in the critical
 * section. The lock file names the dead parent; only the kernel lock, which the child shares,
 * says the lock is alive. */
static void
test_fork_and_exit (FlTestDir     *fx,
                    gconstpointer  data)
{
  const guint rounds = 60;
  FlTestAttacker attacker;
  guint stolen = 0;

  /* The grandchildren are reaped here, not by init: the test waits for each. */
  g_assert_cmpint (prctl (PR_SET_CHILD_SUBREAPER, 1), ==, 0);
  _fl_lock_set_force_named_temp (TRUE);
  fl_test_attacker_start (&attacker, fx->dir);

  for (guint i = 0; i < rounds; i++)
    {
      int ready[2], stay[2], status;
      pid_t parent, child = 0;
      char c;

      g_assert_cmpint (pipe2 (ready, O_CLOEXEC), ==, 0);
      g_assert_cmpint (pipe2 (stay, O_CLOEXEC), ==, 0);
      parent = fork ();
      g_assert_cmpint (parent, >=, 0);
      if (parent == 0)
        {
          FlLock *lock;
          pid_t grandchild;

          close (ready[0]);
          close (stay[1]);
          g_autoptr(GError) error = NULL;

          lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
          if (lock == NULL)
            {
              g_printerr ("# holder %d: %s\n", (int) getpid (), error->message);
              _exit (1);
            }
          grandchild = fork ();
          if (grandchild < 0)
            _exit (1);
          if (grandchild == 0)
            {
              pid_t self = getpid ();

              /* In the critical section until the test says so. */
              if (write (ready[1], &self, sizeof self) != sizeof self)
                _exit (1);
              while (read (stay[0], &c, 1) > 0)
                ;
              _exit (0);
            }
          _exit (0);  /* as daemon() does: no release, no cleanup */
        }
      close (ready[1]);
      close (stay[0]);

      g_assert_cmpint (waitpid (parent, &status, 0), ==, parent);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
      g_assert_cmpint (read (ready[0], &child, sizeof child), ==, sizeof child);
      close (ready[0]);

      if (contender_acquires (fx->target))
        stolen++;

      close (stay[1]);
      g_assert_cmpint (waitpid (child, &status, 0), ==, child);
      /* A contender that got in left its lock (its PID is dead now): the next round takes it
       * over; so does it once the child is gone. */
    }

  fl_test_attacker_stop (&attacker, FALSE);
  _fl_lock_set_force_named_temp (FALSE);
  g_test_message ("%u of %u forked holders lost their lock to a contender", stolen, rounds);
  g_assert_cmpuint (stolen, ==, 0);
}

#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  FL_TEST_ADD_LINUX ("/libfl/temp/shared-lock-attacker", NULL, test_attacker,
                     "inotify and flock(LOCK_SH) of an attacker on every new temp");
  FL_TEST_ADD_LINUX ("/libfl/temp/fork-and-exit-holder", NULL, test_fork_and_exit,
                     "fork(), a child that keeps the lock after its parent exits");

  return g_test_run ();
}
