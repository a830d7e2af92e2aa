/* fl-directory-model.c: a live GListModel of the lock files in some directories
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib-unix.h>

#include "fl-directory-model-private.h"
#include "fl-enum-types.h"
#include "fl-error.h"
#include "fl-names-private.h"
#include "fl-snapshot-private.h"

/* How the model stays right without trusting any one source:
 * - A file event only names a path. The model re-reads that path (a fresh snapshot) before it
 *   reports anything, so duplicated, reordered or stale events cannot make it wrong.
 * - Events are coalesced for COALESCE_MS; past BURST_LIMIT paths a rescan is cheaper.
 * - GLib drops inotify's queue overflow silently, so every directory is rescanned periodically,
 *   in a worker thread, at an interval that grows with the cost of a scan.
 * - A holder dying makes no file event: the model watches each live holder's pidfd.
 * The entries are a GPtrArray sorted by path (strcmp): O(log n) lookup, O(1) get_item. */

#define COALESCE_MS       10
#define BURST_LIMIT       2000
#define MAX_RUNS          64
#define MAX_PID_WATCHES   1024
#define MAX_DEPTH         32
#define MAX_SCAN_THREADS  4
#define SCAN_SLICE_MIN    256
#define RESCAN_MIN_MS     10000
#define RESCAN_MAX_MS     300000

enum
{
  PENDING_TAKEN_OVER = 1 << 0,
};

typedef enum
{
  COUNT_HELD,
  COUNT_STALE,
  COUNT_ORPHANS,
  COUNT_FOREIGN,
  COUNT_OTHER,
  N_COUNTS
} CountKind;

typedef enum
{
  MERGE_INITIAL,  /* a directory's first scan: no entry-changed, it is not news */
  MERGE_RESCAN,   /* a repair: every difference is reported */
  MERGE_REMOVE,   /* the directory is no longer watched: drop what no other root covers */
} MergeMode;

typedef struct
{
  char       *path;        /* canonical, as given (symbolic links in it are kept) */
  char       *prefix;      /* path with exactly one trailing slash */
  gboolean    recursive;
  gboolean    removed;
  guint       serial;      /* of the last scan started */
  guint       applied;     /* of the last scan applied: older results are dropped */
  GHashTable *monitors;    /* directory path -> GFileMonitor */
} Root;

typedef struct
{
  Root          *root;     /* atomic rc box */
  FlLockOptions *options;
  gint64         now_us;
  guint          serial;
  MergeMode      mode;
  guint          n_threads;
  GCancellable  *cancellable;
  GPtrArray     *previous; /* the entries' snapshots at the start, by path: reused if equal */
  GPtrArray     *snapshots;
  GPtrArray     *dirs;
  GError        *error;
  gint64         duration_us;
} ScanJob;

typedef struct
{
  int    fd;
  guint  source_id;
  guint  n_entries;
} PidWatch;

struct _FlDirectoryModel
{
  GObject         parent_instance;

  FlLockOptions  *options;
  GPtrArray      *entries;     /* FlEntry *, sorted by path, owns a reference (no free func) */
  GPtrArray      *roots;       /* Root * */

  GHashTable     *pending;     /* path -> flags */
  guint           flush_id;
  GHashTable     *touched;     /* paths refreshed while a scan ran in a thread, or NULL */
  guint           n_scans_in_flight;
  guint           n_initial_in_flight;
  guint           rescan_id;
  gint64          rescan_interval_ms;
  GCancellable   *cancellable;

  GHashTable     *pid_watches; /* pid -> PidWatch */
  GHashTable     *deadlines;   /* FlEntry -> itself: unparsable, not yet stale */
  guint           deadline_id;

  FlClockFunc     clock;
  gpointer        clock_data;
  GDestroyNotify  clock_destroy;

  guint           counts[N_COUNTS];
  guint           notified[N_COUNTS];
  guint           quiet;       /* > 0 while the model applies its own reclaim */
  gboolean        monitoring;
};

static void fl_directory_model_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (FlDirectoryModel, fl_directory_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      fl_directory_model_list_model_init))

enum
{
  PROP_0,
  PROP_LOADING,
  PROP_N_HELD,
  PROP_N_STALE,
  PROP_N_ORPHANS,
  PROP_N_FOREIGN,
  N_PROPS
};

