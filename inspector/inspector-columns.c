/* inspector-columns.c: the column view's cells, sorters and filter
 *
 * A cell shows its entry's current snapshot and follows notify::snapshot while it is bound:
 * a lock that changes refreshes its row in place. Only bound cells exist (the visible rows and
 * a few more), and only bound age cells tick, so nothing here is proportional to the number of
 * locks.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "inspector-state.h"
#include "inspector-window-private.h"

typedef void (*CellUpdate) (GtkListItem *item,
                            FlSnapshot  *snapshot,
                            gpointer     user_data);

static void
entry_notify_cb (FlEntry     *entry,
                 GParamSpec  *pspec,
                 GtkListItem *item)
{
  CellUpdate update = g_object_get_data (G_OBJECT (item), "inspector-update");

  update (item, fl_entry_get_snapshot (entry),
          g_object_get_data (G_OBJECT (item), "inspector-window"));
}

static void
cell_bind (GtkListItem     *item,
           CellUpdate       update,
           InspectorWindow *self)
{
  FlEntry *entry = gtk_list_item_get_item (item);

  g_object_set_data (G_OBJECT (item), "inspector-update", update);
  g_object_set_data (G_OBJECT (item), "inspector-window", self);
  update (item, fl_entry_get_snapshot (entry), self);
  g_signal_connect_object (entry, "notify::snapshot", G_CALLBACK (entry_notify_cb), item, 0);
}

static void
cell_unbind_cb (GtkSignalListItemFactory *factory,
                GtkListItem              *item,
                InspectorWindow          *self)
{
  FlEntry *entry = gtk_list_item_get_item (item);

  if (entry != NULL)
    g_signal_handlers_disconnect_by_func (entry, entry_notify_cb, item);
}

static void
text_cell_setup_cb (GtkSignalListItemFactory *factory,
                    GtkListItem              *item,
                    InspectorWindow          *self)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_width_chars (GTK_LABEL (label), 6);
  gtk_list_item_set_child (item, label);
}

static void
set_text (GtkListItem *item,
          const char  *text)
{
  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text != NULL ? text : "");
}

static void
update_name (GtkListItem *item,
             FlSnapshot  *snap,
             gpointer     user_data)
{
  set_text (item, fl_snapshot_get_name (snap));
  gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), fl_snapshot_get_path (snap));
}

static void
name_cell_bind_cb (GtkSignalListItemFactory *factory,
                   GtkListItem              *item,
                   InspectorWindow          *self)
{
  cell_bind (item, update_name, self);
}

static void
update_target (GtkListItem *item,
               FlSnapshot  *snap,
               gpointer     user_data)
{
  g_autofree char *base = g_path_get_basename (fl_snapshot_get_target (snap));

  set_text (item, base);
  gtk_widget_set_tooltip_text (gtk_list_item_get_child (item), fl_snapshot_get_target (snap));
}

static void
target_cell_bind_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *item,
                     InspectorWindow          *self)
{
  cell_bind (item, update_target, self);
}

static void
update_holder (GtkListItem *item,
               FlSnapshot  *snap,
               gpointer     user_data)
{
  g_autofree char *holder = inspector_format_holder (snap);

  set_text (item, holder);
}

static void
holder_cell_bind_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *item,
                     InspectorWindow          *self)
{
  cell_bind (item, update_holder, self);
}

static void
update_kernel (GtkListItem *item,
               FlSnapshot  *snap,
               gpointer     user_data)
{
  set_text (item, fl_snapshot_get_kind (snap) == FL_ENTRY_LOCK
                  ? fl_kernel_lock_get_label (fl_snapshot_get_kernel_lock (snap)) : "—");
}

static void
kernel_cell_bind_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *item,
                     InspectorWindow          *self)
{
  cell_bind (item, update_kernel, self);
}

/* State: an icon and words, never colour alone. */
static void
state_cell_setup_cb (GtkSignalListItemFactory *factory,
                     GtkListItem              *item,
                     InspectorWindow          *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *image = g_object_new (GTK_TYPE_IMAGE,
                                   "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION,
                                   NULL);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_box_append (GTK_BOX (box), image);
  gtk_box_append (GTK_BOX (box), label);
  gtk_widget_set_name (box, "state-cell");
  gtk_list_item_set_child (item, box);
}

