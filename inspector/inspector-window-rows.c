/* inspector-window-rows.c: the list's rows as a person reaches them: the keyboard cursor kept
 * on the selected row, the context menu, row activation
 *
 * GTK 4.8's column view keeps its keyboard cursor (the focused row) apart from the selection:
 * a row selected by the program (at start, after a search or a refresh) is not where the
 * arrow keys start from. So whenever the focus enters the list, or the selection moves while
 * the list has the focus, the focus is put on the selected row. Rows are found through the
 * InspectorCell of the Lock column, which knows its GtkListItem (inspector-cell.c). The other
 * way round too: when the focus comes into a list where nothing is selected (Down from the
 * search), the row it lands on is selected, so that the ring and the details never disagree.
 *
 * Tab leaves the list, as in Files and System Monitor: GTK 4.8's list view moves Tab from row
 * to row, so 20,000 rows stood between the search and the details. Tab goes on to the details
 * pane and Shift+Tab back to the bar above the list; from the details, Tab goes round to the
 * search, Shift+Tab and Escape back to the selected row.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-cell.h"
#include "inspector-window-private.h"

/* A row that is not realised yet (scrolled to just now) appears within a few frames. */
#define FOCUS_TRIES 10

/* The column view's own list view, whose children are the rows. */
static GtkWidget *
row_list (InspectorWindow *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->column_view));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      return child;
  return NULL;
}

static InspectorCell *
find_cell (GtkWidget *widget)
{
  if (INSPECTOR_IS_CELL (widget))
    return INSPECTOR_CELL (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      InspectorCell *cell = find_cell (child);

      if (cell != NULL)
        return cell;
    }
  return NULL;
}

/* The row @widget is part of, or NULL. */
static GtkWidget *
row_of (InspectorWindow *self,
        GtkWidget       *widget)
{
  GtkWidget *list = row_list (self);

  for (; widget != NULL; widget = gtk_widget_get_parent (widget))
    if (gtk_widget_get_parent (widget) == list)
      return widget;
  return NULL;
}

static guint
row_position (GtkWidget *row)
{
  InspectorCell *cell = row != NULL ? find_cell (row) : NULL;
  GtkListItem *item = cell != NULL ? inspector_cell_get_list_item (cell) : NULL;

  return item != NULL && gtk_list_item_get_item (item) != NULL
         ? gtk_list_item_get_position (item) : GTK_INVALID_LIST_POSITION;
}

static GtkWidget *
find_row (InspectorWindow *self,
          guint            position)
{
  GtkWidget *list = row_list (self);

  for (GtkWidget *row = list != NULL ? gtk_widget_get_first_child (list) : NULL; row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (gtk_widget_get_mapped (row) && row_position (row) == position)
      return row;
  return NULL;
}

guint
_inspector_window_get_focused_position (InspectorWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  return row_position (row_of (self, focus));
}

static gboolean
list_has_focus (InspectorWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  return focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->column_view));
}

static gboolean
focus_selected_tick_cb (GtkWidget     *widget,
                        GdkFrameClock *clock,
                        gpointer       user_data)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  guint selected = gtk_single_selection_get_selected (self->selection);
  GtkWidget *row = find_row (self, selected);

  /* The person went elsewhere meanwhile (the details, the search): the focus stays there. */
  if (!list_has_focus (self) || (row != NULL && gtk_widget_grab_focus (row)))
    {
      self->focus_tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  if (++self->focus_tries < FOCUS_TRIES && selected != GTK_INVALID_LIST_POSITION)
    return G_SOURCE_CONTINUE;
  self->focus_tick_id = 0;
  return G_SOURCE_REMOVE;
}

