/* fl-model-store.c: the model's entries, sorted by path, with exact items-changed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "model/fl-entry-private.h"
#include "model/fl-model-owner-private.h"
#include "model/fl-model-store-private.h"
#include "protocol/fl-names-private.h"
#include "platform/fl-platform.h"
#include "protocol/fl-snapshot-private.h"

/* A GPtrArray sorted by path (strcmp): O(log n) lookup, O(1) get_item. An entry whose file
 * changes keeps its place and its object: its snapshot is swapped (rows refresh by notify). A
 * merge reports each run of changes as one items-changed; past MAX_RUNS it rebuilds the array
 * once and reports the span from the first change to the last. */
#define MAX_RUNS 64

void
_fl_model_store_init (FlModelStore     *store,
                      FlDirectoryModel *model)
{
  store->entries = g_ptr_array_new ();
  store->expected_gone = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  store->read_ahead = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  store->list = G_LIST_MODEL (model);
  store->model = model;
}

void
_fl_model_store_clear (FlModelStore *store)
{
  for (guint i = 0; i < store->entries->len; i++)
    g_object_unref (store->entries->pdata[i]);
  g_ptr_array_set_size (store->entries, 0);
}

void
_fl_model_store_finalize (FlModelStore *store)
{
  g_clear_pointer (&store->entries, g_ptr_array_unref);
  g_clear_pointer (&store->expected_gone, g_hash_table_unref);
  g_clear_pointer (&store->read_ahead, g_hash_table_unref);
}

void
_fl_model_store_expect_gone (FlModelStore *store,
                             const char   *path,
                             gboolean      expected)
{
  if (expected)
    g_hash_table_add (store->expected_gone, g_strdup (path));
  else
    g_hash_table_remove (store->expected_gone, path);
}

/* Entries are sorted by key: a file's path, an etcd lock's target (unique across clusters). */
static const char *
entry_path (gconstpointer entry)
{
  return _fl_snapshot_get_key (fl_entry_get_snapshot ((FlEntry *) entry));
}

static void
account (FlModelStore *store,
         FlEntry      *entry,
         FlSnapshot   *snap,
         int           sign)
{
  _fl_directory_model_entry_accounted (store->model, entry, snap, sign);
}

/* A graveyard that this process made: a reclaim of the model's own (fl_snapshot_reclaim()
 * moves the lock aside under a name with the taker's PID, then deletes it). A worker's
 * reclaims leave it on disk for a moment, long enough for a file event to show it. */
static gboolean
is_own_graveyard (FlEntry *entry)
{
  const char *name = fl_snapshot_get_name (fl_entry_get_snapshot (entry));
  FlNameInfo info;

  return _fl_classify_name (name, strlen (name), &info)
         && info.kind == FL_ENTRY_GRAVEYARD && info.creator_pid == _fl_platform_self_pid ();
}

static void
emit (FlModelStore *store,
      FlEntry      *entry,
      FlChange      change)
{
  if (store->quiet == 0 && !is_own_graveyard (entry))
    _fl_directory_model_entry_changed (store->model, entry, change);
}

