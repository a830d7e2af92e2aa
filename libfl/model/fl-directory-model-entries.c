/* fl-directory-model-entries.c: the sorted entries, the roots, and what follows from them
 * (counts, pidfd watches, the deadlines of unparsable locks)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-directory-model-private.h"
#include "fl-handle-source-private.h"
#include "fl-process-private.h"
#include "fl-enum-types.h"
#include "fl-error.h"
#include "fl-names-private.h"
#include "fl-options-private.h"
#include "fl-snapshot-private.h"
#include "fl-tsan-private.h"

/* Roots and paths */

static void
root_clear (Root *root)
{
  _fl_tsan_acquire (root);
  g_free (root->path);
  g_free (root->prefix);
  g_clear_pointer (&root->monitors, g_hash_table_unref);
}

void
_fl_model_root_unref (Root *root)
{
  /* A scan's worker thread may drop the last reference */
  _fl_tsan_release (root);
  g_atomic_rc_box_release_full (root, (GDestroyNotify) root_clear);
}

gboolean
_fl_model_root_covers (Root       *root,
                       const char *path)
{
  if (!g_str_has_prefix (path, root->prefix))
    return FALSE;
  return root->recursive ||
         !_fl_has_dir_separator (path + strlen (root->prefix),
                                 strlen (path + strlen (root->prefix)));
}

Root *
_fl_model_find_root (FlDirectoryModel *self,
                     const char       *path)
{
  for (guint i = 0; i < self->roots->len; i++)
    {
      Root *root = g_ptr_array_index (self->roots, i);

      if (g_str_equal (root->path, path))
        return root;
    }
  return NULL;
}

gboolean
_fl_model_covered_by_other_root (FlDirectoryModel *self,
                                 Root             *except,
                                 const char       *path)
{
  for (guint i = 0; i < self->roots->len; i++)
    {
      Root *root = g_ptr_array_index (self->roots, i);

      if (root != except && _fl_model_root_covers (root, path))
        return TRUE;
    }
  return FALSE;
}

Root *
_fl_model_covering_root (FlDirectoryModel *self,
                         const char       *path)
{
  for (guint i = 0; i < self->roots->len; i++)
    {
      Root *root = g_ptr_array_index (self->roots, i);

      if (_fl_model_root_covers (root, path))
        return root;
    }
  return NULL;
}

/* The protocol's names only, before any system call: "notes.lockfile" is no entry. */
gboolean
_fl_model_looks_like_entry (const char *name)
{
  FlNameInfo info;

  return _fl_classify_name (name, strlen (name), &info);
}

gint64
_fl_model_model_now (FlDirectoryModel *self)
{
  return self->clock != NULL ? self->clock (self->clock_data) : g_get_real_time ();
}

/* Sorted array */

const char *
_fl_model_entry_path (gconstpointer entry)
{
  return fl_entry_get_path ((FlEntry *) entry);
}