/* Puts the keyboard focus on the selected row (or on the list, when nothing is selected). */
void
_inspector_window_focus_selected_row (InspectorWindow *self)
{
  guint selected = gtk_single_selection_get_selected (self->selection);
  GtkWidget *list = row_list (self);
  GtkWidget *row;

  if (selected == GTK_INVALID_LIST_POSITION || list == NULL)
    {
      gtk_widget_grab_focus (GTK_WIDGET (self->column_view));
      return;
    }
  if (!list_has_focus (self))
    gtk_widget_grab_focus (GTK_WIDGET (self->column_view));
  if (_inspector_window_get_focused_position (self) == selected)
    return;

  row = find_row (self, selected);
  if (row != NULL && gtk_widget_grab_focus (row))
    return;
  /* Not on screen: scroll there, and focus it once the list has made the row. The list no
   * longer keeps to its top (inspector-window-top.c). */
  _inspector_window_keep_top (self, FALSE);
  gtk_widget_activate_action (list, "list.scroll-to-item", "u", selected);
  self->focus_tries = 0;
  if (self->focus_tick_id == 0)
    self->focus_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self),
                                                        focus_selected_tick_cb, NULL, NULL);
}

/* The selection moved (a search, a refresh, the program): the cursor follows, if the list
 * has the focus. Moves made with the keys already agree, so this costs nothing for them. */
void
_inspector_window_cursor_follow_selection (InspectorWindow *self)
{
  if (list_has_focus (self)
      && _inspector_window_get_focused_position (self)
         != gtk_single_selection_get_selected (self->selection))
    _inspector_window_focus_selected_row (self);
}

static void
list_focus_enter_cb (GtkEventControllerFocus *controller,
                     InspectorWindow         *self)
{
  guint focused;

  if (gtk_single_selection_get_selected (self->selection) == GTK_INVALID_LIST_POSITION
      && g_list_model_get_n_items (G_LIST_MODEL (self->selection)) > 0)
    {
      /* Nothing selected: the row the focus lands on, or the first. */
      focused = _inspector_window_get_focused_position (self);
      gtk_single_selection_set_selected (self->selection,
                                         focused != GTK_INVALID_LIST_POSITION ? focused : 0);
    }
  _inspector_window_cursor_follow_selection (self);
}

/* Tab and Shift+Tab, with no other modifier (Ctrl+Tab keeps GTK's meaning). */
static int
tab_direction (guint           keyval,
               GdkModifierType state)
{
  if ((state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0)
    return 0;
  if (keyval == GDK_KEY_ISO_Left_Tab
      || ((keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab) && (state & GDK_SHIFT_MASK)))
    return -1;
  if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
    return 1;
  return 0;
}

/* The details' controls Tab moves between, in order: GTK 4.8's own Tab stopped at the first
 * selectable label after the buttons (a label that is not focusable still answers "focus"
 * with TRUE), so the details walk their buttons themselves. */
static void
collect_controls (GtkWidget *widget,
                  GPtrArray *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_mapped (child) || !gtk_widget_is_sensitive (child))
        continue;
      if (gtk_widget_get_focusable (child) && !GTK_IS_LABEL (child))
        g_ptr_array_add (out, child);
      else
        collect_controls (child, out);
    }
}

/* The next (@step 1) or previous (-1) control of the details from the focus, or from outside
 * them; FALSE past the end. */
static gboolean
focus_details_control (InspectorWindow *self,
                       int              step)
{
  g_autoptr(GPtrArray) controls = g_ptr_array_new ();
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  int at = step > 0 ? -1 : 0;

  collect_controls (GTK_WIDGET (self->details), controls);
  if (step < 0)
    at = (int) controls->len;
  for (guint i = 0; focus != NULL && i < controls->len; i++)
    if (focus == controls->pdata[i] || gtk_widget_is_ancestor (focus, controls->pdata[i]))
      at = (int) i;
  for (at += step; at >= 0 && at < (int) controls->len; at += step)
    if (gtk_widget_grab_focus (controls->pdata[at]))
      return TRUE;
  return FALSE;
}

/* Into the details pane, onto the control that acts on the entry; the search when there is
 * none. */
