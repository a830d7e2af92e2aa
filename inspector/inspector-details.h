/* inspector-details.h: the details pane of the selected lock
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>
#include <libfl/fl.h>

G_BEGIN_DECLS

#define INSPECTOR_TYPE_DETAILS (inspector_details_get_type ())

G_DECLARE_FINAL_TYPE (InspectorDetails, inspector_details, INSPECTOR, DETAILS, GtkWidget)

void        inspector_details_set_entry     (InspectorDetails *self,
                                             FlDirectoryModel *model,
                                             FlEntry          *entry);
void        inspector_details_refresh       (InspectorDetails *self);
void        inspector_details_tick          (InspectorDetails *self);
const char *inspector_details_get_evidence  (InspectorDetails *self);
const char *inspector_details_get_state     (InspectorDetails *self);
gboolean    inspector_details_focus_action  (InspectorDetails *self);

G_END_DECLS