gboolean
_fl_model_store_find (FlModelStore *store,
                      const char   *path,
                      guint        *out_pos)
{
  guint lo = 0;
  guint hi = store->entries->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int cmp = strcmp (entry_path (store->entries->pdata[mid]), path);

      if (cmp == 0)
        {
          *out_pos = mid;
          return TRUE;
        }
      if (cmp < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  *out_pos = lo;
  return FALSE;
}

/* An etcd lock's queue: the same keys behind the holder, in the same order. */
static gboolean
same_waiters (GPtrArray *a,
              GPtrArray *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    if (!fl_snapshot_same_file (a->pdata[i], b->pdata[i]))
      return FALSE;
  return TRUE;
}

gboolean
_fl_model_snapshots_equal (FlSnapshot *a,
                           FlSnapshot *b)
{
  return fl_snapshot_same_file (a, b)
         && fl_snapshot_get_kind (a) == fl_snapshot_get_kind (b)
         && fl_snapshot_get_pid (a) == fl_snapshot_get_pid (b)
         && fl_snapshot_get_liveness (a) == fl_snapshot_get_liveness (b)
         && fl_snapshot_get_kernel_lock (a) == fl_snapshot_get_kernel_lock (b)
         && fl_snapshot_get_stale (a) == fl_snapshot_get_stale (b)
         && fl_snapshot_get_mtime (a) == fl_snapshot_get_mtime (b)
         && g_strcmp0 (fl_snapshot_get_content (a), fl_snapshot_get_content (b)) == 0
         && g_strcmp0 (fl_snapshot_get_reason (a), fl_snapshot_get_reason (b)) == 0
         && g_strcmp0 (fl_snapshot_get_process_name (a), fl_snapshot_get_process_name (b)) == 0
         && same_waiters (fl_snapshot_get_waiters (a), fl_snapshot_get_waiters (b));
}

/* @entry's file went away. Not news when the model's own bulk reclaim removed it: that path
 * was expected to go, once. */
static void
emit_gone (FlModelStore *store,
           FlEntry      *entry,
           guint         flags)
{
  if (g_hash_table_remove (store->expected_gone, entry_path (entry)))
    return;
  emit (store, entry, (flags & FL_MODEL_TAKEN_OVER) ? FL_CHANGE_TAKEN_OVER : FL_CHANGE_RELEASED);
}

/* Swaps the entry's snapshot in place (rows refresh through notify) and says what happened:
 * another file at the same path is a release (or takeover) followed by a creation. */
static void
update_entry (FlModelStore *store,
              FlEntry      *entry,
              FlSnapshot   *snap,
              guint         flags)
{
  FlSnapshot *old = fl_entry_get_snapshot (entry);
  gboolean replaced;
  gboolean died;

  if (_fl_model_snapshots_equal (old, snap))
    return;

  replaced = !fl_snapshot_same_file (old, snap);
  died = !replaced
         && ((!fl_snapshot_get_stale (old) && fl_snapshot_get_stale (snap))
             || (fl_snapshot_get_liveness (old) == FL_LIVENESS_ALIVE
                 && (fl_snapshot_get_liveness (snap) == FL_LIVENESS_DEAD
                     || fl_snapshot_get_liveness (snap) == FL_LIVENESS_REUSED)));

  if (replaced)
    emit_gone (store, entry, flags);

  account (store, entry, old, -1);
  _fl_entry_set_snapshot (entry, snap);
  account (store, entry, snap, +1);

  if (replaced)
    emit (store, entry, FL_CHANGE_CREATED);
  else
    emit (store, entry, died ? FL_CHANGE_HOLDER_DIED : FL_CHANGE_UPDATED);
}

/* A lock the system said was made and removed between two reads: reported all the same,
 * created then released, from its name alone (_fl_snapshot_new_unseen()). Never in the list:
 * it is gone. Only for lock files: a temp or graveyard file is a step of one. */
static void
emit_unseen (FlModelStore *store,
             const char   *path,
             guint         n)
{
  const char *name = _fl_path_last_component (path);
  FlNameInfo info;

  if (!_fl_classify_name (name, strlen (name), &info) || info.kind != FL_ENTRY_LOCK)
    return;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(FlSnapshot) snap = _fl_snapshot_new_unseen (path, g_get_real_time ());
      g_autoptr(FlEntry) entry = _fl_entry_new (snap);

      emit (store, entry, FL_CHANGE_CREATED);
      emit (store, entry, FL_CHANGE_RELEASED);
    }
}

/* A read may run ahead of the events: it finds a file whose "created" event is still queued
 * behind it. That event must not count as another lock later, so the read notes it here and
 * the event, when it comes, is taken off. Events come within milliseconds; a note older than
 * this is one whose event will never come (a folder read before it was watched). */
#define READ_AHEAD_US (2 * G_USEC_PER_SEC)

typedef struct
{
  guint  files;
  gint64 at;
} FlReadAhead;

static void
note_read_ahead (FlModelStore *store,
                 const char   *path)
{
  FlReadAhead *ahead = g_hash_table_lookup (store->read_ahead, path);

  if (ahead == NULL)
    {
      ahead = g_new0 (FlReadAhead, 1);
      g_hash_table_insert (store->read_ahead, g_strdup (path), ahead);
    }
  ahead->files++;
  ahead->at = g_get_monotonic_time ();
}

