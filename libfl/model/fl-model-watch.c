/* fl-model-watch.c: a holder's exit (its pidfd), an unparsable lock's deadline and an exited
 * holder's PID in use again, the changes that make no file event
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>

#include "support/fl-handle-source-private.h"
#include "model/fl-model-owner-private.h"
#include "model/fl-model-watch-private.h"
#include "support/fl-process-private.h"
#include "protocol/fl-snapshot-private.h"
#include "platform/fl-platform.h"

typedef struct
{
  FlHandle fd;         /* the platform's process-exit handle (a pidfd), or none */
  guint    source_id;
  guint    n_entries;
} PidWatch;

static void
pid_watch_free (gpointer data)
{
  PidWatch *pw = data;

  if (pw->source_id != 0)
    g_source_remove (pw->source_id);
  _fl_platform_close (pw->fd);
  g_free (pw);
}

void
_fl_model_watch_init (FlModelWatch     *watch,
                      FlDirectoryModel *model)
{
  size_t max_handles = _fl_platform_max_handles ();

  watch->pid_watches = g_hash_table_new_full (NULL, NULL, NULL, pid_watch_free);
  watch->deadlines = g_hash_table_new (NULL, NULL);
  watch->dead_pids = g_hash_table_new (NULL, NULL);
  watch->model = model;

  /* Each watched holder costs a descriptor: leave most of them to the program. */
  if (max_handles > 0)
    watch->max_pid_watches = (guint) CLAMP (max_handles / 4, 16, FL_MODEL_MAX_PID_WATCHES);
  else
    watch->max_pid_watches = FL_MODEL_MAX_PID_WATCHES;
}

/* Stops every watch; the model's entries are going away. */
void
_fl_model_watch_dispose (FlModelWatch *watch)
{
  g_clear_handle_id (&watch->deadline_id, g_source_remove);
  g_clear_handle_id (&watch->dead_id, g_source_remove);
  g_hash_table_remove_all (watch->pid_watches);
  g_hash_table_remove_all (watch->deadlines);
  g_hash_table_remove_all (watch->dead_pids);
}

void
_fl_model_watch_finalize (FlModelWatch *watch)
{
  g_clear_pointer (&watch->pid_watches, g_hash_table_unref);
  g_clear_pointer (&watch->deadlines, g_hash_table_unref);
  g_clear_pointer (&watch->dead_pids, g_hash_table_unref);
}

/* The holder exited: re-read every entry with that PID. Finding them is a pass over the
 * entries, but only when a watched process dies, never per tick. The watch is not armed again
 * for the same PID, so an exited process cannot make the model spin. */
static gboolean
pidfd_ready_cb (FlHandle fd,
                gpointer user_data)
{
  FlModelWatch *watch = user_data;
  GHashTableIter iter;
  gpointer key, value;
  int pid = 0;

  g_hash_table_iter_init (&iter, watch->pid_watches);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      PidWatch *pw = value;

      if (pw->fd == fd)
        {
          pid = GPOINTER_TO_INT (key);
          _fl_platform_close (pw->fd);
          pw->fd = FL_HANDLE_NONE;
          pw->source_id = 0;
          break;
        }
    }

  /* What inspectors remember of processes is now out of date. */
  _fl_process_cache_invalidate ();

  if (pid > 0)
    _fl_directory_model_queue_pid (watch->model, pid);
  _fl_directory_model_flush_slice (watch->model);

  return G_SOURCE_REMOVE;
}

static gboolean
wants_pid_watch (FlSnapshot *snap)
{
  /* A holder its backend judged (an etcd lease) may be of another machine: no pidfd here,
   * unless the backend proved it runs on this one. */
  return fl_snapshot_get_liveness (snap) == FL_LIVENESS_ALIVE && fl_snapshot_get_pid (snap) > 0
         && (!_fl_snapshot_has_traits (snap, FL_SNAPSHOT_JUDGED_BY_BACKEND)
             || _fl_snapshot_has_traits (snap, FL_SNAPSHOT_HOLDER_HERE));
}

static void
pid_watch_ref (FlModelWatch *watch,
               FlSnapshot   *snap)
{
  int pid = fl_snapshot_get_pid (snap);
  PidWatch *pw = g_hash_table_lookup (watch->pid_watches, GINT_TO_POINTER (pid));

  if (pw == NULL)
    {
      int err;

      if (g_hash_table_size (watch->pid_watches) >= watch->max_pid_watches)
        return;  /* the periodic rescan is the fallback */

      pw = g_new0 (PidWatch, 1);
      err = _fl_platform_process_watch (pid, &pw->fd);
      if (err == 0)
        pw->source_id = _fl_handle_add_watch (pw->fd, pidfd_ready_cb, watch);
      else if (err == ESRCH)  /* died since the snapshot */
        _fl_directory_model_queue_path (watch->model, fl_snapshot_get_path (snap));
      g_hash_table_insert (watch->pid_watches, GINT_TO_POINTER (pid), pw);
    }
  pw->n_entries++;
}

static void
pid_watch_unref (FlModelWatch *watch,
                 FlSnapshot   *snap)
{
  gpointer key = GINT_TO_POINTER (fl_snapshot_get_pid (snap));
  PidWatch *pw = g_hash_table_lookup (watch->pid_watches, key);

  if (pw != NULL && --pw->n_entries == 0)
    g_hash_table_remove (watch->pid_watches, key);
}

/* An exited holder's PID handed to a new process is the evidence of a reuse ("Stale: PID
 * reused" rather than "holder exited"), but the kernel tells nobody when it hands out a PID
 * (the proc connector needs CAP_NET_ADMIN), so these few PIDs are looked up, one /proc read
 * each, every DEAD_POLL_MS while there are any: a reuse shows within a second, and the
 * entries are re-read only when their PID runs again. Not a pass over the entries. */
