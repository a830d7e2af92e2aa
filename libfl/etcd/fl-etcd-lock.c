/* fl-etcd-lock.c: the etcd backend of FlLock (docs/etcd.md): lease, lock, verify, release
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <libsoup/soup.h>

#include <glib/gi18n-lib.h>

#include "fl-error.h"
#include "etcd/fl-etcd-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "fl-options-private.h"
#include "platform/fl-platform.h"

/* Calls after the wait (verify, release, revoke) give up after this long, and never after the
 * acquire's own deadline (call_deadline()). */
#define FL_ETCD_CALL_US (10 * G_USEC_PER_SEC)
/* fl_lock_try_acquire() on etcd gives up after this long: a try that waits is not one. */
#define FL_ETCD_TRY_US (3 * G_USEC_PER_SEC)
/* A waiter's watch that has said nothing for this long is ended and the queue read again,
 * through a member with a leader (issue 30): a member cut from its peers, or paused, may hold
 * a watch open and silent while the key ahead is deleted through the others. */
#define WATCH_SILENCE_US (5 * G_USEC_PER_SEC)
/* How long to wait before asking again while etcd elects a leader (about 1.5 s). */
#define LEADERLESS_PAUSE_MS 100

typedef struct
{
  char         *target;
  FlEtcdTarget  t;
  FlEtcdClient *client;   /* the lock calls' session, no HTTP timeout */
  FlEtcdKeeper *keeper;   /* NULL once released */
  gint64        lease;
  char         *key;      /* t.name/<lease hex> */
  guint64       token;    /* the key's create_revision */
  int           owner;    /* a forked child inherits the object, not the lock */
  gint64        deadline; /* the acquire's, monotonic; -1: none */
} FlEtcdLock;

/* One call's deadline: FL_ETCD_CALL_US from now, and never past the acquire's (issue 30: a
 * verify after a grant, or a revoke, overran a 3 s timeout by 7 s). */
static gint64
call_deadline (FlEtcdLock *self)
{
  gint64 deadline = g_get_monotonic_time () + FL_ETCD_CALL_US;

  return self->deadline >= 0 ? MIN (deadline, self->deadline) : deadline;
}


static void
revoke_lease (FlEtcdClient *client,
              gint64        lease,
              gint64        deadline)
{
  g_autofree char *body = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", lease);
  JsonObject *res = _fl_etcd_client_call (client, "/v3/lease/revoke", body, deadline, NULL,
                                          NULL);

  g_clear_pointer (&res, json_object_unref);
}

/* Pitfall 1: etcd 3.4 can grant the lock to a waiter whose lease is gone. A grant counts only
 * if the key exists with our lease; its create_revision is the fencing token. */
static gboolean
verify (FlEtcdLock *self,
        GError    **error)
{
  g_autofree char *key64 = _fl_etcd_b64 (self->key);
  g_autofree char *body = g_strdup_printf (
    "{\"compare\":[{\"target\":\"LEASE\",\"key\":\"%s\",\"result\":\"EQUAL\","
    "\"lease\":\"%" G_GINT64_FORMAT "\"}],"
    "\"success\":[{\"request_range\":{\"key\":\"%s\"}}]}", key64, self->lease, key64);
  g_autoptr(JsonObject) res = _fl_etcd_client_call (self->client, "/v3/kv/txn", body,
                                                    call_deadline (self), NULL, error);
  JsonNode *responses;
  JsonObject *range = NULL;

  if (res == NULL)
    return FALSE;
  if (!_fl_etcd_json_bool (res, "succeeded"))
    return TRUE;  /* token stays 0: not granted */
  responses = json_object_get_member (res, "responses");
  if (responses != NULL && JSON_NODE_HOLDS_ARRAY (responses) &&
      json_array_get_length (json_node_get_array (responses)) > 0)
    range = _fl_etcd_json_object (json_array_get_object_element (json_node_get_array (responses),
                                                                 0), "response_range");
  self->token = (guint64) _fl_etcd_json_int (_fl_etcd_json_first_kv (range), "create_revision");
  return TRUE;
}

/* try_acquire: etcd's lock service has no "try"; do what it does (put our key, the oldest key
 * by create_revision holds) in one transaction, and leave at once if it is not ours. */
