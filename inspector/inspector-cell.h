/* inspector-cell.h: the Lock column's cell, which knows the row it shows
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define INSPECTOR_TYPE_CELL (inspector_cell_get_type ())

G_DECLARE_FINAL_TYPE (InspectorCell, inspector_cell, INSPECTOR, CELL, GtkWidget)

GtkListItem *inspector_cell_get_list_item (InspectorCell *self);

G_END_DECLS
