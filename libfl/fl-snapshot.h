/* fl-snapshot.h: an immutable picture of one lock, temp or graveyard file
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <gio/gio.h>

#include "fl-version-macros.h"
#include "fl-enums.h"
#include "fl-options.h"

G_BEGIN_DECLS

#define FL_TYPE_SNAPSHOT (fl_snapshot_get_type ())

FL_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (FlSnapshot, fl_snapshot, FL, SNAPSHOT, GObject)

FL_AVAILABLE_IN_0_1
FlSnapshot   *fl_snapshot_new                  (const char          *path,
                                                const FlLockOptions *options,
                                                GError             **error);
FL_AVAILABLE_IN_0_1
FlSnapshot   *fl_snapshot_new_for_target       (const char          *target,
                                                const FlLockOptions *options,
                                                GError             **error);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_path             (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_name             (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_target           (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
FlEntryKind   fl_snapshot_get_kind             (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
int           fl_snapshot_get_pid              (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_process_name     (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_process_cmdline  (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_process_uid      (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_process_start_time (FlSnapshot        *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_file_uid         (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
FlLiveness    fl_snapshot_get_liveness         (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
FlKernelLock  fl_snapshot_get_kernel_lock      (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gboolean      fl_snapshot_get_stale            (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
FlEntryState  fl_snapshot_get_state            (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
char         *fl_snapshot_dup_state_summary    (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_reason           (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_content          (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
GBytes       *fl_snapshot_dup_content_bytes    (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_mtime            (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_captured_at      (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_age              (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_age_at           (FlSnapshot          *self,
                                                gint64               now_us);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_host             (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_lease_id         (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_lease_ttl        (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
guint64       fl_snapshot_get_fencing_token    (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_revision         (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gboolean      fl_snapshot_get_waiting          (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
GPtrArray    *fl_snapshot_get_waiters          (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gboolean      fl_snapshot_same_file            (FlSnapshot          *self,
                                                FlSnapshot          *other);
FL_AVAILABLE_IN_0_1
gboolean      fl_snapshot_reclaim              (FlSnapshot          *self,
                                                const FlLockOptions *options,
                                                GError             **error);

FL_AVAILABLE_IN_0_1
FlReclaimable fl_snapshot_get_reclaimable      (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gboolean      fl_snapshot_reclaim_unproven     (FlSnapshot          *self,
                                                GCancellable        *cancellable,
                                                GError             **error);

FL_AVAILABLE_IN_0_1
FlLockFormat  fl_snapshot_get_lock_format      (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_owner_user       (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_owner_name       (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gint64        fl_snapshot_get_owner_since      (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gboolean      fl_snapshot_get_holder_exited    (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
gboolean      fl_snapshot_get_holder_stopped   (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
int           fl_snapshot_get_keeper_pid       (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
const char   *fl_snapshot_get_keeper_name      (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
char         *fl_snapshot_dup_owner_summary    (FlSnapshot          *self);
FL_AVAILABLE_IN_0_1
char         *fl_snapshot_dup_other_explanation (FlSnapshot         *self);

FL_AVAILABLE_IN_0_1
gboolean      fl_entry_kind_for_name           (const char          *name,
                                                FlEntryKind         *kind);

G_END_DECLS