enum
{
  ENTRY_CHANGED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void schedule_rescan (FlDirectoryModel *self,
                             gint64            delay_ms);
static void start_scan      (FlDirectoryModel *self,
                             Root             *root,
                             MergeMode         mode,
                             GTask            *task);

/* Roots and paths */

static void
root_clear (Root *root)
{
  g_free (root->path);
  g_free (root->prefix);
  g_clear_pointer (&root->monitors, g_hash_table_unref);
}

static void
root_unref (Root *root)
{
  g_atomic_rc_box_release_full (root, (GDestroyNotify) root_clear);
}

static gboolean
root_covers (Root       *root,
             const char *path)
{
  if (!g_str_has_prefix (path, root->prefix))
    return FALSE;
  return root->recursive || strchr (path + strlen (root->prefix), '/') == NULL;
}

static Root *
find_root (FlDirectoryModel *self,
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

static gboolean
covered_by_other_root (FlDirectoryModel *self,
                       Root             *except,
                       const char       *path)
{
  for (guint i = 0; i < self->roots->len; i++)
    {
      Root *root = g_ptr_array_index (self->roots, i);

      if (root != except && root_covers (root, path))
        return TRUE;
    }
  return FALSE;
}

static Root *
covering_root (FlDirectoryModel *self,
               const char       *path)
{
  for (guint i = 0; i < self->roots->len; i++)
    {
      Root *root = g_ptr_array_index (self->roots, i);

      if (root_covers (root, path))
        return root;
    }
  return NULL;
}

/* The protocol's names only, before any system call: "notes.lockfile" is no entry. */
static gboolean
looks_like_entry (const char *name)
{
  FlNameInfo info;

  return _fl_classify_name (name, strlen (name), &info);
}

static gint64
model_now (FlDirectoryModel *self)
{
  return self->clock != NULL ? self->clock (self->clock_data) : g_get_real_time ();
}

/* Sorted array */

static const char *
entry_path (gconstpointer entry)
{
  return fl_entry_get_path ((FlEntry *) entry);
}

static gboolean
find_path (FlDirectoryModel *self,
           const char       *path,
           guint            *out_pos)
{
  guint lo = 0;
  guint hi = self->entries->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      int cmp = strcmp (entry_path (self->entries->pdata[mid]), path);

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

static int
compare_snapshot_paths (gconstpointer a,
                        gconstpointer b)
{
  return strcmp (fl_snapshot_get_path (*(FlSnapshot **) a), fl_snapshot_get_path (*(FlSnapshot **) b));
}

static int
compare_strings (const void *a,
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

static int
pidfd_open_nocheck (int pid)
{
#ifdef SYS_pidfd_open
  return (int) syscall (SYS_pidfd_open, (pid_t) pid, 0u);  /* always close-on-exec */
#else
  errno = ENOSYS;
  return -1;
#endif
}

static void
queue_path (FlDirectoryModel *self,
            const char       *path,
            guint             flags);

/* The holder exited: re-read every entry with that PID. Finding them is a pass over the
 * entries, but only when a watched process dies, never per tick. The watch is not armed again
 * for the same PID, so an exited process cannot make the model spin. */
static gboolean
pidfd_ready_cb (int          fd,
                GIOCondition condition,
                gpointer     user_data)
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
          close (watch->fd);
          watch->fd = -1;
          watch->source_id = 0;
          break;
        }
    }

  for (guint i = 0; pid > 0 && i < self->entries->len; i++)
    {
      FlSnapshot *snap = fl_entry_get_snapshot (self->entries->pdata[i]);

      if (fl_snapshot_get_pid (snap) == pid)
        queue_path (self, fl_snapshot_get_path (snap), 0);
    }
  _fl_directory_model_flush (self);

  return G_SOURCE_REMOVE;
}

static void
pid_watch_free (gpointer data)
{
  PidWatch *watch = data;

  if (watch->source_id != 0)
    g_source_remove (watch->source_id);
  if (watch->fd >= 0)
    close (watch->fd);
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
      if (g_hash_table_size (self->pid_watches) >= MAX_PID_WATCHES)
        return;  /* the periodic rescan is the fallback */

      watch = g_new0 (PidWatch, 1);
      watch->fd = pidfd_open_nocheck (pid);
      if (watch->fd >= 0)
        watch->source_id = g_unix_fd_add (watch->fd, G_IO_IN, pidfd_ready_cb, self);
      else if (errno == ESRCH)
        queue_path (self, fl_snapshot_get_path (snap), 0);  /* died since the snapshot */
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

static void
account (FlDirectoryModel *self,
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
  gint64 now = model_now (self);
  gint64 stale_after = fl_lock_options_get_stale_after_ms (self->options) * 1000;
  GHashTableIter iter;
  gpointer key;

  self->deadline_id = 0;

  g_hash_table_iter_init (&iter, self->deadlines);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      FlSnapshot *snap = fl_entry_get_snapshot (key);

      if (fl_snapshot_get_mtime (snap) + stale_after <= now)
        queue_path (self, fl_snapshot_get_path (snap), 0);
    }
  _fl_directory_model_flush (self);

  return G_SOURCE_REMOVE;
}

static void
schedule_deadline (FlDirectoryModel *self)
{
  gint64 stale_after = fl_lock_options_get_stale_after_ms (self->options) * 1000;
  gint64 first = G_MAXINT64;
  gint64 delay_ms;
  GHashTableIter iter;
  gpointer key;

  g_clear_handle_id (&self->deadline_id, g_source_remove);
  if (g_hash_table_size (self->deadlines) == 0)
    return;

  g_hash_table_iter_init (&iter, self->deadlines);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    first = MIN (first, fl_snapshot_get_mtime (fl_entry_get_snapshot (key)) + stale_after);

  /* +1 ms so the re-judged snapshot is past the deadline, not on it */
  delay_ms = CLAMP ((first - model_now (self)) / 1000 + 1, 0, G_MAXUINT / 2);
  self->deadline_id = g_timeout_add ((guint) delay_ms, deadline_cb, self);
}

static void
notify_counts (FlDirectoryModel *self)
{
  static const guint props[] = {
    [COUNT_HELD] = PROP_N_HELD,
    [COUNT_STALE] = PROP_N_STALE,
    [COUNT_ORPHANS] = PROP_N_ORPHANS,
    [COUNT_FOREIGN] = PROP_N_FOREIGN,
  };

  for (guint i = 0; i < COUNT_OTHER; i++)
    if (self->counts[i] != self->notified[i])
      {
        self->notified[i] = self->counts[i];
        g_object_notify_by_pspec (G_OBJECT (self), properties[props[i]]);
      }
}

/* Reporting */

static void
emit_change (FlDirectoryModel *self,
             FlEntry          *entry,
             FlChange          change)
{
  if (self->quiet == 0)
    g_signal_emit (self, signals[ENTRY_CHANGED], 0, entry, change);
}

static gboolean
snapshots_equal (FlSnapshot *a,
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

/* Swaps the entry's snapshot in place (rows refresh through notify) and says what happened:
 * another file at the same path is a release (or takeover) followed by a creation. */
static void
update_entry (FlDirectoryModel *self,
              FlEntry          *entry,
              FlSnapshot       *snap,
              guint             flags)
{
  FlSnapshot *old = fl_entry_get_snapshot (entry);
  gboolean replaced;
  gboolean died;

  if (snapshots_equal (old, snap))
    return;

  replaced = !fl_snapshot_same_file (old, snap);
  died = !replaced
         && ((!fl_snapshot_get_stale (old) && fl_snapshot_get_stale (snap))
             || (fl_snapshot_get_liveness (old) == FL_LIVENESS_ALIVE
                 && (fl_snapshot_get_liveness (snap) == FL_LIVENESS_DEAD
                     || fl_snapshot_get_liveness (snap) == FL_LIVENESS_REUSED)));

  if (replaced)
    emit_change (self, entry,
                 (flags & PENDING_TAKEN_OVER) ? FL_CHANGE_TAKEN_OVER : FL_CHANGE_RELEASED);

  account (self, entry, old, -1);
  _fl_entry_set_snapshot (entry, snap);
  account (self, entry, snap, +1);

  if (replaced)
    emit_change (self, entry, FL_CHANGE_CREATED);
  else
    emit_change (self, entry, died ? FL_CHANGE_HOLDER_DIED : FL_CHANGE_UPDATED);
}

/* Applies the current state of one path: @snap is NULL when the file is gone. */
static void
apply_path (FlDirectoryModel *self,
            const char       *path,
            FlSnapshot       *snap,
            guint             flags)
{
  guint pos;
  gboolean found = find_path (self, path, &pos);

  if (self->touched != NULL)
    g_hash_table_add (self->touched, g_strdup (path));

  if (!found && snap != NULL)
    {
      FlEntry *entry = _fl_entry_new (snap);

      g_ptr_array_insert (self->entries, pos, entry);
      account (self, entry, snap, +1);
      g_list_model_items_changed (G_LIST_MODEL (self), pos, 0, 1);
      emit_change (self, entry, FL_CHANGE_CREATED);
    }
  else if (found && snap == NULL)
    {
      g_autoptr(FlEntry) entry = g_ptr_array_steal_index (self->entries, pos);

      account (self, entry, fl_entry_get_snapshot (entry), -1);
      g_list_model_items_changed (G_LIST_MODEL (self), pos, 1, 0);
      emit_change (self, entry,
                   (flags & PENDING_TAKEN_OVER) ? FL_CHANGE_TAKEN_OVER : FL_CHANGE_RELEASED);
    }
  else if (found)
    {
      update_entry (self, self->entries->pdata[pos], snap, flags);
    }
}

/* Reading one path */

typedef struct
{
  char *dir;
  int   fd;
} DirCache;

static void
dir_cache_clear (DirCache *cache)
{
  g_clear_pointer (&cache->dir, g_free);
  if (cache->fd >= 0)
    close (cache->fd);
  cache->fd = -1;
}

static int
dir_cache_open (DirCache   *cache,
                const char *dir)
{
  if (cache->dir != NULL && g_str_equal (cache->dir, dir))
    return cache->fd;

  dir_cache_clear (cache);
  cache->dir = g_strdup (dir);
  cache->fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  return cache->fd;
}

static FlSnapshot *
read_path (FlDirectoryModel *self,
           DirCache         *cache,
           const char       *path,
           gint64            now_us)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  const char *name = strrchr (path, '/');
  FlSnapshot *snap;
  int dirfd;

  if (name == NULL || !looks_like_entry (name + 1))
    return NULL;

  dirfd = dir_cache_open (cache, dir);
  if (dirfd < 0)
    return NULL;

  snap = _fl_snapshot_new_at (dirfd, dir, name + 1, self->options, now_us, &error);
  if (snap == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_debug ("%s: %s", path, error->message);
  return snap;
}

/* In a recursive root, a new directory gets a monitor and a scan. */
static void
check_new_directory (FlDirectoryModel *self,
                     const char       *path)
{
  struct stat st;

  for (guint i = 0; i < self->roots->len; i++)
    {
      Root *root = g_ptr_array_index (self->roots, i);

      if (!root->recursive || !root_covers (root, path)
          || g_hash_table_contains (root->monitors, path))
        continue;
      if (fstatat (AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR (st.st_mode))
        return;
      schedule_rescan (self, COALESCE_MS);
      return;
    }
}

static void
refresh_path (FlDirectoryModel *self,
              DirCache         *cache,
              const char       *path,
              guint             flags,
              gint64            now_us)
{
  g_autoptr(FlSnapshot) snap = NULL;

  if (self->monitoring)
    check_new_directory (self, path);

  if (covering_root (self, path) == NULL)
    return;

  snap = read_path (self, cache, path, now_us);
  apply_path (self, path, snap, flags);
}

/* Events */

static gboolean
flush_cb (gpointer user_data)
{
  FlDirectoryModel *self = user_data;

  self->flush_id = 0;
  _fl_directory_model_flush (self);
  return G_SOURCE_REMOVE;
}

static void
queue_path (FlDirectoryModel *self,
            const char       *path,
            guint             flags)
{
  gpointer old = NULL;

  if (g_hash_table_lookup_extended (self->pending, path, NULL, &old))
    flags |= GPOINTER_TO_UINT (old);
  g_hash_table_replace (self->pending, g_strdup (path), GUINT_TO_POINTER (flags));

  if (self->flush_id == 0)
    self->flush_id = g_timeout_add (COALESCE_MS, flush_cb, self);
}

/* T2 renames T.lock to T.lock.gy.<pid>.<hex>: seen as one rename, it tells a takeover from a
 * release. Without the rename (coalesced away, or a rescan) it is reported as a release. */
static gboolean
is_graveyard_of (const char *lock_path,
                 const char *other_path)
{
  size_t len = strlen (lock_path);

  return g_str_has_suffix (lock_path, ".lock")
         && strncmp (other_path, lock_path, len) == 0
         && g_str_has_prefix (other_path + len, ".gy.");
}

void
_fl_directory_model_apply_event (FlDirectoryModel  *self,
                                 GFileMonitorEvent  event,
                                 const char        *path,
                                 const char        *other_path)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (path != NULL);

  switch (event)
    {
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
      break;

    case G_FILE_MONITOR_EVENT_RENAMED:
      queue_path (self, path,
                  other_path != NULL && is_graveyard_of (path, other_path) ? PENDING_TAKEN_OVER : 0);
      if (other_path != NULL)
        queue_path (self, other_path, 0);
      break;

    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
      schedule_rescan (self, COALESCE_MS);
      break;

    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
    case G_FILE_MONITOR_EVENT_MOVED:
    default:
      queue_path (self, path, 0);
      break;
    }
}

static void
monitor_changed_cb (GFileMonitor      *monitor,
                    GFile             *file,
                    GFile             *other_file,
                    GFileMonitorEvent  event,
                    gpointer           user_data)
{
  FlDirectoryModel *self = user_data;
  const char *path = g_file_peek_path (file);
  const char *other = other_file != NULL ? g_file_peek_path (other_file) : NULL;

  if (path == NULL)
    return;

  /* Renames of the monitored directory itself, or of subdirectories, need a rescan. */
  if (event == G_FILE_MONITOR_EVENT_DELETED || event == G_FILE_MONITOR_EVENT_MOVED_OUT
      || event == G_FILE_MONITOR_EVENT_RENAMED)
    {
      for (guint i = 0; i < self->roots->len; i++)
        if (g_hash_table_contains (((Root *) self->roots->pdata[i])->monitors, path))
          schedule_rescan (self, COALESCE_MS);
    }

  _fl_directory_model_apply_event (self, event, path, other);
}

void
_fl_directory_model_flush (FlDirectoryModel *self)
{
  g_autoptr(GHashTable) pending = NULL;
  g_autofree gpointer *paths = NULL;
  DirCache cache = { NULL, -1 };
  guint n_paths;
  gint64 now_us;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  g_clear_handle_id (&self->flush_id, g_source_remove);
  if (g_hash_table_size (self->pending) == 0)
    return;

  pending = g_steal_pointer (&self->pending);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (g_hash_table_size (pending) > BURST_LIMIT)
    {
      schedule_rescan (self, 0);
      return;
    }

  /* Sorted, so that consecutive paths share the directory descriptor. */
  paths = g_hash_table_get_keys_as_array (pending, &n_paths);
  qsort (paths, n_paths, sizeof (gpointer), compare_strings);
  now_us = model_now (self);

  g_object_freeze_notify (G_OBJECT (self));
  for (guint i = 0; i < n_paths; i++)
    refresh_path (self, &cache, paths[i],
                  GPOINTER_TO_UINT (g_hash_table_lookup (pending, paths[i])), now_us);
  notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));

