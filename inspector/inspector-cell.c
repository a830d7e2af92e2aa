/* inspector-cell.c: the Lock column's cell, which knows the row it shows
 *
 * GTK 4.8 gives no way from a row's widgets to its position in the list (GtkColumnViewCell is
 * 4.12). This cell holds its GtkListItem (set in cell-name.ui), so the window can tell which
 * row was right-clicked or has the keyboard focus (inspector-window-rows.c). It draws nothing
 * itself: its one child is the name label.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "inspector-cell.h"

struct _InspectorCell
{
  GtkWidget    parent_instance;

  GtkWidget   *child;
  GtkListItem *list_item;  /* not a reference: the list item owns this cell */
};

G_DEFINE_FINAL_TYPE (InspectorCell, inspector_cell, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_CHILD,
  PROP_LIST_ITEM,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GtkListItem *
inspector_cell_get_list_item (InspectorCell *self)
{
  g_return_val_if_fail (INSPECTOR_IS_CELL (self), NULL);

  return self->list_item;
}

static void
inspector_cell_dispose (GObject *object)
{
  InspectorCell *self = INSPECTOR_CELL (object);

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
      break;
    case PROP_LIST_ITEM:
      self->list_item = g_value_get_object (value);
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
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
inspector_cell_init (InspectorCell *self)
{
}