#define DEAD_POLL_MS 500
/* A failed open of /proc/PID/stat costs a few microseconds: this many, twice a second, stay
 * far below a percent of a core. More exited holders wait for the periodic rescan. */
#define MAX_DEAD_PIDS 1024

static gboolean
wants_dead_watch (FlSnapshot *snap)
{
  return fl_snapshot_get_liveness (snap) == FL_LIVENESS_DEAD && fl_snapshot_get_pid (snap) > 0
         && !_fl_snapshot_has_traits (snap, FL_SNAPSHOT_JUDGED_BY_BACKEND);
}

static void
dead_pid_account (FlModelWatch *watch,
                  FlSnapshot   *snap,
                  int           sign)
{
  gpointer key = GINT_TO_POINTER (fl_snapshot_get_pid (snap));
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (watch->dead_pids, key));

  if (sign > 0 && n == 0 && g_hash_table_size (watch->dead_pids) >= MAX_DEAD_PIDS)
    return;  /* the periodic rescan is the fallback */
  if (sign < 0 && n == 0)
    return;  /* never counted: the table was full */
  n = sign > 0 ? n + 1 : n - 1;
  if (n == 0)
    g_hash_table_remove (watch->dead_pids, key);
  else
    g_hash_table_insert (watch->dead_pids, key, GUINT_TO_POINTER (n));
}

static gboolean
dead_poll_cb (gpointer user_data)
{
  FlModelWatch *watch = user_data;
  GHashTableIter iter;
  gpointer key;
  gboolean found = FALSE;

  g_hash_table_iter_init (&iter, watch->dead_pids);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      FlProcessInfo info;

      _fl_process_probe (GPOINTER_TO_INT (key), FALSE, &info);
      if (info.state == FL_PROCESS_RUNNING)
        {
          _fl_directory_model_queue_pid (watch->model, GPOINTER_TO_INT (key));
          found = TRUE;
        }
      _fl_process_info_clear (&info);
    }
  if (found)
    {
      /* What inspectors remember of that PID is the exited holder's. */
      _fl_process_cache_invalidate ();
      _fl_directory_model_flush_slice (watch->model);
    }
  if (g_hash_table_size (watch->dead_pids) > 0)
    return G_SOURCE_CONTINUE;
  watch->dead_id = 0;
  return G_SOURCE_REMOVE;
}

/* A lock whose content is not a PID turns stale by age, at the time the judge gave it, without
 * any event. Only the judge's own time: a lock the judge never calls stale by age (empty, a
 * process group, FL_STALE_NEVER) has no deadline, and one counted from its ctime is not due at
 * its older mtime. A deadline the judge does not honour would fire, re-judge "not stale" and
 * fire again at once, for ever. */
static gboolean
has_deadline (FlSnapshot *snap)
{
  gint64 stale_at = _fl_snapshot_get_stale_at (snap);

  return fl_snapshot_get_kind (snap) == FL_ENTRY_LOCK && stale_at > 0 && stale_at < G_MAXINT64;
}

void
_fl_model_watch_account (FlModelWatch *watch,
                         FlEntry      *entry,
                         FlSnapshot   *snap,
                         int           sign)
{
  if (wants_pid_watch (snap))
    {
      if (sign > 0)
        pid_watch_ref (watch, snap);
      else
        pid_watch_unref (watch, snap);
    }

  if (wants_dead_watch (snap))
    dead_pid_account (watch, snap, sign);

  if (has_deadline (snap))
    {
      if (sign > 0)
        g_hash_table_add (watch->deadlines, entry);
      else
        g_hash_table_remove (watch->deadlines, entry);
    }
}

static gboolean
deadline_cb (gpointer user_data)
{
  FlModelWatch *watch = user_data;
  gint64 now = _fl_directory_model_now (watch->model);
  GHashTableIter iter;
  gpointer key;

  watch->deadline_id = 0;

  g_hash_table_iter_init (&iter, watch->deadlines);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      FlSnapshot *snap = fl_entry_get_snapshot (key);

      if (_fl_snapshot_get_stale_at (snap) <= now)
        _fl_directory_model_queue_path (watch->model, fl_snapshot_get_path (snap));
    }
  _fl_directory_model_flush_slice (watch->model);

  return G_SOURCE_REMOVE;
}

void
_fl_model_watch_schedule (FlModelWatch *watch)
{
  gint64 first;
  gint64 delay_ms;

  if (watch->dead_id == 0 && g_hash_table_size (watch->dead_pids) > 0)
    watch->dead_id = g_timeout_add (DEAD_POLL_MS, dead_poll_cb, watch);

  g_clear_handle_id (&watch->deadline_id, g_source_remove);
  if (g_hash_table_size (watch->deadlines) == 0)
    return;

  first = _fl_model_watch_get_next_deadline (watch);

  /* +1 ms so the re-judged snapshot is past the deadline, not on it */
  delay_ms = CLAMP ((first - _fl_directory_model_now (watch->model)) / 1000 + 1, 0, G_MAXUINT / 2);
  watch->deadline_id = g_timeout_add ((guint) delay_ms, deadline_cb, watch);
}

gint64
_fl_model_watch_get_next_deadline (FlModelWatch *watch)
{
  gint64 first = G_MAXINT64;
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, watch->deadlines);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    first = MIN (first, _fl_snapshot_get_stale_at (fl_entry_get_snapshot (key)));
  return first;
}

guint
_fl_model_watch_get_n_pid_watches (FlModelWatch *watch)
{
  GHashTableIter iter;
  gpointer value;
  guint n = 0;

  g_hash_table_iter_init (&iter, watch->pid_watches);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    n += ((PidWatch *) value)->fd != FL_HANDLE_NONE;
  return n;
}
