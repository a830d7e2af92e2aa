/* inspector-kernel-view.h: the kernel's own locks, beside the lock files
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include <libfl/fl.h>

G_BEGIN_DECLS

#define INSPECTOR_TYPE_KERNEL_VIEW (inspector_kernel_view_get_type ())

G_DECLARE_FINAL_TYPE (InspectorKernelView, inspector_kernel_view, INSPECTOR, KERNEL_VIEW, GtkWidget)

/* Reads the kernel's locks now; the view also does, once a second while it is shown. */
void         inspector_kernel_view_refresh       (InspectorKernelView *self);
/* The watched folders, which "Watched Folders Only" keeps the rows to. */
void         inspector_kernel_view_set_roots     (InspectorKernelView *self,
                                                  const char * const  *roots);
void         inspector_kernel_view_set_watched_only (InspectorKernelView *self,
                                                     gboolean             watched_only);

/* Test hooks: the rows (FlKernelLockInfo) in the order shown, the page shown ("list",
 * "empty", "unsupported", "error"), and the selection. */
GListModel  *inspector_kernel_view_get_rows      (InspectorKernelView *self);
const char  *inspector_kernel_view_get_page      (InspectorKernelView *self);
GtkSingleSelection *inspector_kernel_view_get_selection (InspectorKernelView *self);
const char  *inspector_kernel_view_get_count_text (InspectorKernelView *self);
GtkSearchEntry *inspector_kernel_view_get_search_entry (InspectorKernelView *self);
GtkWidget   *inspector_kernel_view_get_row_menu  (InspectorKernelView *self);
/* The Waiting For column's words for @info: whom a waiter waits for, "—" for a holder. */
char        *inspector_kernel_view_dup_waiting_for (FlKernelLockInfo *info);

G_END_DECLS
