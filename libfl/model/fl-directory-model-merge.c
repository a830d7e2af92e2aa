/* fl-directory-model-merge.c: merging a scan into the sorted entries with exact items-changed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-directory-model-private.h"
#include "fl-enum-types.h"
#include "fl-error.h"
#include "fl-names-private.h"
#include "fl-snapshot-private.h"

/* Merging a scan into the entries, with exact items-changed */

typedef struct
{
  guint      pos;        /* in the entries as they were before the merge */
  guint      n_removed;
  GPtrArray *added;      /* FlEntry *, owned until spliced in */
} Run;

static void
run_clear (gpointer data)
{
  Run *run = data;

  g_clear_pointer (&run->added, g_ptr_array_unref);
}

static Run *
extend_run (GArray *runs,
            gint   *current,
            guint   pos)
{
  Run *run = *current >= 0 ? &g_array_index (runs, Run, *current) : NULL;

  if (run == NULL || run->pos + run->n_removed != pos)
    {
      Run fresh = { pos, 0, g_ptr_array_new () };

      g_array_append_val (runs, fresh);
      *current = runs->len - 1;
      run = &g_array_index (runs, Run, *current);
    }
  return run;
}

static gboolean
is_touched (FlDirectoryModel *self,
            const char       *path)
{
  return self->touched != NULL && g_hash_table_contains (self->touched, path);
}

static gboolean
participates (FlDirectoryModel *self,
              Root             *root,
              FlEntry          *entry,
              MergeMode         mode)
{
  const char *path = _fl_model_entry_path (entry);

  if (!_fl_model_root_covers (root, path))
    return FALSE;
  if (mode == MERGE_REMOVE)
    return !_fl_model_covered_by_other_root (self, root, path);
  return !is_touched (self, path);
}

static void
apply_runs_one_by_one (FlDirectoryModel *self,
                       GArray           *runs)
{
  int offset = 0;

  for (guint r = 0; r < runs->len; r++)
    {
      Run *run = &g_array_index (runs, Run, r);
      guint pos = run->pos + offset;

      _fl_model_array_splice (self->entries, pos, run->n_removed,
                              run->added->pdata, run->added->len);
      g_list_model_items_changed (G_LIST_MODEL (self), pos, run->n_removed, run->added->len);
      offset += (int) run->added->len - (int) run->n_removed;
    }
}

/* Past MAX_RUNS, one memmove per run would cost O(n) each: rebuild the array once and report
 * the span from the first to the last change. */
static void
apply_runs_in_bulk (FlDirectoryModel *self,
                    GArray           *runs)
{
  Run *first = &g_array_index (runs, Run, 0);
  Run *last = &g_array_index (runs, Run, runs->len - 1);
  GPtrArray *old = self->entries;
  GPtrArray *merged = g_ptr_array_sized_new (old->len);
  guint src = 0;
  guint old_end = last->pos + last->n_removed;
  guint new_end;

  for (guint r = 0; r < runs->len; r++)
    {
      Run *run = &g_array_index (runs, Run, r);

      while (src < run->pos)
        g_ptr_array_add (merged, old->pdata[src++]);
      for (guint k = 0; k < run->added->len; k++)
        g_ptr_array_add (merged, run->added->pdata[k]);
      src += run->n_removed;
    }
  new_end = merged->len;
  while (src < old->len)
    g_ptr_array_add (merged, old->pdata[src++]);

  self->entries = merged;
  g_ptr_array_unref (old);
  g_list_model_items_changed (G_LIST_MODEL (self), first->pos, old_end - first->pos,
                              new_end - first->pos);
}

void
_fl_model_merge (FlDirectoryModel *self,
                 Root             *root,
                 GPtrArray        *snaps,
                 MergeMode         mode)
{
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (Run));
  g_autoptr(GPtrArray) removed = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) added = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GPtrArray) updates = g_ptr_array_new_with_free_func (g_object_unref);
  guint n_snaps = snaps != NULL ? snaps->len : 0;
  gint current = -1;
  guint i;
  guint j = 0;

  g_array_set_clear_func (runs, run_clear);
  _fl_model_find_path (self, root->prefix, &i);

  for (;;)
    {
      FlEntry *entry = NULL;
      FlSnapshot *snap = j < n_snaps ? snaps->pdata[j] : NULL;
      int cmp;

      if (i < self->entries->len
          && g_str_has_prefix (_fl_model_entry_path (self->entries->pdata[i]),
                                                      root->prefix))
        entry = self->entries->pdata[i];
      if (entry == NULL && snap == NULL)
        break;
      cmp = entry == NULL ? 1 : snap == NULL ? -1
            : strcmp (_fl_model_entry_path (entry), fl_snapshot_get_path (snap));

      if (cmp < 0)
        {
          if (participates (self, root, entry, mode))
            {
              extend_run (runs, &current, i)->n_removed++;
              g_ptr_array_add (removed, entry);  /* takes over the array's reference */
            }
          else
            current = -1;
          i++;
        }
      else if (cmp > 0)
        {
          if (!is_touched (self, fl_snapshot_get_path (snap)))
            {
              FlEntry *fresh = _fl_entry_new (snap);

              g_ptr_array_add (extend_run (runs, &current, i)->added, fresh);
              g_ptr_array_add (added, g_object_ref (fresh));
            }
          j++;
        }
      else
        {
          if (participates (self, root, entry, mode) && fl_entry_get_snapshot (entry) != snap
              && !_fl_model_snapshots_equal (fl_entry_get_snapshot (entry), snap))
            {
              g_ptr_array_add (updates, g_object_ref (entry));
              g_ptr_array_add (updates, g_object_ref (snap));
            }
          current = -1;
          i++;
          j++;
        }
    }

  if (mode != MERGE_RESCAN)
    self->quiet++;
  g_object_freeze_notify (G_OBJECT (self));

  for (guint k = 0; k < removed->len; k++)
    _fl_model_account (self, removed->pdata[k], fl_entry_get_snapshot (removed->pdata[k]), -1);
  for (guint k = 0; k < added->len; k++)
    _fl_model_account (self, added->pdata[k], fl_entry_get_snapshot (added->pdata[k]), +1);

  if (runs->len > MAX_RUNS)
    apply_runs_in_bulk (self, runs);
  else if (runs->len > 0)
    apply_runs_one_by_one (self, runs);

  for (guint k = 0; k + 1 < updates->len; k += 2)
    _fl_model_update_entry (self, updates->pdata[k], updates->pdata[k + 1], 0);
  for (guint k = 0; k < added->len; k++)
    _fl_model_emit_change (self, added->pdata[k], FL_CHANGE_CREATED);
  for (guint k = 0; k < removed->len; k++)
    _fl_model_emit_change (self, removed->pdata[k], FL_CHANGE_RELEASED);

  _fl_model_notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));
  if (mode != MERGE_RESCAN)
    self->quiet--;

  _fl_model_schedule_deadline (self);
}