static gboolean
try_lock (FlEtcdLock *self,
          gboolean   *busy,
          GError    **error)
{
  g_autofree char *key64 = _fl_etcd_b64 (self->key);
  g_autofree char *queue = _fl_etcd_dir_range_json (self->t.name);
  g_autofree char *body = g_strdup_printf (
    "{\"success\":[{\"request_put\":{\"key\":\"%s\",\"lease\":\"%" G_GINT64_FORMAT "\"}},"
    "{\"request_range\":{%s,\"sort_target\":\"CREATE\","
    "\"sort_order\":\"ASCEND\",\"limit\":\"1\",\"keys_only\":true}}]}",
    key64, self->lease, queue);
  g_autoptr(JsonObject) res = _fl_etcd_client_call (self->client, "/v3/kv/txn", body,
                                                    call_deadline (self), NULL, error);
  JsonNode *responses;
  JsonObject *oldest = NULL;
  g_autofree char *oldest_key = NULL;

  if (res == NULL)
    return FALSE;
  responses = json_object_get_member (res, "responses");
  if (responses != NULL && JSON_NODE_HOLDS_ARRAY (responses) &&
      json_array_get_length (json_node_get_array (responses)) > 1)
    oldest = _fl_etcd_json_first_kv (
      _fl_etcd_json_object (json_array_get_object_element (json_node_get_array (responses), 1),
                            "response_range"));
  if (oldest != NULL && json_object_has_member (oldest, "key"))
    oldest_key = _fl_etcd_unb64 (json_object_get_string_member (oldest, "key"));
  *busy = g_strcmp0 (oldest_key, self->key) != 0;
  if (*busy)
    g_set_error (error, FL_ERROR, FL_ERROR_BUSY,
                 _("“%s” is locked in etcd at %s: held by the key “%s” since revision %lld"),
                 self->t.name, _fl_etcd_client_endpoint (self->client),
                 oldest_key != NULL ? oldest_key : "?",
                 (long long) _fl_etcd_json_int (oldest, "create_revision"));
  return !*busy;
}

/* The wait runs etcd's mutex recipe here instead of calling /v3/lock/lock, which keys and
 * orders the queue the same way (so both kinds of waiter exclude each other) but watches the
 * key ahead from the revision it has already read: etcd serves such a watch from a loop that
 * runs every 100 ms, and a waiter that had just queued got the lock up to 100 ms after the
 * release (docs/performance.md, "etcd"). Watching from that revision + 1, a future one, puts
 * the watch on etcd's live path at once. */

/* Our key on our lease; its create_revision orders us in the queue. A second put (after a
 * retry) keeps the create_revision. */
static gint64
queue_key (FlEtcdLock   *self,
           gint64        deadline,
           GCancellable *cancellable,
           GError      **error)
{
  g_autofree char *key64 = _fl_etcd_b64 (self->key);
  g_autofree char *body = g_strdup_printf (
    "{\"success\":[{\"request_put\":{\"key\":\"%s\",\"lease\":\"%" G_GINT64_FORMAT "\"}},"
    "{\"request_range\":{\"key\":\"%s\"}}]}", key64, self->lease, key64);
  g_autoptr(JsonObject) res = _fl_etcd_client_call (self->client, "/v3/kv/txn", body, deadline,
                                                    cancellable, error);
  JsonNode *responses = res != NULL ? json_object_get_member (res, "responses") : NULL;
  gint64 rev = 0;

  if (responses != NULL && JSON_NODE_HOLDS_ARRAY (responses) &&
      json_array_get_length (json_node_get_array (responses)) > 1)
    rev = _fl_etcd_json_int (_fl_etcd_json_first_kv (_fl_etcd_json_object (
      json_array_get_object_element (json_node_get_array (responses), 1), "response_range")),
      "create_revision");
  if (res != NULL && rev <= 0)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("etcd at %s did not keep the queue key “%s” of the lock “%s”: was its lease "
                   "revoked?"), _fl_etcd_client_endpoint (self->client), self->key, self->t.name);
  return rev > 0 ? rev : 0;
}

/* The newest key queued before ours, or NULL when we are the oldest: we hold the lock.
 * *revision is the store's revision that the answer reflects. */
static char *
key_ahead (FlEtcdLock   *self,
           gint64        my_rev,
           gint64       *revision,
           gint64        deadline,
           GCancellable *cancellable,
           GError      **error)
{
  g_autofree char *queue = _fl_etcd_dir_range_json (self->t.name);
  g_autofree char *body = g_strdup_printf (
    "{%s,\"max_create_revision\":\"%" G_GINT64_FORMAT "\","
    "\"sort_target\":\"CREATE\",\"sort_order\":\"DESCEND\",\"limit\":\"1\",\"keys_only\":true}",
    queue, my_rev - 1);
  g_autoptr(JsonObject) res = _fl_etcd_client_call (self->client, "/v3/kv/range", body, deadline,
                                                    cancellable, error);
  JsonObject *kv = _fl_etcd_json_first_kv (res);

  *revision = _fl_etcd_json_int (_fl_etcd_json_object (res, "header"), "revision");
  if (res == NULL || kv == NULL || !json_object_has_member (kv, "key"))
    return NULL;
  return _fl_etcd_unb64 (json_object_get_string_member (kv, "key"));
}