static void
focus_details (InspectorWindow *self)
{
  if (inspector_details_focus_action (self->details) || focus_details_control (self, 1))
    return;
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static gboolean
list_key_pressed_cb (GtkEventControllerKey *controller,
                     guint                  keyval,
                     guint                  keycode,
                     GdkModifierType        state,
                     InspectorWindow       *self)
{
  switch (tab_direction (keyval, state))
    {
    case 1:
      focus_details (self);
      return TRUE;
    case -1:
      gtk_widget_grab_focus (GTK_WIDGET (self->problems_button));
      return TRUE;
    default:
      return FALSE;
    }
}

/* Down or Enter in the search: into the results, the first selected if none was, as in
 * Files. */
static void
search_to_list (InspectorWindow *self)
{
  if (g_list_model_get_n_items (G_LIST_MODEL (self->selection)) == 0)
    return;
  if (gtk_single_selection_get_selected (self->selection) == GTK_INVALID_LIST_POSITION)
    gtk_single_selection_set_selected (self->selection, 0);
  _inspector_window_focus_selected_row (self);
}

static gboolean
search_key_pressed_cb (GtkEventControllerKey *controller,
                       guint                  keyval,
                       guint                  keycode,
                       GdkModifierType        state,
                       InspectorWindow       *self)
{
  if ((keyval != GDK_KEY_Down && keyval != GDK_KEY_KP_Down)
      || (state & (GDK_CONTROL_MASK | GDK_ALT_MASK | GDK_SHIFT_MASK)) != 0
      || g_list_model_get_n_items (G_LIST_MODEL (self->selection)) == 0)
    return FALSE;
  search_to_list (self);
  return TRUE;
}

static gboolean
details_key_pressed_cb (GtkEventControllerKey *controller,
                        guint                  keyval,
                        guint                  keycode,
                        GdkModifierType        state,
                        InspectorWindow       *self)
{
  if (keyval == GDK_KEY_Escape && (state & (GDK_CONTROL_MASK | GDK_ALT_MASK)) == 0)
    {
      _inspector_window_focus_selected_row (self);
      return TRUE;
    }
  switch (tab_direction (keyval, state))
    {
    case 1:
      if (!focus_details_control (self, 1))
        gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
      return TRUE;
    case -1:
      if (!focus_details_control (self, -1))
        _inspector_window_focus_selected_row (self);
      return TRUE;
    default:
      return FALSE;
    }
}

/* The context menu */

static void
popup_row_menu (InspectorWindow *self,
                double           x,
                double           y)
{
  GdkRectangle at = { (int) x, (int) y, 1, 1 };

  gtk_popover_set_pointing_to (GTK_POPOVER (self->row_menu), &at);
  gtk_popover_popup (GTK_POPOVER (self->row_menu));
}

guint
_inspector_window_get_position_at (InspectorWindow *self,
                                   double           x,
                                   double           y)
{
  GtkWidget *picked = gtk_widget_pick (GTK_WIDGET (self->column_view), x, y, GTK_PICK_DEFAULT);

  return row_position (row_of (self, picked));
}

gboolean
_inspector_window_get_row_bounds (InspectorWindow *self,
                                  guint            position,
                                  graphene_rect_t *bounds)
{
  GtkWidget *row = find_row (self, position);

  return row != NULL && gtk_widget_compute_bounds (row, GTK_WIDGET (self->column_view), bounds);
}

static void
secondary_pressed_cb (GtkGestureClick *gesture,
                      int              n_press,
                      double           x,
                      double           y,
                      InspectorWindow *self)
{
  guint position = _inspector_window_get_position_at (self, x, y);

  if (position == GTK_INVALID_LIST_POSITION)
    return;
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  gtk_single_selection_set_selected (self->selection, position);
  popup_row_menu (self, x, y);
}

/* The Menu key or Shift+F10: the menu of the selected row, pointing at it. */
static void
row_menu_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  graphene_rect_t bounds;

  if (_inspector_window_get_selected (self) == NULL)
    return;
  if (_inspector_window_get_row_bounds (self, gtk_single_selection_get_selected (self->selection),
                                        &bounds))
    popup_row_menu (self, bounds.origin.x + 24, bounds.origin.y + bounds.size.height / 2);
  else
    popup_row_menu (self, 24, 24);
}