gboolean
_fl_model_find_path (FlDirectoryModel *self,
                     const char       *path,
                     guint            *out_pos)
{
  guint lo = 0;
  guint hi = self->entries->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int cmp = strcmp (_fl_model_entry_path (self->entries->pdata[mid]), path);

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

/* Replaces @n_remove items at @pos by @n_add @items with one memmove. The caller owns the
 * references of the removed items; the array takes over those of the added ones. */
void
_fl_model_array_splice (GPtrArray *array,
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

int
_fl_model_compare_snapshot_paths (gconstpointer a,
                                  gconstpointer b)
{
  return strcmp (fl_snapshot_get_path (*(FlSnapshot **) a),
                 fl_snapshot_get_path (*(FlSnapshot **) b));
}

int
_fl_model_compare_strings (const void *a,
                           const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Counts, pidfds and deadlines: everything derived from the entries, kept incrementally */

static CountKind
count_kind (FlSnapshot *snap)
{
  switch (fl_snapshot_get_kind (snap))
    {
    case FL_ENTRY_LOCK:
      return fl_snapshot_get_stale (snap) ? COUNT_STALE : COUNT_HELD;
    case FL_ENTRY_TEMP:
    case FL_ENTRY_GRAVEYARD:
      return fl_snapshot_get_stale (snap) ? COUNT_ORPHANS : COUNT_OTHER;
    case FL_ENTRY_FOREIGN:
    default:
      return COUNT_FOREIGN;
    }
}

void
_fl_model_queue_path (FlDirectoryModel *self,
                      const char       *path,
                      guint             flags);

/* The holder exited: re-read every entry with that PID. Finding them is a pass over the
 * entries, but only when a watched process dies, never per tick. The watch is not armed again
 * for the same PID, so an exited process cannot make the model spin. */
static gboolean
pidfd_ready_cb (FlHandle fd,
                gpointer user_data)
{
  FlDirectoryModel *self = user_data;
  GHashTableIter iter;
  gpointer key, value;
  int pid = 0;

  g_hash_table_iter_init (&iter, self->pid_watches);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      PidWatch *watch = value;

      if (watch->fd == fd)
        {
          pid = GPOINTER_TO_INT (key);
          _fl_platform_close (watch->fd);
          watch->fd = FL_HANDLE_NONE;
          watch->source_id = 0;
          break;
        }
    }

  /* What inspectors remember of processes is now out of date. */
  _fl_process_cache_invalidate ();

  for (guint i = 0; pid > 0 && i < self->entries->len; i++)
    {
      FlSnapshot *snap = fl_entry_get_snapshot (self->entries->pdata[i]);

      if (fl_snapshot_get_pid (snap) == pid)
        _fl_model_queue_path (self, fl_snapshot_get_path (snap), 0);
    }
  _fl_directory_model_flush (self);

  return G_SOURCE_REMOVE;
}

void
_fl_model_pid_watch_free (gpointer data)
{
  PidWatch *watch = data;

  if (watch->source_id != 0)
    g_source_remove (watch->source_id);
  _fl_platform_close (watch->fd);
  g_free (watch);
}

static gboolean
wants_pid_watch (FlSnapshot *snap)
{
  return fl_snapshot_get_liveness (snap) == FL_LIVENESS_ALIVE && fl_snapshot_get_pid (snap) > 0;
}

static void
pid_watch_ref (FlDirectoryModel *self,
               FlSnapshot       *snap)
{
  int pid = fl_snapshot_get_pid (snap);
  PidWatch *watch = g_hash_table_lookup (self->pid_watches, GINT_TO_POINTER (pid));

  if (watch == NULL)
    {
      if (g_hash_table_size (self->pid_watches) >= self->max_pid_watches)
        return;  /* the periodic rescan is the fallback */

      int err;

      watch = g_new0 (PidWatch, 1);
      err = _fl_platform_process_watch (pid, &watch->fd);
      if (err == 0)
        watch->source_id = _fl_handle_add_watch (watch->fd, pidfd_ready_cb, self);
      else if (err == ESRCH)
        _fl_model_queue_path (self, fl_snapshot_get_path (snap), 0);  /* died since the snapshot */
      g_hash_table_insert (self->pid_watches, GINT_TO_POINTER (pid), watch);
    }
  watch->n_entries++;
}

static void
pid_watch_unref (FlDirectoryModel *self,
                 FlSnapshot       *snap)
{
  gpointer key = GINT_TO_POINTER (fl_snapshot_get_pid (snap));
  PidWatch *watch = g_hash_table_lookup (self->pid_watches, key);

  if (watch != NULL && --watch->n_entries == 0)
    g_hash_table_remove (self->pid_watches, key);
}

/* An unparsable lock turns stale at mtime + stale_after without any event. */
static gboolean
has_deadline (FlSnapshot *snap)
{
  return fl_snapshot_get_kind (snap) == FL_ENTRY_LOCK
         && fl_snapshot_get_liveness (snap) == FL_LIVENESS_UNKNOWN
         && !fl_snapshot_get_stale (snap)
         && fl_snapshot_get_pid (snap) <= 0;
}

void
_fl_model_account (FlDirectoryModel *self,
                   FlEntry          *entry,
                   FlSnapshot       *snap,
                   int               sign)
{
  self->counts[count_kind (snap)] += sign;

  if (wants_pid_watch (snap))
    {
      if (sign > 0)
        pid_watch_ref (self, snap);
      else
        pid_watch_unref (self, snap);
    }

  if (has_deadline (snap))
    {
      if (sign > 0)
        g_hash_table_add (self->deadlines, entry);
      else
        g_hash_table_remove (self->deadlines, entry);
    }
}

static gboolean
deadline_cb (gpointer user_data)
{
  FlDirectoryModel *self = user_data;
  gint64 now = _fl_model_model_now (self);
  GHashTableIter iter;
  gpointer key;

  self->deadline_id = 0;

  g_hash_table_iter_init (&iter, self->deadlines);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      FlSnapshot *snap = fl_entry_get_snapshot (key);

      if (_fl_lock_options_stale_at_us (self->options, fl_snapshot_get_mtime (snap)) <= now)
        _fl_model_queue_path (self, fl_snapshot_get_path (snap), 0);
    }
  _fl_directory_model_flush (self);

  return G_SOURCE_REMOVE;
}

void
_fl_model_schedule_deadline (FlDirectoryModel *self)
{
  gint64 first = G_MAXINT64;
  gint64 delay_ms;
  GHashTableIter iter;
  gpointer key;

  g_clear_handle_id (&self->deadline_id, g_source_remove);
  if (g_hash_table_size (self->deadlines) == 0)
    return;

  g_hash_table_iter_init (&iter, self->deadlines);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      FlSnapshot *snap = fl_entry_get_snapshot (key);

      first = MIN (first, _fl_lock_options_stale_at_us (self->options,
                                                        fl_snapshot_get_mtime (snap)));
    }

  /* +1 ms so the re-judged snapshot is past the deadline, not on it */
  delay_ms = CLAMP ((first - _fl_model_model_now (self)) / 1000 + 1, 0, G_MAXUINT / 2);
  self->deadline_id = g_timeout_add ((guint) delay_ms, deadline_cb, self);
}