/* A back-off for an answer that may come again at once, that @cancellable ends early. */
static void
pause_ms (GCancellable *cancellable,
          guint         ms)
{
  GPollFD pfd;

  if (cancellable != NULL && g_cancellable_make_pollfd (cancellable, &pfd))
    {
      g_poll (&pfd, 1, (int) ms);
      g_cancellable_release_fd (cancellable);
    }
  else
    g_usleep ((gulong) ms * 1000);
}

/* Whether one line of a /v3/watch stream ends the watch: a delete of the key, or etcd ending
 * the watch (cancelled, compacted), after which the queue is looked at again. Also when the
 * store moved past @from_rev before the watch was made (the release came between our range
 * and the watch): such a watch is served by the 100 ms loop again, and a new look at the
 * queue is quicker, @recheck times at most. */
static gboolean
watch_line_ends (const char *line,
                 gsize       length,
                 gint64      from_rev,
                 guint      *recheck)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static (line, length);
  g_autoptr(JsonObject) message = _fl_etcd_json_parse (bytes);
  JsonObject *result = _fl_etcd_json_object (message, "result");
  JsonNode *events = result != NULL ? json_object_get_member (result, "events") : NULL;

  if (message == NULL || _fl_etcd_json_object (message, "error") != NULL ||
      _fl_etcd_json_bool (result, "canceled") || _fl_etcd_json_int (result, "compact_revision"))
    return TRUE;
  if (_fl_etcd_json_bool (result, "created") && *recheck > 0 &&
      _fl_etcd_json_int (_fl_etcd_json_object (result, "header"), "revision") >= from_rev)
    {
      (*recheck)--;
      return TRUE;
    }
  for (guint i = 0; events != NULL && JSON_NODE_HOLDS_ARRAY (events) &&
                    i < json_array_get_length (json_node_get_array (events)); i++)
    {
      JsonObject *event = json_array_get_object_element (json_node_get_array (events), i);

      if (event != NULL && g_strcmp0 (json_object_get_string_member_with_default (
                                        event, "type", ""), "DELETE") == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
silence_cb (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

/* Blocks until @key is deleted at or after @from_rev, or the stream ends (a member gone, or
 * without a leader, or silent for WATCH_SILENCE_US: the caller looks at the queue again,
 * through a member with a leader). FALSE when cancelled, past the deadline, or refused. */
static gboolean
watch_delete (FlEtcdClient *client,
              const char   *key,
              gint64        from_rev,
              guint        *recheck,
              GCancellable *op,
              GError      **error)
{
  const char *endpoint = _fl_etcd_client_endpoint (client);
  g_autofree char *key64 = _fl_etcd_b64 (key);
  g_autofree char *body = g_strdup_printf ("{\"create_request\":{\"key\":\"%s\","
                                           "\"start_revision\":\"%" G_GINT64_FORMAT "\"}}",
                                           key64, from_rev);
  /* Closing a response that never ends would read it to its end: the close is cancelled
   * first, through a cancellable of this watch only. */
  g_autoptr(GCancellable) watch = g_cancellable_new ();
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) local_error = NULL;
  /* On the etcd thread, as the deadlines are; moved on by every line that comes. */
  GSource *silence = g_timeout_source_new ((guint) (WATCH_SILENCE_US / 1000));
  gulong handler;
  guint status;
  gboolean ok = TRUE;

  g_source_set_callback (silence, silence_cb, g_object_ref (watch), g_object_unref);
  g_source_attach (silence, _fl_etcd_context ());
  handler = g_cancellable_connect (op, G_CALLBACK (_fl_etcd_cancel_cb), watch, NULL);
  stream = _fl_etcd_client_open_stream (client, "/v3/watch", body, watch, &status,
                                        &local_error);
  if (stream != NULL && status == SOUP_STATUS_OK)
    {
      lines = g_data_input_stream_new (stream);
      for (;;)
        {
          gsize length = 0;
          g_autofree char *line = g_data_input_stream_read_line (lines, &length, watch,
                                                                 &local_error);

          if (line == NULL || watch_line_ends (line, length, from_rev, recheck))
            break;
          g_source_set_ready_time (silence, g_get_monotonic_time () + WATCH_SILENCE_US);
        }
    }

  if (g_cancellable_set_error_if_cancelled (op, error))
    ok = FALSE;
  else if (stream != NULL && status != SOUP_STATUS_OK)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                   _("etcd at %s answered /v3/watch with HTTP %u"), endpoint, status);
      ok = FALSE;
    }
  else if (stream == NULL && local_error != NULL && local_error->domain == FL_ERROR)
    {
      /* TLS or authentication refused it: waiting on would only repeat that */
      g_propagate_error (error, g_steal_pointer (&local_error));
      ok = FALSE;
    }
  else if (local_error != NULL)
    g_debug ("the watch of “%s” at %s ended: %s", key, endpoint, local_error->message);
  g_source_destroy (silence);
  g_source_unref (silence);
  g_cancellable_cancel (watch);
  if (lines != NULL)
    g_input_stream_close (G_INPUT_STREAM (lines), watch, NULL);
  if (stream != NULL)
    g_input_stream_close (stream, watch, NULL);
  g_cancellable_disconnect (op, handler);
  return ok;
}