  dir_cache_clear (&cache);
  schedule_deadline (self);
}

/* Scanning: runs in a worker thread for the periodic repair, inline for a synchronous add.
 * It reads the directory with readdir() and one descriptor, never a GFile per file. */

static void
scan_job_free (gpointer data)
{
  ScanJob *job = data;

  g_clear_pointer (&job->root, root_unref);
  g_clear_pointer (&job->options, fl_lock_options_free);
  g_clear_object (&job->cancellable);
  g_clear_pointer (&job->previous, g_ptr_array_unref);
  g_clear_pointer (&job->snapshots, g_ptr_array_unref);
  g_clear_pointer (&job->dirs, g_ptr_array_unref);
  g_clear_error (&job->error);
  g_free (job);
}

static ScanJob *
scan_job_new (FlDirectoryModel *self,
              Root             *root,
              MergeMode         mode)
{
  ScanJob *job = g_new0 (ScanJob, 1);
  guint i;

  job->root = g_atomic_rc_box_acquire (root);
  job->options = fl_lock_options_copy (self->options);
  job->now_us = model_now (self);
  job->serial = ++root->serial;
  job->mode = mode;
  job->n_threads = CLAMP (g_get_num_processors (), 1, MAX_SCAN_THREADS);
  job->cancellable = g_object_ref (self->cancellable);
  job->snapshots = g_ptr_array_new_with_free_func (g_object_unref);
  job->dirs = g_ptr_array_new_with_free_func (g_free);

  /* A rescan finds most files unchanged: it keeps their current snapshot instead of a second
   * copy, so a rescan of 100,000 locks does not double the memory. */
  job->previous = g_ptr_array_new_with_free_func (g_object_unref);
  find_path (self, root->prefix, &i);
  for (; i < self->entries->len; i++)
    {
      FlSnapshot *snap = fl_entry_get_snapshot (self->entries->pdata[i]);

      if (!g_str_has_prefix (fl_snapshot_get_path (snap), root->prefix))
        break;
      g_ptr_array_add (job->previous, g_object_ref (snap));
    }

  return job;
}

