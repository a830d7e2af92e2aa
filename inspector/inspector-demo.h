/* inspector-demo.h: --demo, a fresh directory filled by `flctl demo`
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define INSPECTOR_TYPE_DEMO (inspector_demo_get_type ())

G_DECLARE_FINAL_TYPE (InspectorDemo, inspector_demo, INSPECTOR, DEMO, GObject)

InspectorDemo *inspector_demo_new           (void);
char          *inspector_demo_find_flctl    (void);
void           inspector_demo_start_async   (InspectorDemo        *self,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
gboolean       inspector_demo_start_finish  (InspectorDemo        *self,
                                             GAsyncResult         *result,
                                             GError              **error);
const char    *inspector_demo_get_directory (InspectorDemo        *self);
void           inspector_demo_stop          (InspectorDemo        *self);

G_END_DECLS
