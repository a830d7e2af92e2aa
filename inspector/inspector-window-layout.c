/* inspector-window-layout.c: the details pane beside the list on a wide window, below it on a
 * narrow one
 *
 * Widths are logical pixels, so a HiDPI screen at scale 2 counts as half as wide: the same
 * rule covers both. The pane's position beside the list is remembered (details-position);
 * below the list it is not, since it depends on the height.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "inspector-window-private.h"

/* Below this, the list and the details (300 px at least) would not both be readable. */
#define NARROW_BELOW_PX 840

static void
apply_layout_cb (gpointer user_data)
{
  InspectorWindow *self = user_data;
  GtkOrientation want = self->narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL;

  self->layout_id = 0;
  if (gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned)) == want)
    return;
  /* GTK 4.8's paned keeps its measurements across a change of orientation (a CRITICAL
   * "reports a minimum height ... Expect overlapping widgets"): measured again below. */
  gtk_widget_queue_resize (GTK_WIDGET (self->paned));

  if (self->narrow)
    {
      g_settings_unbind (self->paned, "position");
      gtk_orientable_set_orientation (GTK_ORIENTABLE (self->paned), want);
      gtk_paned_set_position (self->paned,
                              MAX (gtk_widget_get_height (GTK_WIDGET (self->paned)), 400) * 3 / 5);
    }
  else
    {
      gtk_orientable_set_orientation (GTK_ORIENTABLE (self->paned), want);
      g_settings_bind (self->settings, "details-position", self->paned, "position",
                       G_SETTINGS_BIND_DEFAULT);
    }
  gtk_widget_queue_resize (GTK_WIDGET (self->paned));
}

/* From size_allocate: the change waits for an idle, since a layout must not change while it
 * is being allocated. */
void
_inspector_window_update_layout (InspectorWindow *self,
                                 int              width)
{
  gboolean narrow = width < NARROW_BELOW_PX;

  if (narrow == self->narrow && self->layout_id == 0
      && gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned))
         == (narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL))
    return;
  self->narrow = narrow;
  if (!gtk_widget_get_realized (GTK_WIDGET (self)))
    {
      /* Before the first frame (from the remembered width): at once, so the window is never
       * measured with the wrong layout. */
      g_clear_handle_id (&self->layout_id, g_source_remove);
      apply_layout_cb (self);
    }
  else if (self->layout_id == 0)
    self->layout_id = g_idle_add_once (apply_layout_cb, self);
}

gboolean
_inspector_window_is_narrow (InspectorWindow *self)
{
  return gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned))
         == GTK_ORIENTATION_VERTICAL;
}