static gboolean
is_dot_or_dotdot (const char *name)
{
  return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'));
}

/* Runs in any thread: the previous snapshots are immutable and never change during a scan. */
static FlSnapshot *
reuse_previous (ScanJob    *job,
                FlSnapshot *fresh)
{
  const char *path = fl_snapshot_get_path (fresh);
  guint lo = 0;
  guint hi = job->previous->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      FlSnapshot *old = job->previous->pdata[mid];
      int cmp = strcmp (fl_snapshot_get_path (old), path);

      if (cmp == 0)
        {
          if (!snapshots_equal (old, fresh))
            return fresh;
          g_object_unref (fresh);
          return g_object_ref (old);
        }
      if (cmp < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
  return fresh;
}

typedef struct
{
  ScanJob     *job;
  int          dirfd;
  const char  *dir_path;
  char       **names;
  FlSnapshot **out;
  guint        begin;
  guint        end;
} ScanSlice;

static gpointer
scan_slice (gpointer data)
{
  ScanSlice *slice = data;

  for (guint i = slice->begin; i < slice->end; i++)
    {
      FlSnapshot *snap;

      if (g_cancellable_is_cancelled (slice->job->cancellable))
        break;
      snap = _fl_snapshot_new_at (slice->dirfd, slice->dir_path, slice->names[i],
                                  slice->job->options, slice->job->now_us, NULL);
      if (snap != NULL)
        slice->out[i] = reuse_previous (slice->job, snap);
    }
  return NULL;
}

/* Judging a file costs about ten system calls, most of the load: spread over the cores. */
static void
snapshot_names (ScanJob    *job,
                int         dirfd,
                const char *dir_path,
                GPtrArray  *names)
{
  guint n = names->len;
  guint n_threads = MIN (job->n_threads, n / SCAN_SLICE_MIN + 1);
  g_autofree FlSnapshot **out = g_new0 (FlSnapshot *, n);
  g_autofree ScanSlice *slices = g_new0 (ScanSlice, n_threads);
  g_autofree GThread **threads = g_new0 (GThread *, n_threads);

  for (guint t = 0; t < n_threads; t++)
    {
      slices[t] = (ScanSlice) { job, dirfd, dir_path, (char **) names->pdata, out,
                                (guint) ((guint64) n * t / n_threads),
                                (guint) ((guint64) n * (t + 1) / n_threads) };
      if (t > 0)
        threads[t] = g_thread_try_new ("fl-scan", scan_slice, &slices[t], NULL);
    }
  scan_slice (&slices[0]);
  for (guint t = 1; t < n_threads; t++)
    {
      if (threads[t] != NULL)
        g_thread_join (threads[t]);
      else
        scan_slice (&slices[t]);  /* no thread to be had: do it here */
    }

  for (guint i = 0; i < n; i++)
    if (out[i] != NULL)
      g_ptr_array_add (job->snapshots, out[i]);
}

/* Takes ownership of @fd. Subdirectories are opened with O_NOFOLLOW: a symbolic link in a lock
 * directory is never followed. */
static void
scan_dir (ScanJob    *job,
          int         fd,
          const char *dir_path,
          guint       depth)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) subdirs = NULL;
  struct dirent *de;
  DIR *dir = fdopendir (fd);

  if (dir == NULL)
    {
      close (fd);
      return;
    }
  g_ptr_array_add (job->dirs, g_strdup (dir_path));

  while ((de = readdir (dir)) != NULL)
    {
      const char *name = de->d_name;

      if (is_dot_or_dotdot (name))
        continue;

      if (looks_like_entry (name))
        g_ptr_array_add (names, g_strdup (name));

      if (job->root->recursive && depth < MAX_DEPTH)
        {
          gboolean is_dir = de->d_type == DT_DIR;
          struct stat st;

          if (de->d_type == DT_UNKNOWN)
            is_dir = fstatat (dirfd (dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0
                     && S_ISDIR (st.st_mode);
          if (is_dir)
            {
              if (subdirs == NULL)
                subdirs = g_ptr_array_new_with_free_func (g_free);
              g_ptr_array_add (subdirs, g_strdup (name));
            }
        }
    }

  snapshot_names (job, dirfd (dir), dir_path, names);

  for (guint i = 0; subdirs != NULL && i < subdirs->len; i++)
    {
      const char *name = subdirs->pdata[i];
      int sub;

      if (g_cancellable_is_cancelled (job->cancellable))
        break;
      sub = openat (dirfd (dir), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (sub >= 0)
        {
          g_autofree char *sub_path = g_build_filename (dir_path, name, NULL);

          scan_dir (job, sub, sub_path, depth + 1);
        }
    }

  closedir (dir);
}

static void
set_directory_error (GError    **error,
                     const char *path,
                     int         errsv)
{
  switch (errsv)
    {
    case ENOENT:
      g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                   _("Cannot watch “%s”: there is no such directory. Check the path."), path);
      break;
    case ENOTDIR:
      g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                   _("Cannot watch “%s”: it is not a directory. Give the directory that holds "
                     "the lock files."), path);
      break;
    case EACCES:
    case EPERM:
      g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                   _("Cannot watch “%s”: permission denied. Ask for read access to the "
                     "directory."), path);
      break;
    default:
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED, _("Cannot watch “%s”: %s"),
                   path, g_strerror (errsv));
    }
}

