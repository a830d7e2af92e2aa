/* fl-model-scanner.c: whole roots read off the main thread (a directory by the walker, a root
 * read whole by its backend), and merged into the entry store on the main context
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "protocol/fl-lock-backend-private.h"
#include "model/fl-model-follower-private.h"
#include "model/fl-model-owner-private.h"
#include "model/fl-model-scanner-private.h"
#include "support/fl-process-private.h"
#include "protocol/fl-snapshot-private.h"
#include "support/fl-tsan-private.h"
#include "model/fl-walk-private.h"

/* A scan runs in a worker thread for the periodic repair and an asynchronous add, inline for
 * a synchronous one. It reads the tree with the walker (fl-walk.c), one descriptor per level,
 * never a GFile per file, and judges each directory's names on up to MAX_SCAN_THREADS threads.
 * GLib drops inotify's queue overflow silently, so every root is rescanned periodically, at an
 * interval that grows with the cost of a scan (30 times it, within RESCAN_MIN_MS..MAX_MS). */
#define MAX_SCAN_THREADS  4
#define SCAN_SLICE_MIN    256
#define RESCAN_MIN_MS     10000
#define RESCAN_MAX_MS     300000

struct _FlModelScanJob
{
  FlModelRoot     *root;       /* atomic rc box */
  FlLockOptions   *options;
  gint64           now_us;
  guint            serial;
  FlModelScanMode  mode;
  guint            n_threads;
  GCancellable    *cancellable;
  GPtrArray       *previous;   /* the entries' snapshots at the start, by path: reused if equal */
  GPtrArray       *snapshots;
  GPtrArray       *dirs;
  GPtrArray       *problems;   /* char *: subfolders left out, said to the person watching */
  int              open_errno; /* why the root itself could not be opened, or 0 */
  GError          *error;
  gint64           duration_us;
  /* A first scan in a worker thread hands its rows over as it goes (see hand_over()). */
  GMainContext    *context;
  GWeakRef         model;
  FlModelScanner  *scanner;
};

/* The first rows of a large folder are shown before the whole of it is read: each chunk of a
 * first scan is merged as it is judged (only added: what is not in it yet stays). The first
 * chunk is about a screenful, to be quick; the others larger, to be few. A screenful, not more:
 * a list view that is not yet shown (the Lock Inspector's is on a hidden page until rows come)
 * makes a row of widgets for each item it is first given, some 3 ms each under Xvfb, so a first
 * chunk of 1,024 kept the window busy for 0.6 s before it could show anything (64: 0.16-0.28 s;
 * fl-inspector-bench, docs/performance.md). */
#define HAND_OVER_FIRST 64
#define HAND_OVER_CHUNK 8192

void
_fl_model_scanner_init (FlModelScanner            *scanner,
                        FlModelStore              *store,
                        GPtrArray                 *roots,
                        FlDirectoryModel          *model)
{
  scanner->store = store;
  scanner->roots = roots;
  scanner->cancellable = g_cancellable_new ();
  scanner->periodic = TRUE;
  scanner->interval_ms = RESCAN_MIN_MS;
  scanner->model = model;
}

void
_fl_model_scanner_dispose (FlModelScanner *scanner)
{
  g_cancellable_cancel (scanner->cancellable);
  g_clear_handle_id (&scanner->rescan_id, g_source_remove);
}

void
_fl_model_scanner_finalize (FlModelScanner *scanner)
{
  g_clear_pointer (&scanner->touched, g_hash_table_unref);
  g_clear_object (&scanner->cancellable);
}