/* The births told for @path that no read has shown yet. */
static guint
births_not_read (FlModelStore *store,
                 const char   *path,
                 guint         births)
{
  FlReadAhead *ahead = g_hash_table_lookup (store->read_ahead, path);
  guint known;

  if (ahead == NULL)
    return births;
  if (g_get_monotonic_time () - ahead->at > READ_AHEAD_US)
    {
      g_hash_table_remove (store->read_ahead, path);
      return births;
    }
  known = MIN (ahead->files, births);
  ahead->files -= known;
  if (ahead->files == 0)
    g_hash_table_remove (store->read_ahead, path);
  return births - known;
}

void
_fl_model_store_apply (FlModelStore *store,
                       const char   *path,
                       FlSnapshot   *snap,
                       guint         flags)
{
  guint pos;
  gboolean found = _fl_model_store_find (store, path, &pos);
  guint births = births_not_read (store, path, FL_MODEL_BIRTHS (flags));
  FlEntry *shown = found ? store->entries->pdata[pos] : NULL;

  if (!found && snap != NULL)
    {
      FlEntry *entry = _fl_entry_new (snap);

      /* Made, removed and made again: the ones before this file lived unseen. None told
       * yet: this read ran ahead of the event. */
      if (births == 0)
        note_read_ahead (store, path);
      emit_unseen (store, path, births > 0 ? births - 1 : 0);
      g_ptr_array_insert (store->entries, pos, entry);
      account (store, entry, snap, +1);
      g_list_model_items_changed (store->list, pos, 0, 1);
      emit (store, entry, FL_CHANGE_CREATED);
    }
  else if (found && snap == NULL)
    {
      g_autoptr(FlEntry) entry = g_ptr_array_steal_index (store->entries, pos);

      account (store, entry, fl_entry_get_snapshot (entry), -1);
      g_list_model_items_changed (store->list, pos, 1, 0);
      emit_gone (store, entry, flags);
      emit_unseen (store, path, births);
    }
  else if (found && (births > 0 || (flags & FL_MODEL_GONE)) &&
           !fl_snapshot_same_file (fl_entry_get_snapshot (shown), snap))
    {
      /* Removed and made again, maybe more than once, as another file (even should the
       * filesystem give it the same inode: the content or mtime differs): the old one
       * released, the new one created. */
      FlEntry *entry = shown;

      emit_gone (store, entry, flags);
      if (births == 0)
        note_read_ahead (store, path);
      emit_unseen (store, path, births > 0 ? births - 1 : 0);
      account (store, entry, fl_entry_get_snapshot (entry), -1);
      _fl_entry_set_snapshot (entry, snap);
      account (store, entry, snap, +1);
      emit (store, entry, FL_CHANGE_CREATED);
    }
  else if (found)
    {
      /* Still the file shown: what was told meanwhile and no read has shown came and went
       * between two reads. */
      emit_unseen (store, path, births);
      update_entry (store, shown, snap, flags);
    }
  else
    {
      emit_unseen (store, path, births);
    }
}

gboolean
_fl_model_store_forget (FlModelStore *store,
                        FlSnapshot   *snap)
{
  const char *key = _fl_snapshot_get_key (snap);
  guint pos;

  if (!_fl_model_store_find (store, key, &pos)
      || !fl_snapshot_same_file (fl_entry_get_snapshot (store->entries->pdata[pos]), snap))
    return FALSE;
  _fl_model_store_apply (store, key, NULL, 0);
  return TRUE;
}

/* Merging */

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

/* Replaces @n_remove items at @pos by @n_add @items with one memmove. The caller owns the
 * references of the removed items; the array takes over those of the added ones. */
static void
array_splice (GPtrArray *array,
              guint      pos,
              guint      n_remove,
              gpointer  *items,
              guint      n_add)
{
  guint old_len = array->len;
  guint tail = old_len - pos - n_remove;

  if (n_add > n_remove)
    g_ptr_array_set_size (array, old_len + n_add - n_remove);
  memmove (&array->pdata[pos + n_add], &array->pdata[pos + n_remove], tail * sizeof (gpointer));
  if (n_add > 0)
    memcpy (&array->pdata[pos], items, n_add * sizeof (gpointer));
  if (n_add < n_remove)
    g_ptr_array_set_size (array, old_len + n_add - n_remove);
}

