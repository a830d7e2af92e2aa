/* fl-format.h: the words libfl, flctl and the Lock Inspector show: ages, states, enum names
 *
 * One home for every word a view shows about an entry (with fl_snapshot_dup_state_summary(),
 * the state and its reason), so that flctl and the inspector only present them and never
 * say the same thing two ways.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <glib.h>

#include "fl-version-macros.h"
#include "fl-enums.h"

G_BEGIN_DECLS

FL_AVAILABLE_IN_0_1
char         *fl_format_age                  (gint64        age_us);

FL_AVAILABLE_IN_0_1
const char   *fl_entry_kind_to_string        (FlEntryKind   kind);
FL_AVAILABLE_IN_0_1
const char   *fl_liveness_to_string          (FlLiveness    liveness);
FL_AVAILABLE_IN_0_1
const char   *fl_kernel_lock_to_string       (FlKernelLock  kernel_lock);
FL_AVAILABLE_IN_0_1
const char   *fl_entry_state_to_string       (FlEntryState  state);
FL_AVAILABLE_IN_0_1
const char   *fl_kernel_lock_type_to_string  (FlKernelLockType type);
FL_AVAILABLE_IN_0_1
const char   *fl_kernel_lock_mode_to_string  (FlKernelLockMode mode);
FL_AVAILABLE_IN_0_1
const char   *fl_lock_format_to_string       (FlLockFormat  format);

FL_AVAILABLE_IN_0_1
const char   *fl_entry_state_get_label       (FlEntryState  state);
FL_AVAILABLE_IN_0_1
const char   *fl_entry_kind_get_label        (FlEntryKind   kind);
FL_AVAILABLE_IN_0_1
const char   *fl_kernel_lock_get_label       (FlKernelLock  kernel_lock);
FL_AVAILABLE_IN_0_1
const char   *fl_kernel_lock_mode_get_label  (FlKernelLockMode mode);
FL_AVAILABLE_IN_0_1
const char   *fl_lock_format_get_label       (FlLockFormat  format);
FL_AVAILABLE_IN_0_1
gboolean      fl_entry_state_is_problem      (FlEntryState  state);

G_END_DECLS
