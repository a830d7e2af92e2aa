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

G_END_DECLS