static void
apply_runs_one_by_one (FlModelStore *store,
                       GArray       *runs)
{
  int offset = 0;

  for (guint r = 0; r < runs->len; r++)
    {
      Run *run = &g_array_index (runs, Run, r);
      guint pos = run->pos + offset;

      array_splice (store->entries, pos, run->n_removed, run->added->pdata, run->added->len);
      g_list_model_items_changed (store->list, pos, run->n_removed, run->added->len);
      offset += (int) run->added->len - (int) run->n_removed;
    }
}

/* Past MAX_RUNS, one memmove per run would cost O(n) each: rebuild the array once. */
static void
apply_runs_in_bulk (FlModelStore *store,
                    GArray       *runs)
{
  Run *first = &g_array_index (runs, Run, 0);
  Run *last = &g_array_index (runs, Run, runs->len - 1);
  GPtrArray *old = store->entries;
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

  store->entries = merged;
  g_ptr_array_unref (old);
  g_list_model_items_changed (store->list, first->pos, old_end - first->pos,
                              new_end - first->pos);
}

void
_fl_model_store_merge (FlModelStore       *store,
                       const char         *prefix,
                       GPtrArray          *snaps,
                       FlModelStoreFilter  keep_entry,
                       FlModelStoreFilter  take_new,
                       gpointer            filter_data)
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
  _fl_model_store_find (store, prefix, &i);

  for (;;)
    {
      FlEntry *entry = NULL;
      FlSnapshot *snap = j < n_snaps ? snaps->pdata[j] : NULL;
      int cmp;

      if (i < store->entries->len
          && g_str_has_prefix (entry_path (store->entries->pdata[i]), prefix))
        entry = store->entries->pdata[i];
      if (entry == NULL && snap == NULL)
        break;
      cmp = entry == NULL ? 1 : snap == NULL ? -1
            : strcmp (entry_path (entry), _fl_snapshot_get_key (snap));

      if (cmp < 0)
        {
          if (keep_entry (entry_path (entry), filter_data))
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
          if (take_new (_fl_snapshot_get_key (snap), filter_data))
            {
              FlEntry *fresh = _fl_entry_new (snap);

              g_ptr_array_add (extend_run (runs, &current, i)->added, fresh);
              g_ptr_array_add (added, g_object_ref (fresh));
            }
          j++;
        }
      else
        {
          if (keep_entry (entry_path (entry), filter_data)
              && fl_entry_get_snapshot (entry) != snap
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

  for (guint k = 0; k < removed->len; k++)
    account (store, removed->pdata[k], fl_entry_get_snapshot (removed->pdata[k]), -1);
  for (guint k = 0; k < added->len; k++)
    account (store, added->pdata[k], fl_entry_get_snapshot (added->pdata[k]), +1);

  if (runs->len > MAX_RUNS)
    apply_runs_in_bulk (store, runs);
  else if (runs->len > 0)
    apply_runs_one_by_one (store, runs);

  /* A rescan, like a read, may run ahead of the events: a file it shows first (new, or in
   * place of another) is one whose "created" event may still be queued. A first scan's
   * files were made before the watch: no event will come for them. */
  for (guint k = 0; k + 1 < updates->len; k += 2)
    {
      if (store->quiet == 0
          && !fl_snapshot_same_file (fl_entry_get_snapshot (updates->pdata[k]),
                                     updates->pdata[k + 1]))
        note_read_ahead (store, entry_path (updates->pdata[k]));
      update_entry (store, updates->pdata[k], updates->pdata[k + 1], 0);
    }
  for (guint k = 0; k < added->len; k++)
    {
      if (store->quiet == 0)
        note_read_ahead (store, entry_path (added->pdata[k]));
      emit (store, added->pdata[k], FL_CHANGE_CREATED);
    }
  for (guint k = 0; k < removed->len; k++)
    emit_gone (store, removed->pdata[k], 0);
}
