/* fl-test-counter-linux.c: the processes and links of fl-test-counter.c on Linux (/proc)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-counter.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
_fl_test_counter_thread_id (void)
{
  return (int) gettid ();
}

int
_fl_test_counter_link (const char *from,
                       const char *to)
{
  return link (from, to);
}

void
_fl_test_counter_yield (void)
{
  sched_yield ();
}

int
fl_test_read_proc_stat (pid_t               pid,
                        char               *state,
                        unsigned long      *flags,
                        unsigned long long *start)
{
  char path[64];
  char buf[1024];
  const char *p;
  ssize_t n;
  int fd, field = 3;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    {
      errno = ESRCH;
      return 0;
    }
  buf[n] = '\0';

  /* The command name may hold spaces and parentheses: fields count from the last ')'. */
  p = strrchr (buf, ')');
  if (p == NULL || p[1] != ' ' || p[2] == '\0')
    {
      errno = EINVAL;
      return 0;
    }
  *state = p[2];
  for (p += 2; *p != '\0' && field < 22; p++)
    if (*p == ' ' && ++field == 9)
      *flags = strtoul (p + 1, NULL, 10);
  if (field != 22)
    {
      errno = EINVAL;
      return 0;
    }
  *start = strtoull (p, NULL, 10);
  return 1;
}

int
fl_test_pid_is_gone (pid_t pid)
{
  unsigned long flags = 0;
  unsigned long long start = 0;
  char state = 0;

  if (pid <= 0)
    return 0;
  if (kill (pid, 0) < 0 && errno == ESRCH)
    return 1;
  /* A killed helper is a zombie until the test reaps it. */
  if (!fl_test_read_proc_stat (pid, &state, &flags, &start))
    return errno == ENOENT || errno == ESRCH;
  return state == 'Z' || state == 'X';
}

int
fl_test_pid_is_exiting (pid_t pid)
{
  unsigned long flags = 0;
  unsigned long long start = 0;
  char state = 0;

  if (fl_test_pid_is_gone (pid))
    return 1;
  return fl_test_read_proc_stat (pid, &state, &flags, &start)
         && (flags & FL_TEST_PF_EXITING) != 0;
}

