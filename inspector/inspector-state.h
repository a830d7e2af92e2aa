/* inspector-state.h: what a snapshot means, in words a person reads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

G_BEGIN_DECLS

/* The state itself is libfl's (fl_snapshot_get_state(), fl_snapshot_dup_state_summary()):
 * the inspector adds only an icon and a sort rank. */
int             inspector_state_rank        (FlEntryState  state);
const char     *inspector_state_icon_name   (FlEntryState  state);
/* PID and process; a reused PID is said to be another process's now. */
char           *inspector_format_holder     (FlSnapshot   *snapshot);
/* The time of day of @real_us, as the locale writes it. */
char           *inspector_format_clock      (gint64        real_us);
/* An etcd lock's lease, TTL left and waiters; "—" for a lock file. */
char           *inspector_format_lease      (FlSnapshot   *snapshot);
char           *inspector_format_time       (gint64        real_us);
char           *inspector_format_user       (gint64        uid);
/* The evidence: libfl's reason for the verdict, then the verdict (one source). */
char           *inspector_explain           (FlSnapshot   *snapshot);
/* Whether the window offers Force Reclaim for it: what libfl never calls stale by itself. */
gboolean        inspector_offers_force_reclaim (FlSnapshot *snapshot);
/* A lock file's content for a person: text as it is, binary data as its size and a hex
 * prefix. @file_size: the file's size, or -1 if not known. */
char           *inspector_format_content    (FlSnapshot   *snapshot,
                                             gint64        file_size);

G_END_DECLS
