/* inspector-window-top.c: the list stays at its top while it fills, unless the person scrolled
 *
 * GTK's list view keeps the row at the top of the view where it is when rows come in above
 * it: while a folder of 100,000 locks was read and sorted, the first chunk's first row stayed
 * in view while hundreds of rows sorted in above it, and a search showed the end of its
 * results. As in Files and System Monitor, a list that fills is shown from its top: while
 * "keep_top" holds, the view goes back to the top each time rows push it down. It holds from
 * the start of a reading (with the view at its top) and from each change of the search, and
 * ends as soon as the person scrolls, clicks or moves in the list, or the program scrolls to a
 * row it selected (inspector-window-rows.c).
 *
 * It also ends once the list has filled: after the reading ends (or the search is applied,
 * which the filter does at once), at the second frame in a row that finds the view at its top
 * (a layout in between, which is where rows push it down). Later changes (a lock taken, a
 * burst of them) then leave the view where it is, as Files does; pinned, each frame of a
 * sorted burst scrolled back and bound every visible row again (the inspector bench's
 * main-thread time per change doubled or tripled).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "inspector-window-private.h"

static GtkAdjustment *
vadjustment (InspectorWindow *self)
{
  return gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->column_view));
}

static gboolean
is_loading (InspectorWindow *self)
{
  gboolean loading;

  g_object_get (self->model, "loading", &loading, NULL);
  return loading;
}

static void
stop_settling (InspectorWindow *self)
{
  if (self->settle_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->settle_id);
  self->settle_id = 0;
}

static gboolean
settle_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);

  /* A reading under way: its end starts this again. */
  if (!self->keep_top || is_loading (self))
    {
      self->settle_id = 0;
      return G_SOURCE_REMOVE;
    }
  if (gtk_adjustment_get_value (vadjustment (self)) > 0)
    {
      gtk_adjustment_set_value (vadjustment (self), 0);
      self->settle_frames = 0;
      return G_SOURCE_CONTINUE;
    }
  if (++self->settle_frames < 2)
    return G_SOURCE_CONTINUE;
  self->keep_top = FALSE;
  self->settle_id = 0;
  return G_SOURCE_REMOVE;
}

/* The list has filled: the pinning ends once the view stays at its top. */
static void
settle (InspectorWindow *self)
{
  if (!self->keep_top || is_loading (self) || self->settle_id != 0)
    return;
  self->settle_frames = 0;
  self->settle_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), settle_tick_cb, NULL, NULL);
}

/* In the next frame: the value is not changed while the list view allocates. */
static gboolean
to_top_tick_cb (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       user_data)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);

  self->top_tick_id = 0;
  if (self->keep_top)
    gtk_adjustment_set_value (vadjustment (self), 0);
  return G_SOURCE_REMOVE;
}

static void
value_changed_cb (GtkAdjustment   *adjustment,
                  InspectorWindow *self)
{
  if (self->keep_top && gtk_adjustment_get_value (adjustment) > 0 && self->top_tick_id == 0)
    self->top_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), to_top_tick_cb, NULL,
                                                      NULL);
}

void
_inspector_window_keep_top (InspectorWindow *self,
                            gboolean         keep)
{
  self->keep_top = keep;
  if (keep)
    value_changed_cb (vadjustment (self), self);
  if (keep)
    settle (self);
  else
    stop_settling (self);
}

static void
loading_cb (FlDirectoryModel *model,
            GParamSpec       *pspec,
            InspectorWindow  *self)
{
  gboolean loading;

  g_object_get (model, "loading", &loading, NULL);
  if (loading && gtk_adjustment_get_value (vadjustment (self)) == 0)
    _inspector_window_keep_top (self, TRUE);
  else if (!loading)
    settle (self);
}

/* Anything the person does in the list or its scrollbars. */
static void
user_input_cb (InspectorWindow *self)
{
  self->keep_top = FALSE;
  stop_settling (self);
}

static gboolean
user_key_cb (GtkEventControllerKey *controller,
             guint                  keyval,
             guint                  keycode,
             GdkModifierType        state,
             InspectorWindow       *self)
{
  user_input_cb (self);
  return FALSE;
}

static gboolean
user_scroll_cb (GtkEventControllerScroll *controller,
                double                    dx,
                double                    dy,
                InspectorWindow          *self)
{
  user_input_cb (self);
  return FALSE;
}

void
_inspector_window_setup_top (InspectorWindow *self)
{
  GtkWidget *scroller = gtk_widget_get_parent (GTK_WIDGET (self->column_view));
  GtkEventController *scroll = gtk_event_controller_scroll_new (
                                 GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *keys = gtk_event_controller_key_new ();

  self->keep_top = TRUE;
  g_signal_connect (vadjustment (self), "value-changed", G_CALLBACK (value_changed_cb), self);
  g_signal_connect_object (self->model, "notify::loading", G_CALLBACK (loading_cb), self, 0);

  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect (scroll, "scroll", G_CALLBACK (user_scroll_cb), self);
  gtk_widget_add_controller (scroller, scroll);
  /* Any button, on a row or a scrollbar; never claimed, so the click goes on. */
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (click, "pressed", G_CALLBACK (user_input_cb), self);
  gtk_widget_add_controller (scroller, GTK_EVENT_CONTROLLER (click));
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (user_key_cb), self);
  gtk_widget_add_controller (scroller, keys);
}

void
_inspector_window_teardown_top (InspectorWindow *self)
{
  if (self->top_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->top_tick_id);
  self->top_tick_id = 0;
  stop_settling (self);
  if (self->column_view != NULL)
    g_signal_handlers_disconnect_by_data (vadjustment (self), self);
}
