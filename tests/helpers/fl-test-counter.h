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

/* PF_EXITING, in the flags of /proc/PID/stat: the process is in do_exit() and never runs its
 * own code again. The kernel drops its flocks there, before it turns into a zombie: from then
 * on libfl rightly takes its lock over, while /proc still shows it running. */
#define FL_TEST_PF_EXITING 0x00000004UL

/* Gone, a zombie, or past PF_EXITING: it can no longer be inside a critical section. */
int  fl_test_pid_is_exiting   (pid_t             pid);

/* The state (field 3), flags (9) and start time (22) of /proc/PID/stat; 0 with errno set
 * (ENOENT, ESRCH: gone) when they cannot be read. */
int  fl_test_read_proc_stat   (pid_t               pid,
                               char               *state,
                               unsigned long      *flags,
                               unsigned long long *start);
