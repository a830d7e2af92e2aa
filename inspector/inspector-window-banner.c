/* inspector-window-banner.c: the window's banner, which every part of the window reports to
 *
 * A file of its own so that the window's parts call each other in one direction only:
 * inspector-window.c -> -actions.c -> -folders.c -> -banner.c.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "inspector-window-private.h"

/* A success is news for a while; a failure stays until dismissed (or replaced), since it
 * says what to do. */
#define SUCCESS_SHOWN_S 10

static void
hide_banner_cb (gpointer user_data)
{
  InspectorWindow *self = user_data;

  self->banner_id = 0;
  /* The news is over; what the model cannot read is still true, and said again. */
  if (self->problems_text != NULL)
    _inspector_window_show_banner (self, FALSE, self->problems_text);
  else
    gtk_revealer_set_reveal_child (self->banner, FALSE);
}

void
_inspector_window_show_banner (InspectorWindow *self,
                               gboolean         success,
                               const char      *text)
{
  g_clear_handle_id (&self->banner_id, g_source_remove);
  if (success)
    self->banner_id = g_timeout_add_once (SUCCESS_SHOWN_S * 1000, hide_banner_cb, self);

  gtk_image_set_from_icon_name (self->banner_icon,
                                success ? "emblem-ok-symbolic" : "dialog-error-symbolic");
  gtk_label_set_text (self->banner_label, text);
  gtk_widget_remove_css_class (GTK_WIDGET (self->banner), success ? "error" : "success");
  gtk_widget_add_css_class (GTK_WIDGET (self->banner), success ? "success" : "error");
  gtk_revealer_set_reveal_child (self->banner, TRUE);
}