static void
scan_job_free (gpointer data)
{
  FlModelScanJob *job = data;

  _fl_tsan_acquire (job);
  g_clear_pointer (&job->root, _fl_model_root_unref);
  g_clear_pointer (&job->options, fl_lock_options_free);
  g_clear_object (&job->cancellable);
  g_clear_pointer (&job->previous, g_ptr_array_unref);
  g_clear_pointer (&job->snapshots, g_ptr_array_unref);
  g_clear_pointer (&job->dirs, g_ptr_array_unref);
  g_clear_pointer (&job->problems, g_ptr_array_unref);
  g_clear_error (&job->error);
  g_clear_pointer (&job->context, g_main_context_unref);
  g_weak_ref_clear (&job->model);
  g_free (job);
}

static FlModelScanJob *
scan_job_new (FlModelScanner  *scanner,
              FlModelRoot     *root,
              FlModelScanMode  mode)
{
  FlModelScanJob *job = g_new0 (FlModelScanJob, 1);
  FlModelStore *store = scanner->store;
  guint i;

  /* A rescan is for what no event reported, such as a holder that died without a pidfd to
   * say so: it must not be answered from what inspection remembers of processes. */
  if (mode == FL_MODEL_SCAN_RESCAN)
    _fl_process_cache_invalidate ();

  job->root = _fl_model_root_ref (root);
  job->options = fl_lock_options_copy (scanner->options);
  job->now_us = _fl_directory_model_now (scanner->model);
  job->serial = ++root->serial;
  job->mode = mode;
  job->n_threads = CLAMP (g_get_num_processors (), 1, MAX_SCAN_THREADS);
  job->cancellable = g_object_ref (scanner->cancellable);
  job->snapshots = g_ptr_array_new_with_free_func (g_object_unref);
  job->dirs = g_ptr_array_new_with_free_func (g_free);
  job->problems = g_ptr_array_new_with_free_func (g_free);
  g_weak_ref_init (&job->model, NULL);
  job->scanner = scanner;

  /* A rescan finds most files unchanged: it keeps their current snapshot instead of a second
   * copy, so a rescan of 100,000 locks does not double the memory. */
  job->previous = g_ptr_array_new_with_free_func (g_object_unref);
  _fl_model_store_find (store, root->prefix, &i);
  for (; i < _fl_model_store_get_n_entries (store); i++)
    {
      FlSnapshot *snap = fl_entry_get_snapshot (_fl_model_store_get_entry (store, i));

      if (!g_str_has_prefix (_fl_snapshot_get_key (snap), root->prefix))
        break;
      g_ptr_array_add (job->previous, g_object_ref (snap));
    }

  return job;
}

