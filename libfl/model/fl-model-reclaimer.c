/* fl-model-reclaimer.c: many confirmed snapshots reclaimed in a worker thread
 *
 * Each reclaim is fl_snapshot_reclaim() on exactly the snapshot a person confirmed, so it
 * refuses, touching nothing, when the file changed or its holder lives: the thread adds no
 * judgement of its own. It only keeps the main loop free: 500 removals one after another on
 * the main context kept the inspector's window grey for half a minute. The outcome goes to the
 * main context in batches, at most one per BATCH_US or per FL_MODEL_RECLAIM_BATCH snapshots,
 * so a progress bar moves without a flood of sources, and with at most one batch in flight:
 * the worker waits for the main context rather than run ahead of what the model shows.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "model/fl-model-reclaimer-private.h"
#include "support/fl-tsan-private.h"

#define BATCH_US 50000

typedef struct
{
  GPtrArray            *snapshots;
  FlLockOptions        *options;
  GCancellable         *cancellable;
  GMainContext         *context;
  FlModelReclaimReport  report;
  gpointer              user_data;
  GDestroyNotify        destroy;
  /* Batches posted and not yet reported; the worker waits on @reported while one is. */
  gint                  in_flight;
  GMutex                lock;
  GCond                 reported;
} Job;

typedef struct
{
  FlModelReclaimBatch  batch;
  Job                 *job;
} Post;

static void
job_free (Job *job)
{
  if (job->destroy != NULL)
    job->destroy (job->user_data);
  g_ptr_array_unref (job->snapshots);
  fl_lock_options_free (job->options);
  g_clear_object (&job->cancellable);
  g_main_context_unref (job->context);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->reported);
  g_free (job);
}

static Post *
post_new (Job *job)
{
  Post *post = g_new0 (Post, 1);

  post->job = job;
  post->batch.removed = g_ptr_array_new_with_free_func (g_object_unref);
  post->batch.refused = g_ptr_array_new_with_free_func (g_object_unref);
  post->batch.untried = g_ptr_array_new_with_free_func (g_object_unref);
  post->batch.total = job->snapshots->len;
  return post;
}

static void
post_free (gpointer data)
{
  Post *post = data;

  g_ptr_array_unref (post->batch.removed);
  g_ptr_array_unref (post->batch.refused);
  g_ptr_array_unref (post->batch.untried);
  if (post->batch.last)
    job_free (post->job);
  g_free (post);
}

static gboolean
post_cb (gpointer data)
{
  Post *post = data;
  Job *job;

  _fl_tsan_acquire (post);
  job = post->job;
  job->report (&post->batch, job->user_data);
  if (!post->batch.last)
    {
      /* The worker does not touch the job after sending the last post: nobody to wake. */
      g_mutex_lock (&job->lock);
      g_atomic_int_dec_and_test (&job->in_flight);
      g_cond_signal (&job->reported);
      g_mutex_unlock (&job->lock);
    }
  return G_SOURCE_REMOVE;
}

/* Always through a source of the job's context, in the order posted (one priority, attached
 * one after the other); never g_main_context_invoke(), which would run the report here when
 * nobody owns the context at that instant. */
static void
post_send (Post *post)
{
  GSource *source = g_idle_source_new ();
  GMainContext *context = post->job->context;

  if (!post->batch.last)
    g_atomic_int_inc (&post->job->in_flight);
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, post_cb, post, post_free);
  /* The last touch of the post and its job in this thread: once attached, the last post may
   * be dispatched and the job freed at once (GLib's locks are invisible to TSan). */
  _fl_tsan_release (post);
  g_source_attach (source, context);
  g_source_unref (source);
}

/* The one batch in flight reported, so the files removed and not yet shown stay fewer than
 * two batches. */
static void
wait_for_report (Job *job)
{
  g_mutex_lock (&job->lock);
  while (g_atomic_int_get (&job->in_flight) > 0)
    g_cond_wait (&job->reported, &job->lock);
  g_mutex_unlock (&job->lock);
}

/* Whether to send @post now. Full, it is sent once the batch in flight is reported; due by
 * time, only when none is in flight (that one shows the progress), else it fills on. */
static gboolean
batch_due (Job    *job,
           Post   *post,
           gint64  last_post)
{
  if (post->batch.removed->len + post->batch.refused->len >= FL_MODEL_RECLAIM_BATCH)
    {
      wait_for_report (job);
      return TRUE;
    }
  return g_get_monotonic_time () - last_post >= BATCH_US
         && g_atomic_int_get (&job->in_flight) == 0;
}

static gpointer
reclaim_thread (gpointer data)
{
  Job *job = data;
  Post *post = post_new (job);
  gint64 last_post = g_get_monotonic_time ();
  guint i;

  _fl_tsan_acquire (job);
  for (i = 0; i < job->snapshots->len; i++)
    {
      FlSnapshot *snap = job->snapshots->pdata[i];

      if (g_cancellable_is_cancelled (job->cancellable))
        break;
      if (fl_snapshot_reclaim (snap, job->options, NULL))
        g_ptr_array_add (post->batch.removed, g_object_ref (snap));
      else
        g_ptr_array_add (post->batch.refused, g_object_ref (snap));
      post->batch.done = i + 1;

      if (i + 1 < job->snapshots->len && batch_due (job, post, last_post))
        {
          guint done = post->batch.done;

          post_send (post);
          post = post_new (job);
          post->batch.done = done;
          last_post = g_get_monotonic_time ();
        }
    }

  for (; i < job->snapshots->len; i++)
    g_ptr_array_add (post->batch.untried, g_object_ref (job->snapshots->pdata[i]));
  post->batch.last = TRUE;
  post_send (post);
  return NULL;
}

void
_fl_model_reclaimer_start (GPtrArray            *snapshots,
                           const FlLockOptions  *options,
                           GCancellable         *cancellable,
                           GMainContext         *context,
                           FlModelReclaimReport  report,
                           gpointer              user_data,
                           GDestroyNotify        destroy)
{
  Job *job = g_new0 (Job, 1);

  job->snapshots = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < snapshots->len; i++)
    g_ptr_array_add (job->snapshots, g_object_ref (snapshots->pdata[i]));
  job->options = fl_lock_options_copy (options);
  job->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  job->context = g_main_context_ref (context);
  job->report = report;
  job->user_data = user_data;
  job->destroy = destroy;
  g_mutex_init (&job->lock);
  g_cond_init (&job->reported);
  _fl_tsan_release (job);
  g_thread_unref (g_thread_new ("fl-reclaim", reclaim_thread, job));
}
