/* inspector-a11y.h: accessible names the way a screen reader should read them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* @text less its mnemonic underscores ("_Copy Path" -> "Copy Path", "__" -> "_"). */
char *inspector_a11y_strip_mnemonic (const char *text);

/* Names every button under @root that has a mnemonic label after that label without its
 * underscore, and keeps the name so as the label changes. */
void  inspector_a11y_name_buttons   (GtkWidget  *root);
/* The first label in @widget or under it (depth first), what a cell or title is read as. */
GtkLabel *inspector_a11y_first_label (GtkWidget *widget);
/* The first GtkInscription in @widget or under it, else its first label: what a list cell is
 * read as. */
GtkWidget  *inspector_a11y_first_text (GtkWidget *widget);
/* The text @text (a GtkLabel or a GtkInscription) shows, or NULL for another widget. */
const char *inspector_a11y_text       (GtkWidget *text);
/* Names @view's header row, its titles and its inner list (@name, as the view's own), which
 * GTK 4.8 leaves to their type names. */
void  inspector_a11y_name_column_view (GtkColumnView *view,
                                       const char    *name);

G_END_DECLS
