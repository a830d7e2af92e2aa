/* fl-etcd-watch.c: an etcd prefix followed live, for the directory model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * docs/etcd.md, "Inspection". One thread per watched prefix keeps a /v3/watch stream open on
 * PREFIX/ .. PREFIX0, which holds both the lock queues and the metadata keys: a key queued or
 * deleted, a lease expiring (etcd deletes its keys) all arrive as events. An event only says
 * "look again": the model reads the whole prefix (one range) before it shows anything, so a
 * lost, duplicated or reordered event cannot make it wrong. Every (re)start of the stream is
 * reported too, since what happened while it was down arrived nowhere.
 *
 * The thread owns its client (a SoupSession is used by one thread only); the model's main
 * context only ever sees the watch through fl_etcd_watch_stop() and the calls it receives.
 */
#include "config.h"

#include <string.h>
#include <libsoup/soup.h>

#include <glib/gi18n-lib.h>

#include "fl-error.h"
#include "etcd/fl-etcd-private.h"

/* After a stream that failed, the next try waits this long, doubling up to the maximum: a
 * member down must not make the thread spin, and one back must be found within seconds. */
#define RETRY_MIN_MS   100
#define RETRY_MAX_MS  5000
#define PROBE_US      (2 * G_USEC_PER_SEC)

struct _FlEtcdWatch
{
  gint               ref;
  GMainContext      *context;
  FlEtcdChangedFunc  changed;
  gpointer           data;
  GDestroyNotify     destroy;
  gboolean           stopped;      /* the caller's context only */

  GCancellable      *cancellable;
  GMutex             mutex;
  GCond              cond;         /* signalled by fl_etcd_watch_stop() */
  char             **endpoints;
  FlLockOptions     *options;
  char              *prefix;       /* PREFIX, without its '/' */
};

static void
watch_unref (FlEtcdWatch *watch)
{
  if (!g_atomic_int_dec_and_test (&watch->ref))
    return;
  /* The last reference may be dropped by the thread: @data is the caller's, freed here only
   * when the caller said which context may free it (it is stopped by then, never called). */
  if (watch->destroy != NULL)
    watch->destroy (watch->data);
  g_main_context_unref (watch->context);
  g_object_unref (watch->cancellable);
  g_mutex_clear (&watch->mutex);
  g_cond_clear (&watch->cond);
  g_strfreev (watch->endpoints);
  fl_lock_options_free (watch->options);
  g_free (watch->prefix);
  g_free (watch);
}

static gboolean
dispatch_cb (gpointer user_data)
{
  FlEtcdWatch *watch = user_data;

  if (!watch->stopped)
    watch->changed (watch->data);
  return G_SOURCE_REMOVE;
}

/* From the thread: the caller's context runs @changed, unless stopped by then. Always through
 * a source: g_main_context_invoke() would call it in this thread when nobody owns that
 * context at that instant. */
static void
report (FlEtcdWatch *watch)
{
  GSource *source = g_idle_source_new ();

  g_atomic_int_inc (&watch->ref);
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, dispatch_cb, watch, (GDestroyNotify) watch_unref);
  g_source_attach (source, watch->context);
  g_source_unref (source);
}

/* Waits @ms, or less if the watch is stopped: TRUE if it was. */
static gboolean
wait_or_stop (FlEtcdWatch *watch,
              gint64       ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;
  gboolean stopped;

  g_mutex_lock (&watch->mutex);
  while (!(stopped = g_cancellable_is_cancelled (watch->cancellable)) &&
         g_cond_wait_until (&watch->cond, &watch->mutex, until))
    ;
  g_mutex_unlock (&watch->mutex);
  return stopped || g_cancellable_is_cancelled (watch->cancellable);
}