static void
update_state (GtkListItem *item,
              FlSnapshot  *snap,
              gpointer     user_data)
{
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *image = gtk_widget_get_first_child (box);
  GtkWidget *label = gtk_widget_get_last_child (box);
  FlEntryState state = fl_snapshot_get_state (snap);
  g_autofree char *text = fl_snapshot_dup_state_summary (snap);

  gtk_image_set_from_icon_name (GTK_IMAGE (image), inspector_state_icon_name (state));
  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (box, text);
  /* The tests read which entry a state cell shows. */
  g_object_set_data_full (G_OBJECT (box), "inspector-path", g_strdup (fl_snapshot_get_path (snap)),
                          g_free);
}

static void
state_cell_bind_cb (GtkSignalListItemFactory *factory,
                    GtkListItem              *item,
                    InspectorWindow          *self)
{
  cell_bind (item, update_state, self);
}

static void
update_age (GtkListItem *item,
            FlSnapshot  *snap,
            gpointer     user_data)
{
  InspectorWindow *self = user_data;
  g_autofree char *age = fl_format_age (
    fl_snapshot_get_age_at (snap, fl_directory_model_get_now (self->model)));

  set_text (item, age);
}

static void
age_cell_bind_cb (GtkSignalListItemFactory *factory,
                  GtkListItem              *item,
                  InspectorWindow          *self)
{
  cell_bind (item, update_age, self);
  g_hash_table_add (self->age_cells, item);
}

static void
age_cell_unbind_cb (GtkSignalListItemFactory *factory,
                    GtkListItem              *item,
                    InspectorWindow          *self)
{
  if (self->age_cells != NULL)
    g_hash_table_remove (self->age_cells, item);
  cell_unbind_cb (factory, item, self);
}

/* Called once a second while the window is visible. */
void
_inspector_window_tick (InspectorWindow *self)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->age_cells);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      GtkListItem *item = key;
      FlEntry *entry = gtk_list_item_get_item (item);

      if (entry != NULL)
        update_age (item, fl_entry_get_snapshot (entry), self);
    }
  inspector_details_tick (self->details);
}

static int
state_rank_cb (FlEntry *entry)
{
  return inspector_state_rank (fl_snapshot_get_state (fl_entry_get_snapshot (entry)));
}

static int
kernel_rank_cb (FlEntry *entry)
{
  return fl_snapshot_get_kernel_lock (fl_entry_get_snapshot (entry));
}

static GtkSorter *
closure_sorter (GCallback callback)
{
  GtkExpression *expression = gtk_cclosure_expression_new (G_TYPE_INT, NULL, 0, NULL, callback,
                                                           NULL, NULL);

  return GTK_SORTER (gtk_numeric_sorter_new (expression));
}

/* Search by lock name, target, PID or process name; "problems only" hides held locks. */
gboolean
_inspector_window_filter_cb (gpointer item,
                             gpointer user_data)
{
  InspectorWindow *self = user_data;
  FlSnapshot *snap = fl_entry_get_snapshot (item);
  const char *text = self->search_text;
  g_autofree char *pid = NULL;
  g_autofree char *name = NULL;
  const char *process;

  if (self->problems_only && !fl_entry_state_is_problem (fl_snapshot_get_state (snap)))
    return FALSE;
  if (text == NULL || text[0] == '\0')
    return TRUE;

  pid = g_strdup_printf ("%d", fl_snapshot_get_pid (snap));
  if (g_str_equal (pid, text))
    return TRUE;
  name = g_utf8_casefold (fl_snapshot_get_name (snap), -1);
  if (strstr (name, text) != NULL)
    return TRUE;
  process = fl_snapshot_get_process_name (snap);
  if (process != NULL)
    {
      g_autofree char *folded = g_utf8_casefold (process, -1);

      if (strstr (folded, text) != NULL)
        return TRUE;
    }
  return FALSE;
}

void
_inspector_window_setup_columns (InspectorWindow *self)
{
  g_autoptr(GtkSorter) state_sorter = closure_sorter (G_CALLBACK (state_rank_cb));
  g_autoptr(GtkSorter) kernel_sorter = closure_sorter (G_CALLBACK (kernel_rank_cb));

  gtk_column_view_column_set_sorter (self->state_column, state_sorter);
  gtk_column_view_column_set_sorter (self->kernel_column, kernel_sorter);
}

void
_inspector_columns_bind_callbacks (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, text_cell_setup_cb);
  gtk_widget_class_bind_template_callback (widget_class, state_cell_setup_cb);
  gtk_widget_class_bind_template_callback (widget_class, name_cell_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, target_cell_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, holder_cell_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, state_cell_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, age_cell_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, kernel_cell_bind_cb);
  gtk_widget_class_bind_template_callback (widget_class, cell_unbind_cb);
  gtk_widget_class_bind_template_callback (widget_class, age_cell_unbind_cb);
}
