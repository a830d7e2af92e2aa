/* soak-section.c: the soak's critical section, which tells a dead holder from a live one exactly
 *
 * The same shape as tests/helpers/fl-test-counter.c (a marker linked into place catches a
 * second holder the moment it enters; a counter incremented in place catches lost updates after
 * the fact), but the marker names its holder by PID *and* start time. The soak kills hundreds of
 * holders inside the section over an hour, and on a busy machine with pid_max 32768 PIDs wrap
 * around within minutes: a PID alone would soon name some other process, and a dead holder's
 * marker would look alive.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fl-test-counter.h"
#include "soak-section.h"

/* Field 22 of /proc/PID/stat, if the process can still run its own code: not a zombie, and not
 * past PF_EXITING, where the kernel has dropped (or is dropping) its flocks and libfl may
 * rightly take the lock over while /proc still shows the process running. */
static gboolean
read_start (pid_t    pid,
            guint64 *start)
{
  unsigned long long ticks = 0;
  unsigned long flags = 0;
  char state = 0;

  if (!fl_test_read_proc_stat (pid, &state, &flags, &ticks))
    return FALSE;
  if (state == 'Z' || state == 'X' || (flags & FL_TEST_PF_EXITING) != 0)
    return FALSE;
  *start = ticks;
  return TRUE;
}

static gboolean
read_marker (const char *path,
             SoakHolder *holder)
{
  char buf[64];
  ssize_t n;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return FALSE;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return FALSE;
  buf[n] = '\0';
  return sscanf (buf, "%d %" G_GUINT64_FORMAT, &holder->pid, &holder->start) == 2;
}

gboolean
soak_holder_read (const char *counter,
                  SoakHolder *holder)
{
  g_autofree char *marker = g_strdup_printf ("%s.holder", counter);

  return read_marker (marker, holder);
}

gboolean
soak_holder_is_alive (const SoakHolder *holder)
{
  guint64 start;

  return holder->pid > 0 && read_start (holder->pid, &start) && start == holder->start;
}

/* Moves a dead holder's marker aside, checking that what moved is the dead one. */
static int
remove_dead_marker (const char       *marker,
                    const SoakHolder *dead)
{
  g_autofree char *aside = g_strdup_printf ("%s.dead.%d", marker, (int) getpid ());
  SoakHolder moved;

  if (rename (marker, aside) < 0)
    return errno == ENOENT ? 0 : FL_TEST_EXIT_FAILED;
  if (!read_marker (aside, &moved) || moved.pid != dead->pid || moved.start != dead->start)
    {
      fprintf (stderr, "OVERLAP: marker %s changed while being removed\n", marker);
      return FL_TEST_EXIT_OVERLAP;
    }
  unlink (aside);
  return 0;
}

int
soak_critical_section (const char *counter,
                       SoakHolder *other)
{
  g_autofree char *marker = g_strdup_printf ("%s.holder", counter);
  g_autofree char *temp = g_strdup_printf ("%s.%d", marker, (int) getpid ());
  g_autofree char *me_text = NULL;
  SoakHolder me = { getpid (), 0 }, now;
  char text[32];
  ssize_t n;
  long value;
  int fd, ret;

  if (!read_start (me.pid, &me.start))
    return FL_TEST_EXIT_FAILED;
  me_text = g_strdup_printf ("%d %" G_GUINT64_FORMAT, (int) me.pid, me.start);

  /* A marker that always carries its holder, even if we die half-way: written, then linked. */
  unlink (temp);
  fd = open (temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 || write (fd, me_text, strlen (me_text)) != (ssize_t) strlen (me_text))
    return FL_TEST_EXIT_FAILED;
  close (fd);

  /* We hold the lock: the marker can only be a dead holder's, left once. Anything else (a
   * live holder, a marker that comes back or goes away under us) is a second process inside. */
  for (int attempt = 0;; attempt++)
    {
      if (link (temp, marker) == 0)
        break;
      if (errno != EEXIST)
        {
          unlink (temp);
          return FL_TEST_EXIT_FAILED;
        }
      if (!read_marker (marker, other))
        *other = (SoakHolder) { 0, 0 };
      if (other->pid == 0 || soak_holder_is_alive (other) || attempt > 0)
        {
          fprintf (stderr, "OVERLAP: %d entered the critical section while %d holds it (%s)\n",
                   (int) me.pid, (int) other->pid, marker);
          unlink (temp);
          return FL_TEST_EXIT_OVERLAP;
        }
      ret = remove_dead_marker (marker, other);
      if (ret != 0)
        {
          unlink (temp);
          return ret;
        }
    }
  unlink (temp);

  fd = open (counter, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return FL_TEST_EXIT_FAILED;
  n = pread (fd, text, sizeof text - 1, 0);
  if (n < 0)
    {
      close (fd);
      return FL_TEST_EXIT_FAILED;
    }
  text[n] = '\0';
  value = n == 0 ? 0 : strtol (text, NULL, 10);
  /* Widen the window in which a second holder would lose an update (and the chaos's aim). */
  sched_yield ();
  /* Fixed width and one pwrite(): a holder killed here never leaves a torn number. */
  snprintf (text, sizeof text, "%020ld", value + 1);
  if (pwrite (fd, text, 20, 0) != 20)
    {
      close (fd);
      return FL_TEST_EXIT_FAILED;
    }
  close (fd);

  if (!read_marker (marker, &now) || now.pid != me.pid || now.start != me.start)
    {
      fprintf (stderr, "OVERLAP: marker %s was replaced under %d\n", marker, (int) me.pid);
      *other = now;
      return FL_TEST_EXIT_OVERLAP;
    }
  return unlink (marker) == 0 ? 0 : FL_TEST_EXIT_FAILED;
}
