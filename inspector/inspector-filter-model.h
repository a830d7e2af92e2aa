/* inspector-filter-model.h: the list's rows that pass the search and "problems only", in the
 * directory model's order, kept up to date one change at a time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <libfl/fl.h>

G_BEGIN_DECLS

#define INSPECTOR_TYPE_FILTER_MODEL (inspector_filter_model_get_type ())

G_DECLARE_FINAL_TYPE (InspectorFilterModel, inspector_filter_model, INSPECTOR, FILTER_MODEL,
                      GObject)

typedef gboolean (*InspectorMatchFunc) (FlEntry  *entry,
                                        gpointer  user_data);

void        inspector_filter_model_set_model      (InspectorFilterModel *self,
                                                   GListModel           *model);
void        inspector_filter_model_set_match_func (InspectorFilterModel *self,
                                                   InspectorMatchFunc    match,
                                                   gpointer              user_data);
void        inspector_filter_model_refilter       (InspectorFilterModel *self);
void        inspector_filter_model_update         (InspectorFilterModel *self,
                                                   FlEntry              *entry);
guint       inspector_filter_model_get_n_passes   (InspectorFilterModel *self);

G_END_DECLS
