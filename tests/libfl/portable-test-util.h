/* portable-test-util.h: what the portable tests share (libfl and GLib only, every platform)
 *
 * The counted section of test-exclusion, test-interop-portable and test-antivirus, and the
 * little file handling around it. Each test program is its own worker (--worker).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

G_BEGIN_DECLS

/* The counter's value, -1 while it is unreadable (a holder is rewriting it). */
gint64   fl_portable_read_counter (const char *path);

/* The worker: @sections times, under the lock: counter + 1, then the value written appended to
 * @record. Two holders at once write one value twice; a kill between write and record leaves a
 * gap, never a duplicate. With @wait_when_done it prints "done" and waits for stdin to close
 * before it exits. Returns the exit status (4: the counter was unreadable inside the lock). */
int      fl_portable_worker       (const char *target,
                                   const char *counter,
                                   const char *record,
                                   guint       sections,
                                   gboolean    wait_when_done);

/* Whether the counter reaches @at_least before @deadline_us (monotonic). */
gboolean fl_portable_wait_counter (const char *counter,
                                   gint64      at_least,
                                   gint64      deadline_us);

/* FL_TEST_TIME_SCALE, at least 1: the multiplier of every deadline, as in fl-test-util.h. */
double   fl_portable_time_scale   (void);

/* Removes @path and everything in it, never following a symbolic link. */
void     fl_portable_remove_tree  (const char *path);

G_END_DECLS
