/* ui-test-util.h: driving the Lock Inspector's window in-process, under Xvfb
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "fl-test-util.h"
#include "inspector-window-private.h"

G_BEGIN_DECLS

gboolean         ui_test_init          (int              *argc,
                                        char           ***argv);
void             ui_test_use_german    (void);
InspectorWindow *ui_window_with_demo   (void);
void             ui_window_close       (InspectorWindow  *window);
char            *ui_demo_path          (InspectorWindow  *window,
                                        const char       *name);
FlEntry         *ui_lookup             (InspectorWindow  *window,
                                        const char       *name);
GtkWidget       *ui_find_actionable    (GtkWidget        *root,
                                        const char       *action_name);
gboolean         ui_wait_listed        (InspectorWindow  *window,
                                        const char       *path,
                                        guint             timeout_ms);
const char      *ui_detail             (InspectorWindow  *window,
                                        const char       *key);
GHashTable      *ui_rendered_states    (GtkWidget        *root);
void             ui_collect_widgets    (GtkWidget        *root,
                                        GType             type,
                                        GPtrArray        *out);
/* Every widget under @root that shows a text: labels, and the list cells' inscriptions. */
void             ui_collect_texts      (GtkWidget        *root,
                                        GPtrArray        *out);
/* The text @widget (a GtkLabel or a GtkInscription) shows; NULL for another widget. */
const char      *ui_text_of            (GtkWidget        *widget);
/* Whether @widget (a GtkLabel or a GtkInscription) shows its text whole, not shortened. */
gboolean         ui_text_is_whole      (GtkWidget        *widget);
void             ui_send_key           (GtkWindow        *window,
                                        guint             keyval,
                                        GdkModifierType   state);

G_END_DECLS
