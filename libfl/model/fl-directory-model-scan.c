/* fl-directory-model-scan.c: reading whole directories in worker threads, and applying it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-directory-model-private.h"
#include "fl-process-private.h"
#include "fl-enum-types.h"
#include "fl-error.h"
#include "fl-names-private.h"
#include "fl-snapshot-private.h"
#include "fl-tsan-private.h"
#include "fl-walk-private.h"

/* Scanning: runs in a worker thread for the periodic repair, inline for a synchronous add.
 * It reads the tree with the walker (fl-walk.c) and one descriptor per level, never a GFile per
 * file. */

void
_fl_model_scan_job_free (gpointer data)
{
  ScanJob *job = data;

  _fl_tsan_acquire (job);
  g_clear_pointer (&job->root, _fl_model_root_unref);
  g_clear_pointer (&job->options, fl_lock_options_free);
  g_clear_object (&job->cancellable);
  g_clear_pointer (&job->previous, g_ptr_array_unref);
  g_clear_pointer (&job->snapshots, g_ptr_array_unref);
  g_clear_pointer (&job->dirs, g_ptr_array_unref);
  g_clear_error (&job->error);
  g_free (job);
}

ScanJob *
_fl_model_scan_job_new (FlDirectoryModel *self,
                        Root             *root,
                        MergeMode         mode)
{
  ScanJob *job = g_new0 (ScanJob, 1);
  guint i;

  /* A rescan is for what no event reported, such as a holder that died without a pidfd to
   * say so: it must not be answered from what inspection remembers of processes. */
  if (mode == MERGE_RESCAN)
    _fl_process_cache_invalidate ();

  job->root = g_atomic_rc_box_acquire (root);
  job->options = fl_lock_options_copy (self->options);
  job->now_us = _fl_model_model_now (self);
  job->serial = ++root->serial;
  job->mode = mode;
  job->n_threads = CLAMP (g_get_num_processors (), 1, MAX_SCAN_THREADS);
  job->cancellable = g_object_ref (self->cancellable);
  job->snapshots = g_ptr_array_new_with_free_func (g_object_unref);
  job->dirs = g_ptr_array_new_with_free_func (g_free);

  /* A rescan finds most files unchanged: it keeps their current snapshot instead of a second
   * copy, so a rescan of 100,000 locks does not double the memory. */
  job->previous = g_ptr_array_new_with_free_func (g_object_unref);
  _fl_model_find_path (self, root->prefix, &i);
  for (; i < self->entries->len; i++)
    {
      FlSnapshot *snap = fl_entry_get_snapshot (self->entries->pdata[i]);

      if (!g_str_has_prefix (fl_snapshot_get_path (snap), root->prefix))
        break;
      g_ptr_array_add (job->previous, g_object_ref (snap));
    }

  return job;
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
          if (!_fl_model_snapshots_equal (old, fresh))
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
  FlDir       *dir;
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
      snap = _fl_snapshot_new_at (slice->dir, slice->dir_path, slice->names[i],
                                  slice->job->options, slice->job->now_us, NULL);
      if (snap != NULL)
        slice->out[i] = reuse_previous (slice->job, snap);
    }
  return NULL;
}

