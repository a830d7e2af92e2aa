/* fl-test-counter.c: a read-increment-write on a counter file, guarded by a marker
 *
 * Plain C on every platform; what a process and a link are sit in fl-test-counter-linux.c and
 * fl-test-counter-win32.c.
 *
 * The counter alone shows lost updates only after the fact; the marker catches two holders at
 * the very moment they overlap. The marker is created with link() so that it always carries its
 * creator's id (a holder killed in the middle never leaves an empty one). The id is the thread
 * id, the PID for a single-threaded helper: two threads of one process are told apart too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-counter.h"
#include "fl-test-open-flags.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
# include <io.h>
#else
# include <unistd.h>
#endif

#ifndef PATH_MAX
# define PATH_MAX 4096
#endif

static long
read_number (const char *path)
{
  char buf[64];
  ssize_t n;
  int fd;

  fd = open (path, O_RDONLY | O_BINARY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return errno == ENOENT ? 0 : -1;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n < 0)
    return -1;
  buf[n] = '\0';
  return n == 0 ? 0 : strtol (buf, NULL, 10);
}

long
fl_test_counter_read (const char *counter)
{
  return read_number (counter);
}

/* Moves a marker whose creator is gone out of the way. Renaming (not unlinking) lets us check
 * that what we moved is the dead one: if two holders raced here, one finds a live marker. */
static int
remove_dead_marker (const char *marker)
{
  char aside[PATH_MAX + 32];
  long holder;

  holder = read_number (marker);
  if (holder <= 0 || !fl_test_pid_is_exiting ((pid_t) holder))
    return 0;
  snprintf (aside, sizeof aside, "%s.dead.%d", marker, _fl_test_counter_thread_id ());
  if (rename (marker, aside) < 0)
    return 0;
  if (read_number (aside) != holder)
    {
      fprintf (stderr, "OVERLAP: marker %s changed while being removed\n", marker);
      return -1;
    }
  unlink (aside);
  return 1;
}

static int
create_marker (const char       *marker,
               FlTestMarkerMode  mode)
{
  char temp[PATH_MAX + 32];
  char pid_text[32];
  int len;
  int fd;
  int ret = -1;

  snprintf (temp, sizeof temp, "%s.%d", marker, _fl_test_counter_thread_id ());
  unlink (temp);
  fd = open (temp, O_WRONLY | O_BINARY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      fprintf (stderr, "cannot create %s: %s\n", temp, strerror (errno));
      return FL_TEST_EXIT_FAILED;
    }
  len = snprintf (pid_text, sizeof pid_text, "%d", _fl_test_counter_thread_id ());
  if (write (fd, pid_text, len) != len)
    {
      fprintf (stderr, "cannot write %s: %s\n", temp, strerror (errno));
      close (fd);
      unlink (temp);
      return FL_TEST_EXIT_FAILED;
    }
  close (fd);

  for (int attempt = 0; attempt < 2; attempt++)
    {
      if (_fl_test_counter_link (temp, marker) == 0)
        {
          ret = 0;
          break;
        }
      if (errno != EEXIST)
        {
          fprintf (stderr, "cannot link %s: %s\n", marker, strerror (errno));
          ret = FL_TEST_EXIT_FAILED;
          break;
        }
      if (mode == FL_TEST_MARKER_TOLERATE_DEAD && attempt == 0 && remove_dead_marker (marker) > 0)
        continue;
      fprintf (stderr, "OVERLAP: %d entered the critical section while %ld holds it (%s)\n",
               _fl_test_counter_thread_id (), read_number (marker), marker);
      ret = FL_TEST_EXIT_OVERLAP;
      break;
    }
  unlink (temp);
  return ret;
}

int
fl_test_critical_section (const char       *counter,
                          FlTestMarkerMode  mode)
{
  char marker[PATH_MAX];
  char text[32];
  long value;
  int fd;
  int ret;

  snprintf (marker, sizeof marker, "%s.holder", counter);
  ret = create_marker (marker, mode);
  if (ret != 0)
    return ret;

  fd = open (counter, O_RDWR | O_BINARY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    {
      fprintf (stderr, "cannot open %s: %s\n", counter, strerror (errno));
      return FL_TEST_EXIT_FAILED;
    }
  ret = (int) read (fd, text, sizeof text - 1);
  if (ret < 0)
    {
      fprintf (stderr, "cannot read %s: %s\n", counter, strerror (errno));
      close (fd);
      return FL_TEST_EXIT_FAILED;
    }
  text[ret] = '\0';
  value = ret == 0 ? 0 : strtol (text, NULL, 10);
  /* Widen the window in which a second holder would lose an update. */
  _fl_test_counter_yield ();
  /* Fixed width and one write() at offset 0: a holder killed here never leaves a torn
   * number. */
  snprintf (text, sizeof text, "%020ld", value + 1);
  if (lseek (fd, 0, SEEK_SET) != 0 || write (fd, text, 20) != 20)
    {
      fprintf (stderr, "cannot write %s: %s\n", counter, strerror (errno));
      close (fd);
      return FL_TEST_EXIT_FAILED;
    }
  close (fd);

  if (read_number (marker) != (long) _fl_test_counter_thread_id ())
    {
      fprintf (stderr, "OVERLAP: marker %s was replaced under %d (now %ld)\n",
               marker, _fl_test_counter_thread_id (), read_number (marker));
      return FL_TEST_EXIT_OVERLAP;
    }
  if (unlink (marker) < 0)
    {
      /* Windows refuses to delete a file another process has open, and only an entrant that
       * found the marker taken opens it (to name its holder): someone came in meanwhile. */
      if (errno == EACCES)
        {
          fprintf (stderr, "OVERLAP: marker %s is open by another entrant\n", marker);
          return FL_TEST_EXIT_OVERLAP;
        }
      fprintf (stderr, "cannot remove %s: %s\n", marker, strerror (errno));
      return FL_TEST_EXIT_FAILED;
    }
  return 0;
}