static void
run_scan (ScanJob *job)
{
  gint64 start = g_get_monotonic_time ();
  int fd = open (job->root->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    {
      set_directory_error (&job->error, job->root->path, errno);
      return;
    }
  scan_dir (job, fd, job->root->path, 0);
  g_ptr_array_sort (job->snapshots, compare_snapshot_paths);
  job->duration_us = g_get_monotonic_time () - start;
}

static void
scan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  run_scan (task_data);
  g_task_return_boolean (task, TRUE);
}

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
  const char *path = entry_path (entry);

  if (!root_covers (root, path))
    return FALSE;
  if (mode == MERGE_REMOVE)
    return !covered_by_other_root (self, root, path);
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

      array_splice (self->entries, pos, run->n_removed, run->added->pdata, run->added->len);
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

static void
merge (FlDirectoryModel *self,
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
  find_path (self, root->prefix, &i);

  for (;;)
    {
      FlEntry *entry = NULL;
      FlSnapshot *snap = j < n_snaps ? snaps->pdata[j] : NULL;
      int cmp;

      if (i < self->entries->len && g_str_has_prefix (entry_path (self->entries->pdata[i]),
                                                      root->prefix))
        entry = self->entries->pdata[i];
      if (entry == NULL && snap == NULL)
        break;
      cmp = entry == NULL ? 1 : snap == NULL ? -1
            : strcmp (entry_path (entry), fl_snapshot_get_path (snap));

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
              && !snapshots_equal (fl_entry_get_snapshot (entry), snap))
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
    account (self, removed->pdata[k], fl_entry_get_snapshot (removed->pdata[k]), -1);
  for (guint k = 0; k < added->len; k++)
    account (self, added->pdata[k], fl_entry_get_snapshot (added->pdata[k]), +1);

  if (runs->len > MAX_RUNS)
    apply_runs_in_bulk (self, runs);
  else if (runs->len > 0)
    apply_runs_one_by_one (self, runs);

  for (guint k = 0; k + 1 < updates->len; k += 2)
    update_entry (self, updates->pdata[k], updates->pdata[k + 1], 0);
  for (guint k = 0; k < added->len; k++)
    emit_change (self, added->pdata[k], FL_CHANGE_CREATED);
  for (guint k = 0; k < removed->len; k++)
    emit_change (self, removed->pdata[k], FL_CHANGE_RELEASED);

  notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));
  if (mode != MERGE_RESCAN)
    self->quiet--;

  schedule_deadline (self);
}

/* Monitors */

static void
monitor_free (gpointer data)
{
  GFileMonitor *monitor = data;

  g_file_monitor_cancel (monitor);
  g_object_unref (monitor);
}

static void
ensure_monitor (FlDirectoryModel *self,
                Root             *root,
                const char       *dir_path)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor;

  if (g_hash_table_contains (root->monitors, dir_path))
    return;

  file = g_file_new_for_path (dir_path);
  monitor = g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (monitor == NULL)
    {
      /* No inotify watch left, for example: the periodic rescan still repairs the model. */
      g_debug ("Cannot monitor %s: %s", dir_path, error->message);
      return;
    }
  g_signal_connect_object (monitor, "changed", G_CALLBACK (monitor_changed_cb), self, 0);
  g_hash_table_insert (root->monitors, g_strdup (dir_path), monitor);
}

static void
sync_monitors (FlDirectoryModel *self,
               Root             *root,
               GPtrArray        *dirs)
{
  g_autoptr(GHashTable) present = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer key;

  for (guint i = 0; i < dirs->len; i++)
    {
      g_hash_table_add (present, dirs->pdata[i]);
      ensure_monitor (self, root, dirs->pdata[i]);
    }

  g_hash_table_iter_init (&iter, root->monitors);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (!g_hash_table_contains (present, key) && !g_str_equal (key, root->path))
      g_hash_table_iter_remove (&iter);
}

/* Applying a finished scan */

static gboolean
finish_job (FlDirectoryModel *self,
            ScanJob          *job,
            GError          **error)
{
  Root *root = job->root;

  if (root->removed || job->serial <= root->applied)
    return TRUE;  /* a newer scan was applied meanwhile, or nobody wants this one */
  root->applied = job->serial;

  if (job->error != NULL)
    {
      if (job->mode == MERGE_INITIAL)
        {
          g_autofree char *path = g_strdup (root->path);

          g_propagate_error (error, g_steal_pointer (&job->error));
          fl_directory_model_remove_directory (self, path);
          return FALSE;
        }
      /* The directory went away or became unreadable: so did its entries. */
      g_debug ("%s", job->error->message);
      merge (self, root, NULL, MERGE_RESCAN);
      return TRUE;
    }

  merge (self, root, job->snapshots, job->mode);
  if (self->monitoring)
    sync_monitors (self, root, job->dirs);
  self->rescan_interval_ms = CLAMP (job->duration_us / 1000 * 30, RESCAN_MIN_MS, RESCAN_MAX_MS);
  return TRUE;
}

/* The scan's GTask has no source object: the worker thread drops its reference to the task
 * last, and that must not be the model's last reference (dispose belongs to the main thread). */
typedef struct
{
  GWeakRef  model;
  GTask    *outer;
} ScanCall;

static void
scan_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ScanCall *call = user_data;
  g_autoptr(FlDirectoryModel) self = g_weak_ref_get (&call->model);
  g_autoptr(GTask) outer = g_steal_pointer (&call->outer);
  g_autoptr(GError) error = NULL;
  ScanJob *job = g_task_get_task_data (G_TASK (result));
  gboolean ok = TRUE;

  g_weak_ref_clear (&call->model);
  g_free (call);
  if (self == NULL)
    return;

  self->n_scans_in_flight--;
  if (!g_cancellable_is_cancelled (self->cancellable))
    ok = finish_job (self, job, &error);
  if (self->n_scans_in_flight == 0)
    g_clear_pointer (&self->touched, g_hash_table_unref);

  if (job->mode == MERGE_INITIAL && --self->n_initial_in_flight == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);

  if (self->n_scans_in_flight == 0)
    schedule_rescan (self, self->rescan_interval_ms);

  if (outer != NULL)
    {
      if (ok)
        g_task_return_boolean (outer, TRUE);
      else
        g_task_return_error (outer, g_steal_pointer (&error));
    }
}