/* One step of the wait: TRUE with *done once we are the oldest key. */
static gboolean
wait_step (FlEtcdLock   *self,
           gint64       *my_rev,
           guint        *recheck,
           gboolean     *done,
           gint64        deadline,
           GCancellable *cancellable,
           GCancellable *op,
           GError      **error)
{
  g_autofree char *ahead = NULL;
  gint64 revision = 0;
  GError *local_error = NULL;

  if (*my_rev == 0 && (*my_rev = queue_key (self, deadline, cancellable, error)) == 0)
    return FALSE;
  ahead = key_ahead (self, *my_rev, &revision, deadline, cancellable, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  *done = ahead == NULL;
  if (*done)
    return TRUE;
  if (watch_delete (self->client, ahead, revision + 1, recheck, op, error))
    return TRUE;
  if (g_cancellable_is_cancelled (cancellable))
    return FALSE;
  g_clear_error (error);
  g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
               _("Timed out (ELOCKTIMEOUT) in /v3/watch on etcd at %s"),
               _fl_etcd_client_endpoint (self->client));
  return FALSE;
}

static gboolean
wait_lock (FlEtcdLock   *self,
           gint64        deadline,
           GCancellable *cancellable,
           GError      **error)
{
  /* The watch streams for as long as we wait, on the client's session (no HTTP timeout):
   * the deadline and the caller's cancellable end it through @op. */
  FlEtcdOp op;
  gint64 my_rev = 0;
  guint recheck = 3;
  gboolean done = FALSE;
  gboolean ok = TRUE;

  _fl_etcd_op_begin (&op, cancellable, deadline);
  _fl_etcd_keeper_cancel_on_loss (self->keeper, op.op);

  while (ok && !done)
    {
      g_autoptr(GError) local_error = NULL;

      /* A lost lease ends the wait, and our key with it: etcd_acquire() queues again with a
       * new lease, while the deadline allows (issue 30). */
      if (!_fl_etcd_keeper_is_valid (self->keeper))
        break;

      if (wait_step (self, &my_rev, &recheck, &done, deadline, cancellable, op.op,
                     &local_error))
        continue;
      /* The loss cancelled the watch: not a timeout, a reason to queue again. */
      if (!_fl_etcd_keeper_is_valid (self->keeper) && !g_cancellable_is_cancelled (cancellable) &&
          (deadline < 0 || g_get_monotonic_time () < deadline))
        break;
      /* While a new leader is elected the members answer "request timed out": wait on,
       * while our lease lives (it ends the retries when etcd stays without a leader) and the
       * deadline allows. */
      if (!_fl_etcd_error_is_leaderless (local_error) ||
          !_fl_etcd_keeper_is_valid (self->keeper) ||
          g_cancellable_is_cancelled (op.op))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          ok = FALSE;
        }
      else
        {
          g_debug ("waiting again for “%s”: %s", self->t.name, local_error->message);
          pause_ms (op.op, LEADERLESS_PAUSE_MS);
        }
    }

  _fl_etcd_keeper_cancel_on_loss (self->keeper, NULL);
  _fl_etcd_op_end (&op);
  return ok;
}

/* A lease for one acquisition. While the members elect a leader (after the leader died) they
 * answer "request timed out" or "no leader": an acquire that starts then waits for the new
 * leader, within its deadline, as one already waiting does. */
