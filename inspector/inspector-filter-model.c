/* inspector-filter-model.c: the list's rows that pass the search and "problems only", in the
 * directory model's order, kept up to date one change at a time
 *
 * Why not GtkFilterListModel: in GTK 4.8 it keeps its verdicts in a GtkBitset, and every
 * insertion or removal above the last row shifts that bitset one bit at a time
 * (gtk_bitset_splice() rebuilds it): at 100,000 rows about a millisecond of the main loop for
 * each lock that comes or goes, more than the rest of the list's work for it. It also has no
 * way to judge one changed item again: a lock that turned stale under "problems only" meant a
 * pass over every row. Here the verdicts are one byte an item, a change costs a scan of bytes
 * and a memmove, and a changed entry is judged alone (inspector_filter_model_update()).
 * docs/performance.md, "The Lock Inspector at scale", has the figures.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "inspector-filter-model.h"

struct _InspectorFilterModel
{
  GObject             parent_instance;

  GListModel         *model;
  InspectorMatchFunc  match;        /* NULL: every item passes */
  gpointer            match_data;

  GArray             *all;          /* of gpointer: the model's items in its order, owned */
  GArray             *shown;        /* of guint8, for each of all: whether it passes */
  GArray             *rows;         /* of gpointer: those that pass, in the same order */
  guint               n_passes;     /* judgements of every item (a criterion changed) */
};

enum
{
  PROP_0,
  PROP_MODEL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
filter_model_get_item_type (GListModel *list)
{
  return FL_TYPE_ENTRY;
}

static guint
filter_model_get_n_items (GListModel *list)
{
  return INSPECTOR_FILTER_MODEL (list)->rows->len;
}

static gpointer
filter_model_get_item (GListModel *list,
                       guint       position)
{
  InspectorFilterModel *self = INSPECTOR_FILTER_MODEL (list);

  return position < self->rows->len ? g_object_ref (g_array_index (self->rows, gpointer, position))
                                     : NULL;
}

static void
filter_model_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = filter_model_get_item_type;
  iface->get_n_items = filter_model_get_n_items;
  iface->get_item = filter_model_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (InspectorFilterModel, inspector_filter_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      filter_model_list_model_init))

static gboolean
judge (InspectorFilterModel *self,
       gpointer              item)
{
  return self->match == NULL || self->match (item, self->match_data);
}

/* How many of all[from, to) pass: where they are among the rows. */
static guint
count_shown (InspectorFilterModel *self,
             guint                 from,
             guint                 to)
{
  guint n = 0;

  for (guint i = from; i < to; i++)
    n += g_array_index (self->shown, guint8, i);
  return n;
}

/* Replaces @n_remove elements at @pos by @n_add @items: two memmoves, whatever the length. */
static void
splice (GArray        *array,
        guint          pos,
        guint          n_remove,
        gconstpointer  items,
        guint          n_add)
{
  g_array_remove_range (array, pos, n_remove);
  if (n_add > 0)
    g_array_insert_vals (array, pos, items, n_add);
}

/* Rows @old were replaced by @fresh at @pos: says so, leaving out the rows at either end that
 * are the same (a merge of the directory model may report a long range, most of it unchanged;
 * the sorted list and the view would otherwise redo all of it). */
static void
emit_trimmed (InspectorFilterModel *self,
              guint                 pos,
              gpointer             *old,
              guint                 n_old,
              gpointer             *fresh,
              guint                 n_fresh)
{
  guint head = 0;
  guint tail = 0;

  while (head < n_old && head < n_fresh && old[head] == fresh[head])
    head++;
  while (tail < n_old - head && tail < n_fresh - head
         && old[n_old - 1 - tail] == fresh[n_fresh - 1 - tail])
    tail++;
  if (n_old - head - tail > 0 || n_fresh - head - tail > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), pos + head, n_old - head - tail,
                                n_fresh - head - tail);
}

static void
items_changed_cb (GListModel           *model,
                  guint                 position,
                  guint                 removed,
                  guint                 added,
                  InspectorFilterModel *self)
{
  guint row = count_shown (self, 0, position);
  guint n_old = count_shown (self, position, position + removed);
  g_autoptr(GPtrArray) gone = g_ptr_array_new_full (removed, g_object_unref);
  g_autoptr(GPtrArray) items = g_ptr_array_sized_new (added);
  g_autoptr(GPtrArray) passing = g_ptr_array_sized_new (added);
  g_autoptr(GByteArray) verdicts = g_byte_array_sized_new (added);
  g_autofree gpointer *old = g_memdup2 (&g_array_index (self->rows, gpointer, row),
                                        n_old * sizeof (gpointer));

  for (guint i = 0; i < removed; i++)
    g_ptr_array_add (gone, g_array_index (self->all, gpointer, position + i));
  for (guint i = 0; i < added; i++)
    {
      gpointer item = g_list_model_get_item (model, position + i);
      guint8 pass = judge (self, item);

      g_ptr_array_add (items, item);
      g_byte_array_append (verdicts, &pass, 1);
      if (pass)
        g_ptr_array_add (passing, item);
    }

  splice (self->all, position, removed, items->pdata, added);
  splice (self->shown, position, removed, verdicts->data, added);
  splice (self->rows, row, n_old, passing->pdata, passing->len);
  /* The removed items live until the views have let go of them. */
  emit_trimmed (self, row, old, n_old, passing->pdata, passing->len);
}