/* Runs in any thread: the previous snapshots are immutable and never change during a scan. */
static FlSnapshot *
reuse_previous (FlModelScanJob *job,
                FlSnapshot     *fresh)
{
  const char *path = _fl_snapshot_get_key (fresh);
  guint lo = 0;
  guint hi = job->previous->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      FlSnapshot *old = job->previous->pdata[mid];
      int cmp = strcmp (_fl_snapshot_get_key (old), path);

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
  FlModelScanJob  *job;
  FlDir           *dir;
  const char      *dir_path;
  char           **names;
  FlSnapshot     **out;
  guint            begin;
  guint            end;
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

static int compare_snapshot_paths (gconstpointer a,
                                   gconstpointer b);
static gboolean never_cb (const char *path,
                          gpointer    user_data);
static gboolean take_new (const char *path,
                          gpointer    user_data);

typedef struct
{
  GWeakRef        model;
  FlModelScanner *scanner;
  FlModelRoot    *root;
  guint           serial;
  GPtrArray      *snaps;
} HandOver;

static void
hand_over_free (gpointer data)
{
  HandOver *h = data;

  g_weak_ref_clear (&h->model);
  _fl_model_root_unref (h->root);
  g_ptr_array_unref (h->snaps);
  g_free (h);
}

typedef struct
{
  FlModelScanner  *scanner;
  FlModelRoot     *root;
  FlModelScanMode  mode;
} MergeCall;

/* On the main context: the chunk's rows join the model, quietly (a first scan is not news),
 * unless the model, the root or a newer scan has moved on. */
static gboolean
hand_over_cb (gpointer data)
{
  HandOver *h = data;
  g_autoptr(GObject) model = NULL;
  MergeCall call;

  _fl_tsan_acquire (h);  /* before anything of @h is read: the worker wrote it */
  call = (MergeCall) { h->scanner, h->root, FL_MODEL_SCAN_INITIAL };
  model = g_weak_ref_get (&h->model);
  if (model == NULL || h->root->removed || h->root->applied >= h->serial ||
      g_cancellable_is_cancelled (h->scanner->cancellable))
    return G_SOURCE_REMOVE;
  h->scanner->store->quiet++;
  _fl_model_store_merge (h->scanner->store, h->root->prefix, h->snaps, never_cb, take_new,
                         &call);
  h->scanner->store->quiet--;
  _fl_directory_model_merged (h->scanner->model);
  return G_SOURCE_REMOVE;
}

/* From the worker: the snapshots from @first on, sorted, to the main context. */
static void
hand_over (FlModelScanJob *job,
           guint           first)
{
  GSource *source;
  HandOver *h;

  if (first >= job->snapshots->len)
    return;
  h = g_new0 (HandOver, 1);
  g_weak_ref_init (&h->model, NULL);
  {
    g_autoptr(GObject) model = g_weak_ref_get (&job->model);

    g_weak_ref_set (&h->model, model);
  }
  h->scanner = job->scanner;
  h->root = _fl_model_root_ref (job->root);
  h->serial = job->serial;
  h->snaps = g_ptr_array_new_full (job->snapshots->len - first, g_object_unref);
  for (guint i = first; i < job->snapshots->len; i++)
    g_ptr_array_add (h->snaps, g_object_ref (job->snapshots->pdata[i]));
  g_ptr_array_sort (h->snaps, compare_snapshot_paths);
  _fl_tsan_release (h);
  /* Always through a source: g_main_context_invoke() would run the merge in this worker
   * when nobody owns the main context at that instant, and the model belongs to its own. */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, hand_over_cb, h, hand_over_free);
  g_source_attach (source, job->context);
  g_source_unref (source);
}

/* Judging a file costs about ten system calls, most of the load: spread over the cores. The
 * walker calls this for each directory it lists. */
