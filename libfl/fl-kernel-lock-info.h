/* fl-kernel-lock-info.h: the kernel locks of the whole system, as lslocks shows them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <glib-object.h>

#include "fl-version-macros.h"
#include "fl-enums.h"

G_BEGIN_DECLS

#define FL_TYPE_KERNEL_LOCK_INFO (fl_kernel_lock_info_get_type ())

FL_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (FlKernelLockInfo, fl_kernel_lock_info, FL, KERNEL_LOCK_INFO, GObject)

FL_AVAILABLE_IN_0_1
GPtrArray        *fl_list_kernel_locks                (GError          **error);
FL_AVAILABLE_IN_0_1
GPtrArray        *fl_list_kernel_locks_in             (const char * const *directories,
                                                       gboolean         recursive,
                                                       GError          **error);

FL_AVAILABLE_IN_0_1
int               fl_kernel_lock_info_get_keeper_pid  (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
const char       *fl_kernel_lock_info_get_keeper_name (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
FlKernelLockType  fl_kernel_lock_info_get_lock_type   (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
FlKernelLockMode  fl_kernel_lock_info_get_mode        (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
int               fl_kernel_lock_info_get_pid         (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
const char       *fl_kernel_lock_info_get_process_name (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
const char       *fl_kernel_lock_info_get_path        (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
const char       *fl_kernel_lock_info_get_lock_file   (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
const char       *fl_kernel_lock_info_get_display_path (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
guint64           fl_kernel_lock_info_get_device      (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
guint64           fl_kernel_lock_info_get_inode       (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
gint64            fl_kernel_lock_info_get_start       (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
gint64            fl_kernel_lock_info_get_end         (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
gboolean          fl_kernel_lock_info_get_blocked     (FlKernelLockInfo *self);
FL_AVAILABLE_IN_0_1
int               fl_kernel_lock_info_compare         (FlKernelLockInfo *a,
                                                       FlKernelLockInfo *b);
FL_AVAILABLE_IN_0_1
gboolean          fl_kernel_lock_info_equal           (FlKernelLockInfo *a,
                                                       FlKernelLockInfo *b);

G_END_DECLS