static JsonObject *
grant_lease (FlEtcdLock   *self,
             const char   *body,
             gint64        deadline,
             GCancellable *cancellable,
             GError      **error)
{
  for (;;)
    {
      g_autoptr(GError) local_error = NULL;
      JsonObject *granted = _fl_etcd_client_call (self->client, "/v3/lease/grant", body,
                                                  deadline, cancellable, &local_error);

      if (granted != NULL)
        return granted;
      if (!_fl_etcd_error_is_leaderless (local_error) ||
          (deadline >= 0 && g_get_monotonic_time () + LEADERLESS_PAUSE_MS * 1000 >= deadline) ||
          g_cancellable_is_cancelled (cancellable))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      g_debug ("no lease yet for “%s”: %s", self->t.name, local_error->message);
      pause_ms (cancellable, LEADERLESS_PAUSE_MS);
    }
}

/* Whether @error is one an election gives ("request timed out", "no leader", "leader
 * changed", or "requested lease not found" for a lease that did not survive it) and there is
 * time to start again (issue 30, item 7). */
static gboolean
election_passes (const GError *error,
                 gint64        deadline,
                 GCancellable *cancellable)
{
  gboolean transient = _fl_etcd_error_is_leaderless (error) ||
                       (g_error_matches (error, FL_ERROR, FL_ERROR_FAILED) &&
                        strstr (error->message, "requested lease not found") != NULL);

  return transient && !g_cancellable_is_cancelled (cancellable) &&
         (deadline < 0 || g_get_monotonic_time () + LEADERLESS_PAUSE_MS * 1000 < deadline);
}

static void
etcd_lock_free (gpointer state);

static int
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* One cluster's endpoints in any order, and the lock's name in it. */
static char *
etcd_dup_held_key (const char *target)
{
  g_auto(FlEtcdTarget) t = { 0 };
  g_autoptr(GPtrArray) endpoints = g_ptr_array_new ();
  g_autofree char *joined = NULL;

  if (!_fl_etcd_target_parse (&t, target, NULL))
    return NULL;
  for (char **e = t.endpoints; *e != NULL; e++)
    g_ptr_array_add (endpoints, *e);
  g_ptr_array_sort (endpoints, compare_strings);
  g_ptr_array_add (endpoints, NULL);
  joined = g_strjoinv (",", (char **) endpoints->pdata);
  return g_strconcat (joined, "/", t.name, NULL);
}

/* The delete of our key, guarded on our token: a request body. */
static char *
guarded_delete_body (FlEtcdLock *self)
{
  g_autofree char *key64 = _fl_etcd_b64 (self->key);

  return g_strdup_printf (
    "{\"compare\":[{\"target\":\"CREATE\",\"key\":\"%s\",\"result\":\"EQUAL\","
    "\"create_revision\":\"%" G_GUINT64_FORMAT "\"}],"
    "\"success\":[{\"request_delete_range\":{\"key\":\"%s\"}}]}", key64, self->token, key64);
}

typedef struct
{
  FlEtcdClient *client;
  char         *body;
  gint64        lease;
} Cleanup;

static gpointer
cleanup_thread (gpointer data)
{
  Cleanup *c = data;
  JsonObject *res = NULL;

  if (c->body != NULL)
    res = _fl_etcd_client_call (c->client, "/v3/kv/txn", c->body,
                                g_get_monotonic_time () + FL_ETCD_CALL_US, NULL, NULL);
  g_clear_pointer (&res, json_object_unref);
  revoke_lease (c->client, c->lease, g_get_monotonic_time () + FL_ETCD_CALL_US);
  _fl_etcd_client_free (c->client);
  g_free (c->body);
  g_free (c);
  return NULL;
}

/* The guarded delete and the revoke, on a thread of their own: the caller does not wait for
 * them, and the next holder need not wait for the lease to expire once etcd answers again.
 * A process that exits first leaves that to the lease. Takes the lock's client. */
static void
clean_up_behind (FlEtcdLock *self,
                 gboolean    delete_key)
{
  Cleanup *c = g_new0 (Cleanup, 1);
  g_autoptr(GError) thread_error = NULL;
  GThread *thread;

  c->client = g_steal_pointer (&self->client);
  c->body = delete_key ? guarded_delete_body (self) : NULL;
  c->lease = self->lease;
  thread = g_thread_try_new ("fl-etcd-cleanup", cleanup_thread, c, &thread_error);
  if (thread != NULL)
    g_thread_unref (thread);
  else
    cleanup_thread (c);  /* no thread to spare: clean up here, as before */
}

