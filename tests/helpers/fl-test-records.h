/* fl-test-records.h: the counted section of the portable exclusion tests (libfl and GLib only,
 * every platform)
 *
 * The section of test-exclusion, test-interop-portable and test-antivirus: a counter and, per
 * worker, a record of the values it wrote. Each test program is its own worker
 * (fl-test-worker.h). On Unix the marker of fl-test-counter.h also catches an overlap the
 * moment it happens; this one needs no link() nor /proc.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

G_BEGIN_DECLS

/* The counter's value, -1 while it is unreadable (a holder is rewriting it). */
gint64   fl_test_records_read_counter (const char *path);

/* The worker: @sections times, under the lock: counter + 1, then the value written appended to
 * @record. Two holders at once write one value twice; a kill between write and record leaves a
 * gap, never a duplicate. With @wait_when_done it prints "done" and waits for stdin to close
 * before it exits. Returns the exit status (4: the counter was unreadable inside the lock). */
int      fl_test_records_worker       (const char *target,
                                       const char *counter,
                                       const char *record,
                                       guint       sections,
                                       gboolean    wait_when_done);

/* Whether the counter reaches @at_least before @deadline_us (monotonic). */
gboolean fl_test_records_wait_counter (const char *counter,
                                       gint64      at_least,
                                       gint64      deadline_us);

G_END_DECLS
