/* inspector-state.h: what a snapshot means, in words a person reads
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

G_BEGIN_DECLS

/* Ordered for sorting: what needs a person's attention last to first. */
typedef enum
{
  INSPECTOR_STATE_ALIVE,    /* a held lock */
  INSPECTOR_STATE_WRITING,  /* a temp or graveyard file whose creator still runs */
  INSPECTOR_STATE_UNKNOWN,  /* cannot be told; libfl will not call it stale */
  INSPECTOR_STATE_FOREIGN,  /* named like a lock, not a regular file */
  INSPECTOR_STATE_ORPHAN,   /* a temp or graveyard file whose creator is gone */
  INSPECTOR_STATE_STALE,    /* a stale lock: it can be reclaimed */
} InspectorState;

InspectorState  inspector_state_of          (FlSnapshot   *snapshot);
gboolean        inspector_state_is_problem  (InspectorState state);
const char     *inspector_state_icon_name   (InspectorState state);
char           *inspector_state_label       (FlSnapshot   *snapshot);
char           *inspector_kind_label        (FlEntryKind   kind);
const char     *inspector_kernel_lock_label (FlKernelLock  kernel_lock);
char           *inspector_format_holder     (FlSnapshot   *snapshot);
char           *inspector_format_time       (gint64        real_us);
char           *inspector_format_user       (gint64        uid);
char           *inspector_explain           (FlSnapshot   *snapshot,
                                             gint64        stale_after_ms);

G_END_DECLS