static gpointer
etcd_acquire (const char          *target,
              const FlLockOptions *options,
              gboolean             wait,
              GCancellable        *cancellable,
              GError             **error)
{
  FlEtcdLock *self = g_new0 (FlEtcdLock, 1);
  gint64 start = g_get_monotonic_time ();
  gint64 deadline;
  guint ttl_s;

  options = _fl_lock_options_or_default (options);
  ttl_s = MAX (options->lease_ttl_s, 2);
  if (!wait || options->timeout_ms == 0)
    {
      wait = FALSE;
      deadline = start + FL_ETCD_TRY_US;
    }
  else
    deadline = _fl_lock_options_deadline_us (options, start);

  self->deadline = deadline;
  self->target = g_strdup (target);
  if (!_fl_etcd_target_parse (&self->t, target, error) ||
      !_fl_etcd_name_check (&self->t, target, error))
    goto fail;
  self->client = _fl_etcd_client_new_for_options (self->t.endpoints, options);

  for (;;)
    {
      g_autofree char *body = g_strdup_printf ("{\"TTL\":%u}", ttl_s);
      g_autoptr(JsonObject) granted = NULL;
      g_autoptr(GError) local_error = NULL;
      gint64 sent = _fl_platform_boottime_now ();  /* the lease's clock (fl-etcd-keepalive.c) */
      gboolean busy = FALSE;
      gboolean ok;

      /* One lease per acquisition (pitfall 5): a lease already in the queue is a no-op. */
      granted = grant_lease (self, body, deadline, cancellable, error);
      if (granted == NULL)
        goto fail;
      self->lease = _fl_etcd_json_int (granted, "ID");
      g_clear_pointer (&self->key, g_free);
      self->key = g_strdup_printf ("%s/%" G_GINT64_MODIFIER "x", self->t.name, self->lease);
      self->keeper = _fl_etcd_keeper_start (self->client, self->lease, ttl_s, sent);
      _fl_etcd_meta_put (self->client, self->t.name, self->lease, deadline);

      if (wait)
        ok = wait_lock (self, deadline, cancellable, &local_error);
      else
        ok = try_lock (self, &busy, &local_error);
      self->token = 0;
      if (ok && !verify (self, &local_error))
        ok = FALSE;

      if (ok && self->token > 0 && _fl_etcd_keeper_is_valid (self->keeper))
        {
          self->owner = _fl_platform_self_pid ();
          return self;
        }

      /* Not granted, or granted to a lease that may be gone: start again with a new one. */
      if (ok)
        g_debug ("etcd granted “%s” to lease %" G_GINT64_MODIFIER "x, which is gone or may be: "
                 "waiting again with a new lease", self->t.name, self->lease);
      _fl_etcd_keeper_stop (g_steal_pointer (&self->keeper));
      if (local_error != NULL && election_passes (local_error, deadline, cancellable))
        {
          /* An election (the lease may have gone with it): a new lease, and wait on, while
           * the caller's deadline allows; a caller who waits for ever never sees it. */
          g_debug ("waiting again for “%s” with a new lease: %s", self->t.name,
                   local_error->message);
          revoke_lease (self->client, self->lease, call_deadline (self));
          pause_ms (cancellable, LEADERLESS_PAUSE_MS);
          continue;
        }
      if (local_error != NULL)
        {
          if (g_error_matches (local_error, FL_ERROR, FL_ERROR_TIMEOUT))
            {
              gint64 waited_ms = (g_get_monotonic_time () - start) / 1000;

              g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
                           _("Timed out (ELOCKTIMEOUT) after %lld ms waiting for the etcd lock "
                             "“%s” at %s: another holder keeps it"), (long long) waited_ms,
                           self->t.name, _fl_etcd_client_endpoint (self->client));
            }
          else
            g_propagate_error (error, g_steal_pointer (&local_error));
          goto fail_revoke;
        }
      if (deadline >= 0 && g_get_monotonic_time () >= deadline)
        {
          g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
                       _("Timed out (ELOCKTIMEOUT) waiting for the etcd lock “%s” at %s: each "
                         "grant came to a lease that had expired; are keepalives reaching etcd?"),
                       self->t.name, _fl_etcd_client_endpoint (self->client));
          goto fail_revoke;
        }
      revoke_lease (self->client, self->lease, call_deadline (self));
    }

fail_revoke:
  /* Once the caller's deadline has passed, or it gave up, it is told now and the lease (which
   * would expire anyway) is revoked behind it, so that no call overruns its timeout (issue
   * 30); otherwise (busy, a refusal) before it returns, within that deadline. */
  if (g_cancellable_is_cancelled (cancellable) ||
      (deadline >= 0 && g_get_monotonic_time () >= deadline))
    clean_up_behind (self, FALSE);
  else
    revoke_lease (self->client, self->lease, call_deadline (self));
