/* fl-test-counter.h: the critical section every exclusion test runs
 *
 * Plain C, no GLib and no libfl: the original-peer helper links it too, and it must not depend
 * on the library it checks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <sys/types.h>

/* Exit status of a helper whose critical section found another live holder inside. */
#define FL_TEST_EXIT_OVERLAP 3
/* Exit status of a helper that failed for any other reason (I/O, lock error...). */
#define FL_TEST_EXIT_FAILED 4

typedef enum
{
  FL_TEST_MARKER_STRICT,     /* any existing marker is an overlap */
  FL_TEST_MARKER_TOLERATE_DEAD, /* a marker left by a process that was killed is removed */
} FlTestMarkerMode;

int  fl_test_critical_section (const char       *counter,
                               FlTestMarkerMode  mode);
long fl_test_counter_read     (const char       *counter);
int  fl_test_pid_is_gone      (pid_t             pid);
/* Gone, a zombie, or past PF_EXITING (Linux): it can no longer be inside a critical section. */
int  fl_test_pid_is_exiting   (pid_t             pid);

#ifdef __linux__
/* PF_EXITING, in the flags of /proc/PID/stat: the process is in do_exit() and never runs its
 * own code again. The kernel drops its flocks there, before it turns into a zombie: from then
 * on libfl rightly takes its lock over, while /proc still shows it running. */
#define FL_TEST_PF_EXITING 0x00000004UL

/* The state (field 3), flags (9) and start time (22) of /proc/PID/stat; 0 with errno set
 * (ENOENT, ESRCH: gone) when they cannot be read. */
int  fl_test_read_proc_stat   (pid_t               pid,
                               char               *state,
                               unsigned long      *flags,
                               unsigned long long *start);
#endif

/* The platform's half (fl-test-counter-linux.c, fl-test-counter-win32.c): the caller's thread
 * id (the PID of a single-threaded helper), link() (-1 and EEXIST when @to exists), a yield. */
int  _fl_test_counter_thread_id (void);
int  _fl_test_counter_link      (const char *from,
                                 const char *to);
void _fl_test_counter_yield     (void);