static void
append_passing (InspectorFilterModel *self,
                GArray               *rows)
{
  for (guint i = 0; i < self->all->len; i++)
    {
      gpointer item = g_array_index (self->all, gpointer, i);
      guint8 pass = judge (self, item);

      g_array_index (self->shown, guint8, i) = pass;
      if (pass)
        g_array_append_val (rows, item);
    }
}

/* Every item judged again, the rows that changed reported as one range. */
void
inspector_filter_model_refilter (InspectorFilterModel *self)
{
  g_autoptr(GArray) old = NULL;

  g_return_if_fail (INSPECTOR_IS_FILTER_MODEL (self));

  self->n_passes++;
  old = g_steal_pointer (&self->rows);
  self->rows = g_array_sized_new (FALSE, FALSE, sizeof (gpointer), self->all->len);
  append_passing (self, self->rows);
  emit_trimmed (self, 0, (gpointer *) old->data, old->len, (gpointer *) self->rows->data,
                self->rows->len);
}

/* @entry changed in place: only it is judged again, and comes or goes as one row. */
void
inspector_filter_model_update (InspectorFilterModel *self,
                               FlEntry              *entry)
{
  guint i = 0;
  guint8 pass;
  guint row;

  g_return_if_fail (INSPECTOR_IS_FILTER_MODEL (self));

  while (i < self->all->len && g_array_index (self->all, gpointer, i) != (gpointer) entry)
    i++;
  if (i == self->all->len)
    return;
  pass = judge (self, entry);
  if (pass == g_array_index (self->shown, guint8, i))
    return;
  row = count_shown (self, 0, i);
  g_array_index (self->shown, guint8, i) = pass;
  if (pass)
    g_array_insert_val (self->rows, row, entry);
  else
    g_array_remove_index (self->rows, row);
  g_list_model_items_changed (G_LIST_MODEL (self), row, !pass, pass);
}

void
inspector_filter_model_set_match_func (InspectorFilterModel *self,
                                       InspectorMatchFunc    match,
                                       gpointer              user_data)
{
  g_return_if_fail (INSPECTOR_IS_FILTER_MODEL (self));

  self->match = match;
  self->match_data = user_data;
  inspector_filter_model_refilter (self);
}

guint
inspector_filter_model_get_n_passes (InspectorFilterModel *self)
{
  g_return_val_if_fail (INSPECTOR_IS_FILTER_MODEL (self), 0);

  return self->n_passes;
}

void
inspector_filter_model_set_model (InspectorFilterModel *self,
                                  GListModel           *model)
{
  g_return_if_fail (INSPECTOR_IS_FILTER_MODEL (self));
  g_return_if_fail (model == NULL || G_IS_LIST_MODEL (model));

  if (self->model == model)
    return;
  if (self->model != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->model, items_changed_cb, self);
      items_changed_cb (self->model, 0, self->all->len, 0, self);
      g_clear_object (&self->model);
    }
  if (model != NULL)
    {
      self->model = g_object_ref (model);
      g_signal_connect (model, "items-changed", G_CALLBACK (items_changed_cb), self);
      items_changed_cb (model, 0, 0, g_list_model_get_n_items (model), self);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODEL]);
}

static void
inspector_filter_model_dispose (GObject *object)
{
  InspectorFilterModel *self = INSPECTOR_FILTER_MODEL (object);

  if (self->model != NULL)
    g_signal_handlers_disconnect_by_func (self->model, items_changed_cb, self);
  g_clear_object (&self->model);
  G_OBJECT_CLASS (inspector_filter_model_parent_class)->dispose (object);
}

static void
inspector_filter_model_finalize (GObject *object)
{
  InspectorFilterModel *self = INSPECTOR_FILTER_MODEL (object);

  for (guint i = 0; i < self->all->len; i++)
    g_object_unref (g_array_index (self->all, gpointer, i));
  g_array_unref (self->rows);
  g_array_unref (self->all);
  g_array_unref (self->shown);
  G_OBJECT_CLASS (inspector_filter_model_parent_class)->finalize (object);
}

static void
inspector_filter_model_get_property (GObject    *object,
                                     guint       prop_id,
                                     GValue     *value,
                                     GParamSpec *pspec)
{
  InspectorFilterModel *self = INSPECTOR_FILTER_MODEL (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      g_value_set_object (value, self->model);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
inspector_filter_model_set_property (GObject      *object,
                                     guint         prop_id,
                                     const GValue *value,
                                     GParamSpec   *pspec)
{
  InspectorFilterModel *self = INSPECTOR_FILTER_MODEL (object);

  switch (prop_id)
    {
    case PROP_MODEL:
      inspector_filter_model_set_model (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
inspector_filter_model_class_init (InspectorFilterModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = inspector_filter_model_dispose;
  object_class->finalize = inspector_filter_model_finalize;
  object_class->get_property = inspector_filter_model_get_property;
  object_class->set_property = inspector_filter_model_set_property;

  /* The directory model whose rows are filtered (a list of FlEntry). */
  properties[PROP_MODEL] =
    g_param_spec_object ("model", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
inspector_filter_model_init (InspectorFilterModel *self)
{
  self->all = g_array_new (FALSE, FALSE, sizeof (gpointer));
  self->shown = g_array_new (FALSE, FALSE, sizeof (guint8));
  self->rows = g_array_new (FALSE, FALSE, sizeof (gpointer));
}