fail:
  etcd_lock_free (self);
  return NULL;
}

static void
etcd_bind (gpointer state,
           FlLock  *lock)
{
  FlEtcdLock *self = state;

  _fl_etcd_keeper_set_held (self->keeper, lock);
}

/* A lock already lost: the caller is told at once, reachable or not (issue 30). */
static gboolean
release_lost (FlEtcdLock  *self,
              GError     **error)
{
  clean_up_behind (self, TRUE);
  g_set_error (error, FL_ERROR, FL_ERROR_LOST,
               _("The etcd lock “%s” (token %llu) was lost while this process held it: "
                 "its lease was not renewed in time (were keepalives reaching etcd?). "
                 "Whatever it protected may have been changed meanwhile"),
               self->t.name, (unsigned long long) self->token);
  return FALSE;
}

/* Whether our lease is still alive (not expired, not revoked); FALSE when etcd cannot say. */
static gboolean
lease_alive (FlEtcdLock *self)
{
  g_autofree char *body = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", self->lease);
  g_autoptr(JsonObject) res = _fl_etcd_client_call (self->client, "/v3/lease/timetolive", body,
                                                    g_get_monotonic_time () + FL_ETCD_CALL_US,
                                                    NULL, NULL);

  return res != NULL && _fl_etcd_json_int (res, "TTL") > 0;
}

/* A guarded delete whose guard failed on a second coming (its first member carried it out
 * but answered after its attempt bound, and the next member found the key gone): the delete
 * was ours when our lease still lives, since only its expiry or revoke (and our delete)
 * removes the key. Before, such a release reported FL_ERROR_LOST (issue 30). */
static gboolean
deleted_by_first_coming (FlEtcdLock *self)
{
  return _fl_etcd_client_last_call_repeated (self->client) && lease_alive (self);
}

/* A delete guarded on our token, then the lease revoke. */
static gboolean
etcd_release (gpointer  state,
              GError  **error)
{
  FlEtcdLock *self = state;
  g_autofree char *body = NULL;
  g_autoptr(JsonObject) res = NULL;
  g_autoptr(GError) local_error = NULL;

  if (self->keeper == NULL)
    return TRUE;
  /* A forked child has no etcd thread and is not the holder: it leaves the lock alone, as a
   * file lock's child does. */
  if (self->owner != _fl_platform_self_pid ())
    {
      self->keeper = NULL;  /* the parent's; the child must not touch it */
      return TRUE;
    }

  if (!_fl_etcd_keeper_is_valid (self->keeper))
    {
      _fl_etcd_keeper_stop (g_steal_pointer (&self->keeper));
      return release_lost (self, error);
    }
  _fl_etcd_keeper_stop (g_steal_pointer (&self->keeper));

  body = guarded_delete_body (self);
  res = _fl_etcd_client_call (self->client, "/v3/kv/txn", body,
                              g_get_monotonic_time () + FL_ETCD_CALL_US, NULL, &local_error);
  if (res == NULL)
    {
      /* Within FL_ETCD_CALL_US, not twice that: the revoke, and the delete again, go on
       * behind the caller. */
      clean_up_behind (self, TRUE);
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  _("Cannot release the etcd lock “%s”: "), self->t.name);
      return FALSE;
    }
  if (!_fl_etcd_json_bool (res, "succeeded") && deleted_by_first_coming (self))
    {
      g_debug ("etcd lock “%s”: released by the delete's first coming, answered late",
               self->t.name);
      json_object_set_boolean_member (res, "succeeded", TRUE);
    }
  revoke_lease (self->client, self->lease, g_get_monotonic_time () + FL_ETCD_CALL_US);

  if (!_fl_etcd_json_bool (res, "succeeded"))
    {
      g_set_error (error, FL_ERROR, FL_ERROR_LOST,
                   _("The etcd lock “%s” (token %llu) was lost while this process held it: "
                     "its key is gone (the lease expired or was revoked). Whatever it "
                     "protected may have been changed meanwhile"),
                   self->t.name, (unsigned long long) self->token);
      return FALSE;
    }
  return TRUE;
}

static gboolean
etcd_is_held (gpointer state)
{
  FlEtcdLock *self = state;

  return self->keeper != NULL && self->owner == _fl_platform_self_pid () &&
         _fl_etcd_keeper_is_valid (self->keeper);
}

/* The lease's local deadline (docs/etcd.md, "Deadlines"); 0 when no longer held here. */
static gint64
etcd_held_until (gpointer state)
{
  FlEtcdLock *self = state;

  if (self->keeper == NULL || self->owner != _fl_platform_self_pid ())
    return 0;
  return _fl_etcd_keeper_valid_until (self->keeper);
}

