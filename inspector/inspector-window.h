/* inspector-window.h: the Lock Inspector's main window
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include <libfl/fl.h>

G_BEGIN_DECLS

#define INSPECTOR_TYPE_WINDOW (inspector_window_get_type ())

G_DECLARE_FINAL_TYPE (InspectorWindow, inspector_window, INSPECTOR, WINDOW, GtkApplicationWindow)

InspectorWindow  *inspector_window_new            (GtkApplication  *application);
FlDirectoryModel *inspector_window_get_model      (InspectorWindow *self);
void              inspector_window_add_directory  (InspectorWindow *self,
                                                   const char      *directory,
                                                   gboolean         recursive,
                                                   gboolean         remember);
void              inspector_window_start_demo     (InspectorWindow *self);

G_END_DECLS
