/* original-peer.c: the Node.js module's lock algorithm, faithfully, in C
 *
 * No libfl and no kernel lock: this is what a service still running the original module does,
 * flaws included (docs/protocol.md, section 8). The interop tests run it against libfl.
 *
 *   original-peer count TARGET COUNTER N   N critical sections on COUNTER (fl-test-counter.c)
 *   original-peer hold TARGET              acquire, print "held <pid>", wait for stdin to close,
 *                                          release
 *   original-peer acquire TARGET MS        try for MS milliseconds: print "acquired" (and
 *                                          release, exit 0) or "timeout" (exit 2)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "fl-test-counter.h"

/* The module polls at this fixed interval while the lock is held. */
#define POLL_MS 15

static long
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static unsigned int
random_u32 (void)
{
  unsigned int value = 0;

  if (getrandom (&value, sizeof value, 0) != sizeof value)
    value = (unsigned int) (getpid () ^ now_ms ());
  return value;
}

/* The module's readFile + parseInt: digits at the start, anything after them ignored; returns 0
 * when there is no number (the module then treats the lock as held and polls). */
static long
read_pid (const char *path,
          int        *missing)
{
  char buf[64];
  ssize_t n;
  int fd;

  *missing = 0;
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      *missing = errno == ENOENT;
      return 0;
    }
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  return strtol (buf, NULL, 10);
}

static int
write_temp (const char *temp)
{
  char text[32];
  int len;
  int fd;

  fd = open (temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  len = snprintf (text, sizeof text, "%d", (int) getpid ());
  if (write (fd, text, len) != len)
    {
      close (fd);
      unlink (temp);
      return -1;
    }
  return close (fd);
}

/* The module's takeover: not atomic, and it puts back with rename(), which can replace a lock
 * created meanwhile. Kept as is on purpose. */
static void
take_over (const char *lock,
           long        judged)
{
  char gy[PATH_MAX + 64];
  int missing;

  snprintf (gy, sizeof gy, "%s.gy.%d.%08x", lock, (int) getpid (), random_u32 ());
  if (rename (lock, gy) < 0)
    return;
  if (read_pid (gy, &missing) != judged)
    rename (gy, lock);
  else
    unlink (gy);
}

/* Returns 0 once held, 1 on timeout (timeout_ms < 0: never), -1 on error. */
static int
acquire (const char *target,
         long        timeout_ms)
{
  char lock[PATH_MAX];
  char temp[PATH_MAX + 64];
  long deadline = timeout_ms < 0 ? -1 : now_ms () + timeout_ms;

  snprintf (lock, sizeof lock, "%s.lock", target);
  for (;;)
    {
      long pid;
      int missing;

      snprintf (temp, sizeof temp, "%s.%d.%08x.tmp", lock, (int) getpid (), random_u32 ());
      if (write_temp (temp) < 0)
        {
          fprintf (stderr, "original-peer: cannot write %s: %s\n", temp, strerror (errno));
          return -1;
        }
      if (link (temp, lock) == 0)
        {
          unlink (temp);
          return 0;
        }
      if (errno != EEXIST)
        {
          fprintf (stderr, "original-peer: cannot link %s: %s\n", lock, strerror (errno));
          unlink (temp);
          return -1;
        }
      unlink (temp);

      pid = read_pid (lock, &missing);
      if (missing)
        continue;
      if (pid > 0 && kill ((pid_t) pid, 0) < 0 && errno == ESRCH)
        {
          take_over (lock, pid);
          continue;
        }
      if (deadline >= 0 && now_ms () >= deadline)
        return 1;
      usleep (POLL_MS * 1000);
    }
}

static void
release (const char *target)
{
  char lock[PATH_MAX];

  snprintf (lock, sizeof lock, "%s.lock", target);
  unlink (lock);
}

static int
cmd_count (const char *target,
           const char *counter,
           long        n)
{
  for (long i = 0; i < n; i++)
    {
      int ret;

      if (acquire (target, -1) != 0)
        return FL_TEST_EXIT_FAILED;
      ret = fl_test_critical_section (counter, FL_TEST_MARKER_STRICT);
      release (target);
      if (ret != 0)
        return ret;
    }
  return 0;
}

static int
cmd_hold (const char *target)
{
  char buf[256];

  if (acquire (target, -1) != 0)
    return FL_TEST_EXIT_FAILED;
  printf ("held %d\n", (int) getpid ());
  fflush (stdout);
  while (read (STDIN_FILENO, buf, sizeof buf) > 0)
    ;
  release (target);
  return 0;
}

static int
cmd_acquire (const char *target,
             long        timeout_ms)
{
  int ret = acquire (target, timeout_ms);

  if (ret < 0)
    return FL_TEST_EXIT_FAILED;
  printf ("%s\n", ret == 0 ? "acquired" : "timeout");
  fflush (stdout);
  if (ret == 0)
    release (target);
  return ret == 0 ? 0 : 2;
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 5 && strcmp (argv[1], "count") == 0)
    return cmd_count (argv[2], argv[3], strtol (argv[4], NULL, 10));
  if (argc == 3 && strcmp (argv[1], "hold") == 0)
    return cmd_hold (argv[2]);
  if (argc == 4 && strcmp (argv[1], "acquire") == 0)
    return cmd_acquire (argv[2], strtol (argv[3], NULL, 10));
  fprintf (stderr, "usage: original-peer count TARGET COUNTER N | hold TARGET"
           " | acquire TARGET MS\n");
  return 64;
}