/* One stream, read until it ends. TRUE if it was open (etcd answered 200). */
static gboolean
follow (FlEtcdWatch  *watch,
        FlEtcdClient *client,
        const char   *body)
{
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) error = NULL;
  guint status = 0;

  stream = _fl_etcd_client_open_stream (client, "/v3/watch", body, watch->cancellable, &status,
                                        &error);
  if (stream == NULL || status != SOUP_STATUS_OK)
    {
      g_debug ("etcd: cannot watch “%s/” at %s: %s", watch->prefix,
               _fl_etcd_client_endpoint (client),
               error != NULL ? error->message : soup_status_get_phrase (status));
      if (stream != NULL)
        g_input_stream_close (stream, NULL, NULL);
      return FALSE;
    }

  lines = g_data_input_stream_new (stream);
  for (;;)
    {
      gsize length = 0;
      g_autofree char *line = g_data_input_stream_read_line (lines, &length,
                                                             watch->cancellable, &error);

      if (line == NULL)
        break;
      /* The first line confirms the watch ("created"): what changed between the model's
       * read and now is looked at then. Every later line carries events. */
      if (length > 0)
        report (watch);
    }
  if (error != NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("etcd: the watch of “%s/” ended: %s", watch->prefix, error->message);
  return TRUE;
}

static gpointer
watch_thread (gpointer data)
{
  FlEtcdWatch *watch = data;
  FlEtcdClient *client = _fl_etcd_client_new_for_options (watch->endpoints, watch->options);
  g_autofree char *range = _fl_etcd_dir_range_json (watch->prefix);
  g_autofree char *body = g_strdup_printf ("{\"create_request\":{%s}}", range);
  g_autofree char *probe = g_strdup_printf ("{%s,\"count_only\":true}", range);
  gint64 retry_ms = RETRY_MIN_MS;

  while (!g_cancellable_is_cancelled (watch->cancellable))
    {
      g_autoptr(JsonObject) answer = NULL;

      if (follow (watch, client, body))
        retry_ms = RETRY_MIN_MS;
      else
        retry_ms = MIN (retry_ms * 2, RETRY_MAX_MS);
      if (g_cancellable_is_cancelled (watch->cancellable))
        break;
      /* Events may have been missed while it was down. */
      report (watch);
      if (wait_or_stop (watch, retry_ms))
        break;
      /* A unary call moves the client on to a member that answers, where the stream is
       * opened next. */
      answer = _fl_etcd_client_call (client, "/v3/kv/range", probe,
                                     g_get_monotonic_time () + PROBE_US, watch->cancellable,
                                     NULL);
    }

  _fl_etcd_client_free (client);
  watch_unref (watch);
  return NULL;
}

FlEtcdWatch *
_fl_etcd_watch_start (const char          *root,
                      const FlLockOptions *options,
                      FlEtcdChangedFunc    changed,
                      gpointer             data,
                      GDestroyNotify       destroy,
                      GError             **error)
{
  g_auto(FlEtcdTarget) t = { 0 };
  g_autofree char *probe = NULL;
  g_autoptr(GError) local_error = NULL;
  FlEtcdWatch *watch;
  GThread *thread;

  /* etcd://HOSTS/PREFIX, parsed as the lock PREFIX/x would be, as _fl_etcd_scan() does. */
  probe = g_strconcat (root, "/x", NULL);
  if (!_fl_etcd_target_parse (&t, probe, error))
    return NULL;

  watch = g_new0 (FlEtcdWatch, 1);
  watch->ref = 2;  /* the caller's and the thread's */
  watch->context = g_main_context_ref_thread_default ();
  watch->changed = changed;
  watch->data = data;
  watch->destroy = destroy;
  watch->cancellable = g_cancellable_new ();
  g_mutex_init (&watch->mutex);
  g_cond_init (&watch->cond);
  watch->endpoints = g_steal_pointer (&t.endpoints);
  watch->options = options != NULL ? fl_lock_options_copy (options) : fl_lock_options_new ();
  watch->prefix = g_strndup (t.name, strlen (t.name) - 2);  /* without "/x" */

  thread = g_thread_try_new ("fl-etcd-watch", watch_thread, watch, &local_error);
  if (thread == NULL)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED, _("Cannot watch “%s”: %s"), root,
                   local_error->message);
      watch->destroy = NULL;
      watch_unref (watch);
      watch_unref (watch);
      return NULL;
    }
  g_thread_unref (thread);
  return watch;
}

void
_fl_etcd_watch_stop (FlEtcdWatch *watch)
{
  if (watch == NULL)
    return;
  watch->stopped = TRUE;
  g_mutex_lock (&watch->mutex);
  g_cancellable_cancel (watch->cancellable);
  g_cond_broadcast (&watch->cond);
  g_mutex_unlock (&watch->mutex);
  watch_unref (watch);
}
