/* inspector-cell.c: a list cell that names itself for screen readers; the Lock column's also
 * knows the row it shows
 *
 * GTK 4.8 gives no way from a row's widgets to its position in the list (GtkColumnViewCell is
 * 4.12). The Lock column's cell holds its GtkListItem (set in cell-name.ui), so the window can
 * tell which row was right-clicked or has the keyboard focus (inspector-window-rows.c).
 *
 * Nor does 4.8 name rows and cells (GtkListItem's accessible-label is 4.12): AT-SPI read every
 * row as "GtkListItemWidget" and every cell as "GtkColumnViewCell". Each cell names the
 * column view's cell around it after the text it shows (its first inscription or label,
 * followed as it changes), and the Lock column's cell names the row from its "row-label"
 * (the lock's name and state, cell-name.ui). It draws nothing itself: its one child is the
 * cell's content.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "inspector-a11y.h"
#include "inspector-cell.h"

struct _InspectorCell
{
  GtkWidget    parent_instance;

  GtkWidget   *child;
  GtkListItem *list_item;  /* not a reference: the list item owns this cell */
  GtkWidget   *label;      /* what the cell is named after: its first inscription or label */
  char        *cell_label; /* or this, when set: the whole of what the label shortens */
  char        *row_label;
};

G_DEFINE_FINAL_TYPE (InspectorCell, inspector_cell, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_CHILD,
  PROP_LIST_ITEM,
  PROP_ROW_LABEL,
  PROP_CELL_LABEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GtkListItem *
inspector_cell_get_list_item (InspectorCell *self)
{
  g_return_val_if_fail (INSPECTOR_IS_CELL (self), NULL);

  return self->list_item;
}

/* The column view's cell is this widget's parent, and the row the cell's parent. */
static void
update_names (InspectorCell *self)
{
  GtkWidget *cell = gtk_widget_get_parent (GTK_WIDGET (self));
  GtkWidget *row = cell != NULL ? gtk_widget_get_parent (cell) : NULL;
  const char *text = self->cell_label != NULL ? self->cell_label
                     : self->label != NULL ? inspector_a11y_text (self->label) : NULL;

  if (cell != NULL && text != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (cell), GTK_ACCESSIBLE_PROPERTY_LABEL, text,
                                    -1);
  if (row != NULL && self->row_label != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                    self->row_label, -1);
}

static void
inspector_cell_dispose (GObject *object)
{
  InspectorCell *self = INSPECTOR_CELL (object);

  if (self->label != NULL)
    g_signal_handlers_disconnect_by_data (self->label, self);
  self->label = NULL;
  g_clear_pointer (&self->row_label, g_free);
  g_clear_pointer (&self->cell_label, g_free);
  g_clear_pointer (&self->child, gtk_widget_unparent);
  G_OBJECT_CLASS (inspector_cell_parent_class)->dispose (object);
}

static void
inspector_cell_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  InspectorCell *self = INSPECTOR_CELL (object);

  switch (prop_id)
    {
    case PROP_CHILD:
      g_value_set_object (value, self->child);
      break;
    case PROP_LIST_ITEM:
      g_value_set_object (value, self->list_item);
      break;
    case PROP_ROW_LABEL:
      g_value_set_string (value, self->row_label);
      break;
    case PROP_CELL_LABEL:
      g_value_set_string (value, self->cell_label);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
inspector_cell_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  InspectorCell *self = INSPECTOR_CELL (object);

  switch (prop_id)
    {
    case PROP_CHILD:
      g_clear_pointer (&self->child, gtk_widget_unparent);
      self->child = g_value_get_object (value);
      if (self->child != NULL)
        gtk_widget_set_parent (self->child, GTK_WIDGET (self));
      self->label = self->child != NULL ? inspector_a11y_first_text (self->child) : NULL;
      if (self->label != NULL)
        g_signal_connect_swapped (self->label,
                                  GTK_IS_INSCRIPTION (self->label) ? "notify::text"
                                                                   : "notify::label",
                                  G_CALLBACK (update_names), self);
      break;
    case PROP_LIST_ITEM:
      self->list_item = g_value_get_object (value);
      break;
    case PROP_ROW_LABEL:
      g_free (self->row_label);
      self->row_label = g_value_dup_string (value);
      update_names (self);
      break;
    case PROP_CELL_LABEL:
      g_free (self->cell_label);
      self->cell_label = g_value_dup_string (value);
      update_names (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
inspector_cell_class_init (InspectorCellClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = inspector_cell_dispose;
  object_class->get_property = inspector_cell_get_property;
  object_class->set_property = inspector_cell_set_property;

  properties[PROP_CHILD] =
    g_param_spec_object ("child", NULL, NULL, GTK_TYPE_WIDGET,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LIST_ITEM] =
    g_param_spec_object ("list-item", NULL, NULL, GTK_TYPE_LIST_ITEM,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* The row's accessible name (the Lock column's cell only). */
  properties[PROP_ROW_LABEL] =
    g_param_spec_string ("row-label", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  /* The cell's accessible name when its label shows less than the whole (a shortened name,
   * a target the row says already). */
  properties[PROP_CELL_LABEL] =
    g_param_spec_string ("cell-label", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
inspector_cell_init (InspectorCell *self)
{
  /* Named again once in the column view's cell: the first labels are set before. */
  g_signal_connect (self, "notify::parent", G_CALLBACK (update_names), NULL);
}