static void
start_scan (FlDirectoryModel *self,
            Root             *root,
            MergeMode         mode,
            GTask            *outer)
{
  g_autoptr(GTask) task = NULL;
  ScanCall *call = g_new0 (ScanCall, 1);

  if (self->touched == NULL)
    self->touched = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->n_scans_in_flight++;
  if (mode == MERGE_INITIAL && self->n_initial_in_flight++ == 0)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);

  g_weak_ref_init (&call->model, self);
  call->outer = outer != NULL ? g_object_ref (outer) : NULL;
  task = g_task_new (NULL, self->cancellable, scan_done_cb, call);
  g_task_set_source_tag (task, start_scan);
  g_task_set_task_data (task, scan_job_new (self, root, mode), scan_job_free);
  g_task_run_in_thread (task, scan_thread);
}

static gboolean
rescan_cb (gpointer user_data)
{
  FlDirectoryModel *self = user_data;

  self->rescan_id = 0;
  if (self->n_scans_in_flight > 0)
    return G_SOURCE_REMOVE;  /* the scans in flight schedule the next one when done */

  for (guint i = 0; i < self->roots->len; i++)
    start_scan (self, self->roots->pdata[i], MERGE_RESCAN, NULL);
  return G_SOURCE_REMOVE;
}

static void
schedule_rescan (FlDirectoryModel *self,
                 gint64            delay_ms)
{
  if (!self->monitoring || self->roots->len == 0)
    return;
  /* A repair asked for soon replaces the periodic one; never the other way round. */
  if (self->rescan_id != 0 && delay_ms >= RESCAN_MIN_MS)
    return;
  g_clear_handle_id (&self->rescan_id, g_source_remove);
  self->rescan_id = g_timeout_add ((guint) delay_ms, rescan_cb, self);
}

/* GListModel */

static GType
fl_directory_model_get_item_type (GListModel *model)
{
  return FL_TYPE_ENTRY;
}

static guint
fl_directory_model_get_n_items (GListModel *model)
{
  return FL_DIRECTORY_MODEL (model)->entries->len;
}

static gpointer
fl_directory_model_get_item (GListModel *model,
                             guint       position)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (model);

  if (position >= self->entries->len)
    return NULL;
  return g_object_ref (self->entries->pdata[position]);
}

static void
fl_directory_model_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = fl_directory_model_get_item_type;
  iface->get_n_items = fl_directory_model_get_n_items;
  iface->get_item = fl_directory_model_get_item;
}

/* GObject */

static void
fl_directory_model_dispose (GObject *object)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_handle_id (&self->flush_id, g_source_remove);
  g_clear_handle_id (&self->rescan_id, g_source_remove);
  g_clear_handle_id (&self->deadline_id, g_source_remove);
  g_hash_table_remove_all (self->pid_watches);
  g_hash_table_remove_all (self->deadlines);

  while (self->roots->len > 0)
    {
      Root *root = g_ptr_array_steal_index (self->roots, self->roots->len - 1);

      root->removed = TRUE;
      g_hash_table_remove_all (root->monitors);
      root_unref (root);
    }

  for (guint i = 0; i < self->entries->len; i++)
    g_object_unref (self->entries->pdata[i]);
  g_ptr_array_set_size (self->entries, 0);

  if (self->clock_destroy != NULL)
    self->clock_destroy (self->clock_data);
  self->clock = NULL;
  self->clock_data = NULL;
  self->clock_destroy = NULL;

  G_OBJECT_CLASS (fl_directory_model_parent_class)->dispose (object);
}

static void
fl_directory_model_finalize (GObject *object)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (object);

  g_clear_pointer (&self->options, fl_lock_options_free);
  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->roots, g_ptr_array_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->touched, g_hash_table_unref);
  g_clear_pointer (&self->pid_watches, g_hash_table_unref);
  g_clear_pointer (&self->deadlines, g_hash_table_unref);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (fl_directory_model_parent_class)->finalize (object);
}