/* Reporting */

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
         && g_strcmp0 (fl_snapshot_get_process_name (a), fl_snapshot_get_process_name (b)) == 0;
}

static FlChange
gone_change (guint flags)
{
  return (flags & PENDING_TAKEN_OVER) ? FL_CHANGE_TAKEN_OVER : FL_CHANGE_RELEASED;
}

/* Swaps the entry's snapshot in place (rows refresh through notify) and says what happened:
 * another file at the same path is a release (or takeover) followed by a creation. */
void
_fl_model_update_entry (FlDirectoryModel *self,
                        FlEntry          *entry,
                        FlSnapshot       *snap,
                        guint             flags)
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
    _fl_model_emit_change (self, entry, gone_change (flags));

  _fl_model_account (self, entry, old, -1);
  _fl_entry_set_snapshot (entry, snap);
  _fl_model_account (self, entry, snap, +1);

  if (replaced)
    _fl_model_emit_change (self, entry, FL_CHANGE_CREATED);
  else
    _fl_model_emit_change (self, entry, died ? FL_CHANGE_HOLDER_DIED : FL_CHANGE_UPDATED);
}

/* Applies the current state of one path: @snap is NULL when the file is gone. */
void
_fl_model_apply_path (FlDirectoryModel *self,
                      const char       *path,
                      FlSnapshot       *snap,
                      guint             flags)
{
  guint pos;
  gboolean found = _fl_model_find_path (self, path, &pos);

  if (self->touched != NULL)
    g_hash_table_add (self->touched, g_strdup (path));

  if (!found && snap != NULL)
    {
      FlEntry *entry = _fl_entry_new (snap);

      g_ptr_array_insert (self->entries, pos, entry);
      _fl_model_account (self, entry, snap, +1);
      g_list_model_items_changed (G_LIST_MODEL (self), pos, 0, 1);
      _fl_model_emit_change (self, entry, FL_CHANGE_CREATED);
    }
  else if (found && snap == NULL)
    {
      g_autoptr(FlEntry) entry = g_ptr_array_steal_index (self->entries, pos);

      _fl_model_account (self, entry, fl_entry_get_snapshot (entry), -1);
      g_list_model_items_changed (G_LIST_MODEL (self), pos, 1, 0);
      _fl_model_emit_change (self, entry, gone_change (flags));
    }
  else if (found)
    {
      _fl_model_update_entry (self, self->entries->pdata[pos], snap, flags);
    }
}