/* Judging a file costs about ten system calls, most of the load: spread over the cores. */
static void
snapshot_names (ScanJob    *job,
                FlDir      *dir,
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
      slices[t] = (ScanSlice) { job, dir, dir_path, (char **) names->pdata, out,
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

static gboolean
scan_names_cb (FlDir       *dir,
               const char  *dir_path,
               GPtrArray   *names,
               gpointer     user_data,
               GError     **error)
{
  ScanJob *job = user_data;

  g_ptr_array_add (job->dirs, g_strdup (dir_path));
  snapshot_names (job, dir, dir_path, names);
  return TRUE;
}

/* What cannot be read is left out silently: the next rescan tries again. */
static const FlWalkFuncs scan_funcs = { scan_names_cb, NULL };

void
_fl_model_set_directory_error (GError    **error,
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

void
_fl_model_run_scan (ScanJob *job)
{
  gint64 start = g_get_monotonic_time ();
  FlDir *dir;
  int err = _fl_platform_dir_open (job->root->path, FALSE, &dir);

  if (err != 0)
    {
      _fl_model_set_directory_error (&job->error, job->root->path, err);
      return;
    }
  if (!_fl_walk (dir, job->root->path, job->root->recursive, &scan_funcs, job, job->cancellable,
                 NULL))
    g_debug ("Scan of %s stopped", job->root->path);  /* cancelled: the result is dropped */
  _fl_platform_dir_close (dir);
  g_ptr_array_sort (job->snapshots, _fl_model_compare_snapshot_paths);
  job->duration_us = g_get_monotonic_time () - start;
}

static void
scan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  _fl_tsan_acquire (task_data);
  _fl_model_run_scan (task_data);
  _fl_tsan_release (task_data);
  g_task_return_boolean (task, TRUE);
}

/* Applying a finished scan */

gboolean
_fl_model_finish_job (FlDirectoryModel *self,
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
      _fl_model_merge (self, root, NULL, MERGE_RESCAN);
      return TRUE;
    }

  _fl_model_merge (self, root, job->snapshots, job->mode);
  if (self->monitoring)
    _fl_model_sync_monitors (self, root, job->dirs);
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

  _fl_tsan_acquire (job);
  g_weak_ref_clear (&call->model);
  g_free (call);
  if (self == NULL)
    {
      _fl_tsan_release (job);
      return;
    }

  self->n_scans_in_flight--;
  if (!g_cancellable_is_cancelled (self->cancellable))
    ok = _fl_model_finish_job (self, job, &error);
  if (self->n_scans_in_flight == 0)
    g_clear_pointer (&self->touched, g_hash_table_unref);

  if (job->mode == MERGE_INITIAL && --self->n_initial_in_flight == 0)
    _fl_model_notify_loading (self);

  if (self->n_scans_in_flight == 0)
    {
      _fl_model_schedule_rescan (self, self->rescan_again ? 0 : self->rescan_interval_ms);
      self->rescan_again = FALSE;
    }

  /* The pool thread may drop the task, and free the job, after this */
  _fl_tsan_release (job);

  if (outer != NULL)
    {
      if (ok)
        g_task_return_boolean (outer, TRUE);
      else
        g_task_return_error (outer, g_steal_pointer (&error));
    }
}

void
_fl_model_start_scan (FlDirectoryModel *self,
                      Root             *root,
                      MergeMode         mode,
                      GTask            *outer)
{
  g_autoptr(GTask) task = NULL;
  ScanCall *call = g_new0 (ScanCall, 1);
  ScanJob *job;

  if (self->touched == NULL)
    self->touched = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->n_scans_in_flight++;
  if (mode == MERGE_INITIAL && self->n_initial_in_flight++ == 0)
    _fl_model_notify_loading (self);

  g_weak_ref_init (&call->model, self);
  call->outer = outer != NULL ? g_object_ref (outer) : NULL;
  task = g_task_new (NULL, self->cancellable, scan_done_cb, call);
  g_task_set_source_tag (task, _fl_model_start_scan);
  job = _fl_model_scan_job_new (self, root, mode);
  g_task_set_task_data (task, job, _fl_model_scan_job_free);
  _fl_tsan_release (job);
  g_task_run_in_thread (task, scan_thread);
}

static gboolean
rescan_cb (gpointer user_data)
{
  FlDirectoryModel *self = user_data;

  self->rescan_id = 0;
  if (self->n_scans_in_flight > 0)
    {
      /* The scans in flight may have read the directory before what asked for this one. */
      self->rescan_again = TRUE;
      return G_SOURCE_REMOVE;
    }

  for (guint i = 0; i < self->roots->len; i++)
    _fl_model_start_scan (self, self->roots->pdata[i], MERGE_RESCAN, NULL);
  return G_SOURCE_REMOVE;
}

void
_fl_model_schedule_rescan (FlDirectoryModel *self,
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