static void
fl_directory_model_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  FlDirectoryModel *self = FL_DIRECTORY_MODEL (object);

  switch (prop_id)
    {
    case PROP_LOADING:
      g_value_set_boolean (value, self->n_initial_in_flight > 0);
      break;
    case PROP_N_HELD:
      g_value_set_uint (value, self->counts[COUNT_HELD]);
      break;
    case PROP_N_STALE:
      g_value_set_uint (value, self->counts[COUNT_STALE]);
      break;
    case PROP_N_ORPHANS:
      g_value_set_uint (value, self->counts[COUNT_ORPHANS]);
      break;
    case PROP_N_FOREIGN:
      g_value_set_uint (value, self->counts[COUNT_FOREIGN]);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fl_directory_model_class_init (FlDirectoryModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  const GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = fl_directory_model_dispose;
  object_class->finalize = fl_directory_model_finalize;
  object_class->get_property = fl_directory_model_get_property;

  /**
   * FlDirectoryModel:loading:
   *
   * %TRUE while a directory added with fl_directory_model_add_directory_async() is being read
   * for the first time.
   */
  properties[PROP_LOADING] = g_param_spec_boolean ("loading", NULL, NULL, FALSE, flags);
  /**
   * FlDirectoryModel:n-held:
   *
   * The number of lock files that are not stale (alive, or unknown and not yet stale).
   */
  properties[PROP_N_HELD] = g_param_spec_uint ("n-held", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * FlDirectoryModel:n-stale:
   *
   * The number of stale lock files: a reclaim would succeed on each.
   */
  properties[PROP_N_STALE] = g_param_spec_uint ("n-stale", NULL, NULL, 0, G_MAXUINT, 0, flags);
  /**
   * FlDirectoryModel:n-orphans:
   *
   * The number of temp and graveyard files whose creator is gone.
   */
  properties[PROP_N_ORPHANS] = g_param_spec_uint ("n-orphans", NULL, NULL, 0, G_MAXUINT, 0,
                                                  flags);
  /**
   * FlDirectoryModel:n-foreign:
   *
   * The number of entries named like lock files that are not regular files.
   */
  properties[PROP_N_FOREIGN] = g_param_spec_uint ("n-foreign", NULL, NULL, 0, G_MAXUINT, 0,
                                                  flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * FlDirectoryModel::entry-changed:
   * @self: the model
   * @entry: the entry; for %FL_CHANGE_RELEASED and %FL_CHANGE_TAKEN_OVER it holds the last
   *   snapshot seen and may already be out of the model
   * @change: what happened
   *
   * Emitted after the model reflects the change (items-changed came first). Not emitted for the
   * entries found by a directory's first scan (they are not news), nor for what the caller did
   * itself through fl_directory_model_reclaim(). When another file replaces an entry's file,
   * the entry is updated in place and the signal is emitted twice: %FL_CHANGE_RELEASED (or
   * %FL_CHANGE_TAKEN_OVER) while the entry still holds the old snapshot, then
   * %FL_CHANGE_CREATED.
   */
  signals[ENTRY_CHANGED] = g_signal_new ("entry-changed", G_TYPE_FROM_CLASS (klass),
                                         G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                         G_TYPE_NONE, 2, FL_TYPE_ENTRY, FL_TYPE_CHANGE);
}

static void
fl_directory_model_init (FlDirectoryModel *self)
{
  self->entries = g_ptr_array_new ();
  self->roots = g_ptr_array_new ();
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->pid_watches = g_hash_table_new_full (NULL, NULL, NULL, pid_watch_free);
  self->deadlines = g_hash_table_new (NULL, NULL);
  self->cancellable = g_cancellable_new ();
  self->rescan_interval_ms = RESCAN_MIN_MS;
  self->monitoring = TRUE;
}

/* Public API */

/**
 * fl_directory_model_new:
 * @options: (nullable): how to judge the files (stale_after), %NULL for the defaults
 *
 * Creates an empty model. Add directories with fl_directory_model_add_directory(). The model
 * lives in the thread-default main context of the thread that creates it: file events, pidfd
 * wake-ups and the periodic rescan are dispatched there.
 *
 * Returns: (transfer full): a new model
 */
FlDirectoryModel *
fl_directory_model_new (const FlLockOptions *options)
{
  FlDirectoryModel *self = g_object_new (FL_TYPE_DIRECTORY_MODEL, NULL);

  self->options = options != NULL ? fl_lock_options_copy (options) : fl_lock_options_new ();
  return self;
}

/* Registers the root and its monitor before any scan, so no event after the scan can be lost.
 * Returns NULL with @error set, or the root (already present: *@existing is set). */
static Root *
register_root (FlDirectoryModel *self,
               const char       *directory,
               gboolean          recursive,
               gboolean         *existing,
               GError          **error)
{
  g_autofree char *path = g_canonicalize_filename (directory, NULL);
  Root *root = find_root (self, path);
  int fd;

  *existing = FALSE;
  if (root != NULL && root->recursive == recursive)
    {
      *existing = TRUE;
      return root;
    }

  fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    {
      set_directory_error (error, path, errno);
      return NULL;
    }
  close (fd);

  if (root != NULL)
    fl_directory_model_remove_directory (self, path);

  root = g_atomic_rc_box_new0 (Root);
  root->prefix = g_str_has_suffix (path, "/") ? g_strdup (path) : g_strconcat (path, "/", NULL);
  root->path = g_steal_pointer (&path);
  root->recursive = recursive;
  root->monitors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, monitor_free);
  g_ptr_array_add (self->roots, root);

  if (self->monitoring)
    ensure_monitor (self, root, root->path);
  return root;
}

/**
 * fl_directory_model_add_directory:
 * @self: a model
 * @directory: the directory to watch
 * @recursive: also watch every directory below it (symbolic links are not followed)
 * @error: where to report a directory that cannot be read
 *
 * Reads the directory and keeps watching it. Blocks while it reads: with very large directories
 * in an interactive program, use fl_directory_model_add_directory_async(). Adding a directory
 * that is already watched does nothing.
 *
 * Returns: %TRUE when the directory's entries are in the model
 */
gboolean
fl_directory_model_add_directory (FlDirectoryModel  *self,
                                  const char        *directory,
                                  gboolean           recursive,
                                  GError           **error)
{
  ScanJob *job;
  Root *root;
  gboolean existing;
  gboolean ok;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (directory != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  root = register_root (self, directory, !!recursive, &existing, error);
  if (root == NULL)
    return FALSE;
  if (existing)
    return TRUE;

  job = scan_job_new (self, root, MERGE_INITIAL);
  run_scan (job);
  ok = finish_job (self, job, error);
  scan_job_free (job);

  if (ok)
    schedule_rescan (self, self->rescan_interval_ms);
  return ok;
}

/**
 * fl_directory_model_add_directory_async:
 * @self: a model
 * @directory: the directory to watch
 * @recursive: also watch every directory below it
 * @cancellable: (nullable): a #GCancellable
 * @callback: called when the directory's entries are in the model
 * @user_data: data for @callback
 *
 * Like fl_directory_model_add_directory(), but reads the directory in a worker thread:
 * #FlDirectoryModel:loading is %TRUE meanwhile. File events are followed from the start.
 */
void
fl_directory_model_add_directory_async (FlDirectoryModel    *self,
                                        const char          *directory,
                                        gboolean             recursive,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;
  gboolean existing;
  Root *root;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (directory != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, fl_directory_model_add_directory_async);

  root = register_root (self, directory, !!recursive, &existing, &error);
  if (root == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else if (existing)
    g_task_return_boolean (task, TRUE);
  else
    start_scan (self, root, MERGE_INITIAL, task);
}

/**
 * fl_directory_model_add_directory_finish:
 * @self: a model
 * @result: the result given to the callback
 * @error: where to report a directory that cannot be read
 *
 * Returns: %TRUE when the directory's entries are in the model
 */
gboolean
fl_directory_model_add_directory_finish (FlDirectoryModel  *self,
                                         GAsyncResult      *result,
                                         GError           **error)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * fl_directory_model_remove_directory:
 * @self: a model
 * @directory: a directory given to fl_directory_model_add_directory()
 *
 * Stops watching @directory and removes its entries (those that no other watched directory
 * covers). No #FlDirectoryModel::entry-changed is emitted for them.
 *
 * Returns: %TRUE if the directory was watched
 */
gboolean
fl_directory_model_remove_directory (FlDirectoryModel *self,
                                     const char       *directory)
{
  g_autofree char *path = NULL;
  Root *root;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (directory != NULL, FALSE);

  path = g_canonicalize_filename (directory, NULL);
  root = find_root (self, path);
  if (root == NULL)
    return FALSE;

  g_ptr_array_remove (self->roots, root);
  root->removed = TRUE;
  g_hash_table_remove_all (root->monitors);
  merge (self, root, NULL, MERGE_REMOVE);
  root_unref (root);
  return TRUE;
}

/**
 * fl_directory_model_dup_directories:
 * @self: a model
 *
 * Returns: (transfer full) (array zero-terminated=1): the watched directories, canonical
 */
char **
fl_directory_model_dup_directories (FlDirectoryModel *self)
{
  GStrvBuilder *builder;
  char **result;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);

  builder = g_strv_builder_new ();
  for (guint i = 0; i < self->roots->len; i++)
    g_strv_builder_add (builder, ((Root *) self->roots->pdata[i])->path);
  result = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  return result;
}

/**
 * fl_directory_model_set_clock:
 * @self: a model
 * @clock: (nullable): the clock, %NULL for g_get_real_time()
 * @user_data: data for @clock
 * @destroy: (nullable): frees @user_data
 *
 * Replaces the clock that the model uses for ages and for the moment an unparsable lock becomes
 * stale. Tests set a fixed clock to make ages exact.
 */
void
fl_directory_model_set_clock (FlDirectoryModel *self,
                              FlClockFunc       clock,
                              gpointer          user_data,
                              GDestroyNotify    destroy)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  if (self->clock_destroy != NULL)
    self->clock_destroy (self->clock_data);
  self->clock = clock;
  self->clock_data = user_data;
  self->clock_destroy = destroy;
  schedule_deadline (self);
}

/**
 * fl_directory_model_get_now:
 * @self: a model
 *
 * An entry's age is `fl_snapshot_get_age_at (fl_entry_get_snapshot (entry),
 * fl_directory_model_get_now (model))`.
 *
 * Returns: the model's clock, in microseconds of real time
 */
gint64
fl_directory_model_get_now (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), 0);

  return model_now (self);
}

