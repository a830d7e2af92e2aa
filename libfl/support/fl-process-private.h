/* fl-process-private.h: what libfl knows about processes, on top of the platform's probe
 *
 * The platform (platform/fl-platform.h) says what the system says about a PID; this adds what
 * every platform shares: names made safe to print, a short-lived cache for inspectors, and
 * who keeps a file or its kernel lock (for messages).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* The platform's probe, with name and command line valid UTF-8 without control characters. */
void               _fl_process_probe        (int            pid,
                                             gboolean       details,
                                             FlProcessInfo *info);
void               _fl_process_info_clear   (FlProcessInfo *info);

/* The same without details, possibly answered from this thread's memory of the last
 * FL_PROCESS_CACHE_US: for inspecting many files, never for deciding a takeover. */
#define FL_PROCESS_CACHE_US (250 * 1000)
void               _fl_process_probe_cached (int            pid,
                                             FlProcessInfo *info);
/* Forget every thread's memory, e.g. when a watch says some process exited. */
void               _fl_process_cache_invalidate (void);

/* For messages, never for a decision: the PIDs (at most FL_KERNEL_LOCK_HOLDERS_MAX) that hold
 * the kernel lock on @id, shared or exclusive ones, in a new array; NULL when nobody can
 * tell. */
#define FL_KERNEL_LOCK_HOLDERS_MAX 8
GArray            *_fl_process_kernel_lock_holders (const FlFileId *id,
                                                    gboolean        shared);

/* For messages, never for a decision: the processes (at most FL_KERNEL_LOCK_HOLDERS_MAX) that
 * have the file @id open, which is how a kernel lock passed on with a descriptor is kept;
 * @complete (may be NULL) says whether every process could be looked into. */
GArray            *_fl_process_file_keepers (const FlFileId *id,
                                             gboolean       *complete);

/* Makes a label from a process (raw bytes, malloc'd; taken) safe to print: valid UTF-8, and
 * control characters as '?'. A process names itself (prctl, argv): it must never put escape
 * sequences in an operator's terminal. */
char              *_fl_process_make_label (char *raw);

G_END_DECLS