static gboolean
snapshot_names_cb (FlDir       *dir,
                   const char  *dir_path,
                   GPtrArray   *names,
                   gpointer     user_data,
                   GError     **error)
{
  FlModelScanJob *job = user_data;
  guint n_all = names->len;
  g_autofree FlSnapshot **out = g_new0 (FlSnapshot *, n_all);

  g_ptr_array_add (job->dirs, g_strdup (dir_path));

  /* A chunk at a time when rows are handed over as they come, else all at once. */
  for (guint begin = 0; begin < n_all;)
    {
      guint chunk = job->snapshots->len == 0 ? HAND_OVER_FIRST : HAND_OVER_CHUNK;
      guint end = job->context != NULL ? MIN (begin + chunk, n_all) : n_all;
      guint n = end - begin;
      guint n_threads = MIN (job->n_threads, n / SCAN_SLICE_MIN + 1);
      g_autofree ScanSlice *slices = g_new0 (ScanSlice, n_threads);
      g_autofree GThread **threads = g_new0 (GThread *, n_threads);
      guint first_new = job->snapshots->len;

      for (guint t = 0; t < n_threads; t++)
        {
          slices[t] = (ScanSlice) { job, dir, dir_path, (char **) names->pdata, out,
                                    begin + (guint) ((guint64) n * t / n_threads),
                                    begin + (guint) ((guint64) n * (t + 1) / n_threads) };
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

      for (guint i = begin; i < end; i++)
        if (out[i] != NULL)
          g_ptr_array_add (job->snapshots, out[i]);
      if (job->context != NULL)
        hand_over (job, first_new);
      begin = end;
    }
  return TRUE;
}

/* What cannot be read is left out, and said (FlDirectoryModel:problems): a listing is never
 * silently incomplete. The next rescan tries again. */
static gboolean
scan_problem_cb (const char     *path,
                 guint           depth,
                 FlWalkProblem   problem,
                 int             errno_value,
                 gpointer        user_data,
                 GError        **error)
{
  FlModelScanJob *job = user_data;

  if (problem == FL_WALK_TOO_DEEP)
    g_ptr_array_add (job->problems,
                     g_strdup_printf (_("Not listed: “%s” is more than %d directories deep; "
                                        "list it on its own"), path, FL_WALK_MAX_DEPTH));
  else
    g_ptr_array_add (job->problems, g_strdup_printf (_("Cannot list “%s”: %s"), path,
                                                     g_strerror (errno_value)));
  return TRUE;
}

static const FlWalkFuncs scan_funcs = { snapshot_names_cb, scan_problem_cb };

static int
compare_snapshot_paths (gconstpointer a,
                        gconstpointer b)
{
  return strcmp (_fl_snapshot_get_key (*(FlSnapshot **) a),
                 _fl_snapshot_get_key (*(FlSnapshot **) b));
}

/* A root read whole (etcd's prefix): one read of the backend gives every lock under it. */
void
_fl_model_scan_whole (FlModelScanJob *job)
{
  g_autoptr(GPtrArray) snaps = job->root->backend->scan (job->root->path, TRUE, job->options,
                                                         job->cancellable, NULL, &job->error);

  if (snaps == NULL)
    return;
  for (guint i = 0; i < snaps->len; i++)
    g_ptr_array_add (job->snapshots, reuse_previous (job, g_object_ref (snaps->pdata[i])));
}

/* A directory followed file by file: the walk, the first scan's rows handed over as it goes. */
void
_fl_model_scan_walk (FlModelScanJob *job)
{
  FlDir *dir;
  int err = _fl_platform_dir_open (job->root->path, FALSE, &dir);

  if (err != 0)
    {
      job->open_errno = err;
      _fl_model_root_set_error (&job->error, job->root->path, err);
      return;
    }
  if (!_fl_walk (dir, job->root->path, job->root->recursive, &scan_funcs, job, job->cancellable,
                 NULL))
    g_debug ("Scan of %s stopped", job->root->path);  /* cancelled: the result is dropped */
  _fl_platform_dir_close (dir);
}

/* Runs in any thread. */
static void
run_scan (FlModelScanJob *job)
{
  gint64 start = g_get_monotonic_time ();

  job->root->follower->scan (job);
  g_ptr_array_sort (job->snapshots, compare_snapshot_paths);
  job->duration_us = g_get_monotonic_time () - start;
}

/* Merging, on the main context */

static gboolean
is_touched (FlModelScanner *scanner,
            const char     *path)
{
  return scanner->touched != NULL && g_hash_table_contains (scanner->touched, path);
}

/* An entry that the merge may change: under the root, and neither read again since the scan
 * began nor (when the root goes) covered by another root. */
static gboolean
keep_entry (const char *path,
            gpointer    user_data)
{
  MergeCall *call = user_data;

  if (!_fl_model_root_covers (call->root, path))
    return FALSE;
  if (call->mode == FL_MODEL_SCAN_REMOVE)
    return _fl_model_roots_covering (call->scanner->roots, call->root, path) == NULL;
  return !is_touched (call->scanner, path);
}

/* A handed-over chunk only adds: every entry stays as it is. */
static gboolean
never_cb (const char *path,
          gpointer    user_data)
{
  return FALSE;
}

static gboolean
take_new (const char *path,
          gpointer    user_data)
{
  MergeCall *call = user_data;

  return !is_touched (call->scanner, path);
}

static void
merge (FlModelScanner  *scanner,
       FlModelRoot     *root,
       GPtrArray       *snaps,
       FlModelScanMode  mode)
{
  MergeCall call = { scanner, root, mode };

  /* A first scan and a removal are no news: no entry-changed. */
  if (mode != FL_MODEL_SCAN_RESCAN)
    scanner->store->quiet++;
  _fl_model_store_merge (scanner->store, root->prefix, snaps, keep_entry, take_new, &call);
  if (mode != FL_MODEL_SCAN_RESCAN)
    scanner->store->quiet--;
  _fl_directory_model_merged (scanner->model);
}

void
_fl_model_scanner_forget (FlModelScanner *scanner,
                          FlModelRoot    *root)
{
  merge (scanner, root, NULL, FL_MODEL_SCAN_REMOVE);
}

static gboolean
finish_job (FlModelScanner  *scanner,
            FlModelScanJob  *job,
            GError         **error)
{
  FlModelRoot *root = job->root;

  if (root->removed || job->serial <= root->applied)
    return TRUE;  /* a newer scan was applied meanwhile, or nobody wants this one */
  root->applied = job->serial;

  if (job->error != NULL)
    {
      if (job->mode == FL_MODEL_SCAN_INITIAL)
        {
          g_propagate_error (error, g_steal_pointer (&job->error));
          _fl_directory_model_initial_scan_failed (scanner->model, root);
          return FALSE;
        }
      /* The directory went away or became unreadable: so did its entries. Said, and a
       * missing one is looked for (FlDirectoryModel:problems); its monitor watched the inode
       * that is gone, so the one that comes back gets a new one. */
      g_debug ("%s", job->error->message);
      root->missing = job->open_errno == ENOENT;
      g_free (root->unread);
      root->unread = root->missing
                     ? g_strdup_printf (_("“%s” is gone: watching for it to come back"),
                                        root->path)
                     : g_strdup (job->error->message);
      g_ptr_array_set_size (root->problems, 0);
      if (root->missing)
        g_hash_table_remove (root->monitors, root->path);
      merge (scanner, root, NULL, FL_MODEL_SCAN_RESCAN);
      _fl_directory_model_problems_changed (scanner->model);
      return TRUE;
    }

  root->missing = FALSE;
  g_clear_pointer (&root->unread, g_free);
  g_ptr_array_unref (root->problems);
  root->problems = g_steal_pointer (&job->problems);
  _fl_directory_model_problems_changed (scanner->model);
  merge (scanner, root, job->snapshots, job->mode);
  _fl_directory_model_root_scanned (scanner->model, root, job->dirs);
  scanner->interval_ms = CLAMP (job->duration_us / 1000 * 30, RESCAN_MIN_MS, RESCAN_MAX_MS);
  return TRUE;
}

gboolean
_fl_model_scanner_run (FlModelScanner   *scanner,
                       FlModelRoot      *root,
                       FlModelScanMode   mode,
                       GError          **error)
{
  FlModelScanJob *job = scan_job_new (scanner, root, mode);
  gboolean ok;

  run_scan (job);
  ok = finish_job (scanner, job, error);
  scan_job_free (job);
  return ok;
}

static void
scan_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  _fl_tsan_acquire (task_data);
  run_scan (task_data);
  _fl_tsan_release (task_data);
  g_task_return_boolean (task, TRUE);
}