/**
 * fl_directory_model_rescan:
 * @self: a model
 *
 * Applies the pending file events, then reads every watched directory again and applies the
 * differences, blocking until done. The model does this by itself periodically, in a worker
 * thread; this is for callers who know something changed that no event reports.
 */
void
fl_directory_model_rescan (FlDirectoryModel *self)
{
  g_autoptr(GPtrArray) roots = NULL;

  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));

  _fl_directory_model_flush (self);

  roots = g_ptr_array_new_with_free_func ((GDestroyNotify) root_unref);
  for (guint i = 0; i < self->roots->len; i++)
    g_ptr_array_add (roots, g_atomic_rc_box_acquire (self->roots->pdata[i]));

  for (guint i = 0; i < roots->len; i++)
    {
      ScanJob *job = scan_job_new (self, roots->pdata[i], MERGE_RESCAN);

      run_scan (job);
      finish_job (self, job, NULL);
      scan_job_free (job);
    }
}

/**
 * fl_directory_model_lookup:
 * @self: a model
 * @path: the path of a file
 *
 * Returns: (transfer none) (nullable): the entry for @path, or %NULL
 */
FlEntry *
fl_directory_model_lookup (FlDirectoryModel *self,
                           const char       *path)
{
  g_autofree char *canonical = NULL;
  guint pos;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  canonical = g_canonicalize_filename (path, NULL);
  return find_path (self, canonical, &pos) ? self->entries->pdata[pos] : NULL;
}

/**
 * fl_directory_model_dup_related:
 * @self: a model
 * @entry: an entry of @self
 *
 * The lock, temp and graveyard files of the same target as @entry, @entry excepted, in path
 * order. They are neighbours in the model, so this costs O(log n + related).
 *
 * Returns: (transfer full) (element-type FlEntry): the related entries
 */
GPtrArray *
fl_directory_model_dup_related (FlDirectoryModel *self,
                                FlEntry          *entry)
{
  GPtrArray *related;
  FlSnapshot *snap;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *lock_path = NULL;
  guint pos;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), NULL);
  g_return_val_if_fail (FL_IS_ENTRY (entry), NULL);

  related = g_ptr_array_new_with_free_func (g_object_unref);
  snap = fl_entry_get_snapshot (entry);
  if (fl_snapshot_get_target (snap) == NULL)
    return related;

  dir = g_path_get_dirname (fl_snapshot_get_path (snap));
  base = g_path_get_basename (fl_snapshot_get_target (snap));
  lock_path = g_strconcat (dir, "/", base, ".lock", NULL);

  find_path (self, lock_path, &pos);
  for (guint i = pos; i < self->entries->len; i++)
    {
      FlEntry *other = self->entries->pdata[i];
      FlSnapshot *other_snap = fl_entry_get_snapshot (other);
      g_autofree char *other_base = NULL;

      if (!g_str_has_prefix (entry_path (other), lock_path))
        break;
      if (other == entry || fl_snapshot_get_target (other_snap) == NULL)
        continue;
      other_base = g_path_get_basename (fl_snapshot_get_target (other_snap));
      if (g_str_equal (other_base, base))
        g_ptr_array_add (related, g_object_ref (other));
    }
  return related;
}

/**
 * fl_directory_model_reclaim:
 * @self: a model
 * @snapshot: the snapshot a person confirmed, from an entry of @self
 * @error: where to report a refusal
 *
 * Runs fl_snapshot_reclaim() with the model's options on exactly @snapshot, so nothing is
 * touched if the file changed since (%FL_ERROR_CHANGED) or its holder lives (%FL_ERROR_NOT_STALE).
 * Then the model reads the path again at once, so the row updates before this returns, and a
 * successful reclaim is not reported by #FlDirectoryModel::entry-changed: it is the caller's
 * own doing, not a foreign change.
 *
 * Returns: %TRUE if the file was removed
 */
gboolean
fl_directory_model_reclaim (FlDirectoryModel  *self,
                            FlSnapshot        *snapshot,
                            GError           **error)
{
  g_autofree char *path = NULL;
  DirCache cache = { NULL, -1 };
  gboolean ok;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);
  g_return_val_if_fail (FL_IS_SNAPSHOT (snapshot), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  path = g_strdup (fl_snapshot_get_path (snapshot));
  ok = fl_snapshot_reclaim (snapshot, self->options, error);

  if (ok)
    self->quiet++;
  g_object_freeze_notify (G_OBJECT (self));
  refresh_path (self, &cache, path, 0, model_now (self));
  notify_counts (self);
  g_object_thaw_notify (G_OBJECT (self));
  if (ok)
    self->quiet--;
  dir_cache_clear (&cache);
  schedule_deadline (self);

  return ok;
}

/* Test entry points */

void
_fl_directory_model_set_monitoring (FlDirectoryModel *self,
                                    gboolean          monitoring)
{
  g_return_if_fail (FL_IS_DIRECTORY_MODEL (self));
  g_return_if_fail (self->roots->len == 0);

  self->monitoring = !!monitoring;
}

guint
_fl_directory_model_get_n_pid_watches (FlDirectoryModel *self)
{
  GHashTableIter iter;
  gpointer value;
  guint n = 0;

  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), 0);

  g_hash_table_iter_init (&iter, self->pid_watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n += ((PidWatch *) value)->fd >= 0;
  return n;
}

gboolean
_fl_directory_model_has_pending (FlDirectoryModel *self)
{
  g_return_val_if_fail (FL_IS_DIRECTORY_MODEL (self), FALSE);

  return g_hash_table_size (self->pending) > 0;
}
