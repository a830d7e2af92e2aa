/* inspector-application.h: the Lock Inspector application
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define INSPECTOR_TYPE_APPLICATION (inspector_application_get_type ())

G_DECLARE_FINAL_TYPE (InspectorApplication, inspector_application, INSPECTOR, APPLICATION,
                      GtkApplication)

InspectorApplication *inspector_application_new (void);

/* The build tree's top when fl-inspector runs from it (BUILD/inspector/fl-inspector), else
 * NULL. */
char                 *inspector_dup_build_root (void);

/* Where the build tree keeps what an installed program finds by itself: used only when
 * fl-inspector runs from the build tree. */
void                  inspector_setup_uninstalled (void);

G_END_DECLS