/* The scan's GTask has no source object: the worker thread drops its reference to the task
 * last, and that must not be the model's last reference (dispose belongs to the main thread).
 * The model is held by a weak reference; the scanner is part of it. */
typedef struct
{
  GWeakRef        model;
  FlModelScanner *scanner;
  GTask          *outer;
} ScanCall;

static void
scan_done_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ScanCall *call = user_data;
  g_autoptr(GObject) model = g_weak_ref_get (&call->model);
  FlModelScanner *scanner = call->scanner;
  g_autoptr(GTask) outer = g_steal_pointer (&call->outer);
  g_autoptr(GError) error = NULL;
  FlModelScanJob *job = g_task_get_task_data (G_TASK (result));
  gboolean ok = TRUE;

  _fl_tsan_acquire (job);
  g_weak_ref_clear (&call->model);
  g_free (call);
  if (model == NULL)
    {
      _fl_tsan_release (job);
      return;
    }

  scanner->n_in_flight--;
  if (!g_cancellable_is_cancelled (scanner->cancellable))
    ok = finish_job (scanner, job, &error);
  if (scanner->n_in_flight == 0)
    g_clear_pointer (&scanner->touched, g_hash_table_unref);

  if (job->mode == FL_MODEL_SCAN_INITIAL && --scanner->n_initial_in_flight == 0)
    _fl_directory_model_loading_changed (scanner->model);

  if (scanner->n_in_flight == 0)
    {
      _fl_model_scanner_schedule (scanner, scanner->rescan_again ? 0 : scanner->interval_ms);
      scanner->rescan_again = FALSE;
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
_fl_model_scanner_start (FlModelScanner  *scanner,
                         FlModelRoot     *root,
                         FlModelScanMode  mode,
                         GTask           *outer)
{
  g_autoptr(GTask) task = NULL;
  ScanCall *call = g_new0 (ScanCall, 1);
  FlModelScanJob *job;

  if (scanner->touched == NULL)
    scanner->touched = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  scanner->n_in_flight++;
  if (mode == FL_MODEL_SCAN_INITIAL && scanner->n_initial_in_flight++ == 0)
    _fl_directory_model_loading_changed (scanner->model);

  g_weak_ref_init (&call->model, scanner->model);
  call->scanner = scanner;
  call->outer = outer != NULL ? g_object_ref (outer) : NULL;
  task = g_task_new (NULL, scanner->cancellable, scan_done_cb, call);
  g_task_set_source_tag (task, _fl_model_scanner_start);
  job = scan_job_new (scanner, root, mode);
  /* Used by a follower whose scan has rows before it ends (the walk's hand-over). */
  if (mode == FL_MODEL_SCAN_INITIAL)
    {
      job->context = g_main_context_ref_thread_default ();
      g_weak_ref_set (&job->model, scanner->model);
    }
  g_task_set_task_data (task, job, scan_job_free);
  _fl_tsan_release (job);
  g_task_run_in_thread (task, scan_thread);
}

static gboolean
rescan_cb (gpointer user_data)
{
  FlModelScanner *scanner = user_data;

  scanner->rescan_id = 0;
  if (scanner->n_in_flight > 0)
    {
      /* The scans in flight may have read the directory before what asked for this one. */
      scanner->rescan_again = TRUE;
      return G_SOURCE_REMOVE;
    }

  for (guint i = 0; i < scanner->roots->len; i++)
    _fl_model_scanner_start (scanner, scanner->roots->pdata[i], FL_MODEL_SCAN_RESCAN, NULL);
  return G_SOURCE_REMOVE;
}

void
_fl_model_scanner_schedule (FlModelScanner *scanner,
                            gint64          delay_ms)
{
  if (!scanner->periodic || scanner->roots->len == 0)
    return;
  /* A repair asked for soon replaces the periodic one; never the other way round. */
  if (scanner->rescan_id != 0 && delay_ms >= RESCAN_MIN_MS)
    return;
  g_clear_handle_id (&scanner->rescan_id, g_source_remove);
  scanner->rescan_id = g_timeout_add ((guint) delay_ms, rescan_cb, scanner);
}

void
_fl_model_scanner_touch (FlModelScanner *scanner,
                         const char     *path)
{
  if (scanner->touched != NULL)
    g_hash_table_add (scanner->touched, g_strdup (path));
}

gboolean
_fl_model_scanner_is_loading (FlModelScanner *scanner)
{
  return scanner->n_initial_in_flight > 0;
}