static const char *etcd_get_path (gpointer state);

static gboolean
etcd_release_held (gpointer   state,
                   gboolean  *was_held,
                   GError   **error)
{
  *was_held = etcd_is_held (state);
  return etcd_release (state, error);
}

/* An etcd lock is a key in etcd: no descriptor, no inode. */
static int
etcd_dup_fd (gpointer  state,
             GError  **error)
{
  g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
               _("The lock “%s” is an etcd lock: it has no descriptor to hand to a command"),
               etcd_get_path (state));
  return -1;
}

static gboolean
etcd_get_inode (gpointer  state,
                guint64  *dev,
                guint64  *ino)
{
  return FALSE;
}

static guint64
etcd_get_fencing_token (gpointer state)
{
  return ((FlEtcdLock *) state)->token;
}

static const char *
etcd_get_target (gpointer state)
{
  return ((FlEtcdLock *) state)->target;
}

static const char *
etcd_get_path (gpointer state)
{
  return ((FlEtcdLock *) state)->t.name;
}

static void
etcd_lock_free (gpointer state)
{
  FlEtcdLock *self = state;

  if (self->keeper != NULL)
    etcd_release (self, NULL);
  _fl_etcd_client_free (self->client);
  _fl_etcd_target_clear (&self->t);
  g_free (self->key);
  g_free (self->target);
  g_free (self);
}

/* Whether anyone is queued for the name: the oldest key holds it (its lease alive, or etcd
 * would have deleted it). */
static gboolean
etcd_is_locked (const char          *target,
                const FlLockOptions *options,
                GError             **error)
{
  g_auto(FlEtcdTarget) t = { 0 };
  g_autofree char *queue = NULL;
  g_autofree char *body = NULL;
  g_autoptr(JsonObject) res = NULL;
  FlEtcdClient *client;

  if (!_fl_etcd_target_parse (&t, target, error))
    return FALSE;
  queue = _fl_etcd_dir_range_json (t.name);
  body = g_strdup_printf ("{%s,\"count_only\":true}", queue);
  client = _fl_etcd_client_new_for_options (t.endpoints, options);
  res = _fl_etcd_client_call (client, "/v3/kv/range", body,
                              g_get_monotonic_time () + FL_ETCD_CALL_US, NULL, error);
  _fl_etcd_client_free (client);
  return res != NULL && _fl_etcd_json_int (res, "count") > 0;
}

static gpointer
etcd_watch_start (const char          *root,
                  const FlLockOptions *options,
                  void               (*changed) (gpointer data),
                  gpointer             data,
                  GDestroyNotify       destroy,
                  GError             **error)
{
  return _fl_etcd_watch_start (root, options, changed, data, destroy, error);
}

static void
etcd_watch_stop (gpointer watch)
{
  _fl_etcd_watch_stop (watch);
}

/* etcd://HOSTS/PREFIX/ and etcd://HOSTS/PREFIX are one root. */
static char *
etcd_root_path (const char *target)
{
  gsize len = strlen (target);

  return len > 0 && target[len - 1] == '/' ? g_strndup (target, len - 1) : g_strdup (target);
}

/* The first scan of the root is its check: it names an unreachable cluster. */
static gboolean
etcd_root_check (const char          *path,
                 const FlLockOptions *options,
                 GError             **error)
{
  return TRUE;
}

const FlLockBackend _fl_lock_backend_etcd = {
  .name = "etcd",
  .dup_held_key = etcd_dup_held_key,
  .acquire = etcd_acquire,
  .bind = etcd_bind,
  .release = etcd_release,
  .is_held = etcd_is_held,
  .held_until = etcd_held_until,
  .get_fencing_token = etcd_get_fencing_token,
  .get_target = etcd_get_target,
  .get_path = etcd_get_path,
  .free = etcd_lock_free,
  .release_held = etcd_release_held,
  .dup_fd = etcd_dup_fd,
  .get_inode = etcd_get_inode,
  .is_locked = etcd_is_locked,
  .snapshot_new = _fl_etcd_snapshot_new,
  .scan = _fl_etcd_scan,
  .reclaim = _fl_etcd_reclaim,
  .root_path = etcd_root_path,
  .root_check = etcd_root_check,
  .root_follower = _fl_root_follower_whole,  /* a prefix: scanned whole, rescanned on its watch */
  .watch_start = etcd_watch_start,
  .watch_stop = etcd_watch_stop,
};