/* Into the details pane, onto the button that acts on the entry. */
static void
show_details_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);

  if (_inspector_window_get_selected (self) == NULL)
    return;
  inspector_details_focus_action (self->details);
}

static void
folder_shown_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(InspectorWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  const char *folder = g_object_get_data (G_OBJECT (self), "inspector-folder");
  g_autofree char *text = NULL;

  if (g_app_info_launch_default_for_uri_finish (result, &error) || self->banner == NULL)
    return;
  text = g_strdup_printf (_("The folder “%s” could not be opened: %s. Open it in a file "
                            "manager yourself, or copy the file's path with Ctrl+Shift+C."),
                          folder, error->message);
  _inspector_window_show_banner (self, FALSE, text);
}

/* The folder that holds the selected file, in the desktop's file manager. */
static void
open_folder_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  FlEntry *selected = _inspector_window_get_selected (self);
  FlSnapshot *snap = selected != NULL ? fl_entry_get_snapshot (selected) : NULL;
  g_autofree char *folder = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *uri = NULL;
  g_autoptr(GAppLaunchContext) context = NULL;

  if (snap == NULL || !g_path_is_absolute (fl_snapshot_get_path (snap)))
    return;
  folder = g_path_get_dirname (fl_snapshot_get_path (snap));
  file = g_file_new_for_path (folder);
  uri = g_file_get_uri (file);
  context = G_APP_LAUNCH_CONTEXT (gdk_display_get_app_launch_context (
                                    gtk_widget_get_display (widget)));
  g_object_set_data_full (G_OBJECT (self), "inspector-folder", g_strdup (folder), g_free);
  g_app_info_launch_default_for_uri_async (uri, context, NULL, folder_shown_cb,
                                           g_object_ref (self));
}

/* Enter or a double click on a row: its details, where the person can act on it. */
static void
row_activated_cb (GtkColumnView   *view,
                  guint            position,
                  InspectorWindow *self)
{
  gtk_single_selection_set_selected (self->selection, position);
  gtk_widget_activate_action (GTK_WIDGET (self), "win.show-details", NULL);
}

void
_inspector_window_setup_rows (InspectorWindow *self)
{
  GtkGesture *click = gtk_gesture_click_new ();
  GtkEventController *focus = gtk_event_controller_focus_new ();
  GtkEventController *keys;

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect (click, "pressed", G_CALLBACK (secondary_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->column_view), GTK_EVENT_CONTROLLER (click));

  g_signal_connect (focus, "enter", G_CALLBACK (list_focus_enter_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->column_view), focus);

  /* Before the list view's own Tab handling, which would move from row to row: on the list's
   * scrolled window, whose capture phase comes before any of the list's own controllers (the
   * search entry's key capture among them). */
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (list_key_pressed_cb), self);
  gtk_widget_add_controller (gtk_widget_get_parent (GTK_WIDGET (self->column_view)), keys);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (search_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), keys);
  g_signal_connect_swapped (self->search_entry, "activate", G_CALLBACK (search_to_list), self);
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (details_key_pressed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self->details), keys);

  g_signal_connect (self->column_view, "activate", G_CALLBACK (row_activated_cb), self);
  self->row_menu = gtk_popover_menu_new_from_model (self->row_menu_model);
  gtk_popover_set_has_arrow (GTK_POPOVER (self->row_menu), FALSE);
  gtk_widget_set_halign (self->row_menu, GTK_ALIGN_START);
  gtk_widget_set_parent (self->row_menu, GTK_WIDGET (self->column_view));
}

void
_inspector_window_teardown_rows (InspectorWindow *self)
{
  if (self->focus_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->focus_tick_id);
  self->focus_tick_id = 0;
  g_clear_pointer (&self->row_menu, gtk_widget_unparent);
}

void
_inspector_window_install_row_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.row-menu", NULL, row_menu_action);
  gtk_widget_class_install_action (widget_class, "win.show-details", NULL, show_details_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
}
