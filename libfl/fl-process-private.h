/* fl-process-private.h: what the platform can tell about a process
 *
 * The one platform interface for process probing; fl-process-linux.c implements it. A port
 * to another system provides these functions and nothing else changes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "fl-content-private.h"

G_BEGIN_DECLS

typedef enum
{
  FL_PROCESS_UNKNOWN,  /* not probed: PID out of range */
  FL_PROCESS_GONE,     /* kill(pid, 0) says ESRCH */
  FL_PROCESS_ZOMBIE,   /* exited, not yet reaped */
  FL_PROCESS_RUNNING,  /* exists; start time known when /proc could be read (0: hidden, no
                        * /proc, or /proc of another PID namespace) */
} FlProcessState;

typedef struct
{
  FlProcessState state;
  guint64        start_ticks;    /* since boot, 0 when unknown */
  gint64         start_boot_us;  /* start time on CLOCK_BOOTTIME, 0 when unknown */
  gint64         start_real_us;  /* start time on the wall clock, 0 when unknown */
  gint64         uid;            /* -1 when unknown */
  char          *name;           /* comm, NULL when unknown */
  char          *cmdline;        /* arguments joined by spaces; only with details */
} FlProcessInfo;

void               _fl_process_probe        (int            pid,
                                             gboolean       details,
                                             FlProcessInfo *info);
void               _fl_process_info_clear   (FlProcessInfo *info);

/* The same without details, possibly answered from this thread's memory of the last
 * FL_PROCESS_CACHE_US: for inspecting many files, never for deciding a takeover. */
#define FL_PROCESS_CACHE_US (250 * 1000)
void               _fl_process_probe_cached (int            pid,
                                             FlProcessInfo *info);
/* Forget every thread's memory, e.g. when a pidfd says some process exited. */
void               _fl_process_cache_invalidate (void);

/* Whether /proc shows this process's PID namespace (readlink /proc/self is getpid()). */
gboolean           _fl_process_proc_is_ours (void);

/* getpid(), never cached: right in any child, however it was made. */
int                _fl_process_self_pid     (void);

/* This process's identity; recomputed after fork(). The caller sets kernel_lock. */
void               _fl_process_self_identity (FlIdentity   *identity);

/* This process's identity formatted for the xattr, with the kernel lock taken: cached, since
 * every acquire writes it. Returns its length, 0 if @size is too small. */
gsize              _fl_process_self_identity_xattr (char  *buf,
                                                    gsize  size);

/* Microseconds on CLOCK_BOOTTIME, the clock process start times count on. */
gint64             _fl_process_boottime_now (void);

/* A pidfd that polls readable when @pid exits, or -1 where unsupported. */
int                _fl_process_open_pidfd   (int            pid);

/* Whether the filesystem behind @fd is a network or FUSE filesystem, where PIDs may be
 * another host's. */
gboolean           _fl_process_fd_is_remote (int            fd);

/* The PIDs of processes that hold a flock() on the inode @dev:@ino (not those waiting for
 * one), LOCK_SH ones if @shared, else LOCK_EX ones, this process left out, from /proc/locks;
 * at most FL_FLOCK_HOLDERS_MAX of them. FALSE when /proc/locks cannot be read (hidden, or
 * another system): then nobody can say who they are. For messages, never for a decision. */
#define FL_FLOCK_HOLDERS_MAX 8
gboolean           _fl_process_list_flock_holders (guint64  dev,
                                                   guint64  ino,
                                                   gboolean shared,
                                                   GArray  *pids);

/* Parses /proc/<pid>/stat: comm (may hold spaces and parentheses), state, start ticks. */
gboolean           _fl_parse_proc_stat      (const char    *buf,
                                             gsize          len,
                                             char         **comm,
                                             char          *state,
                                             guint64       *start_ticks);

G_END_DECLS
