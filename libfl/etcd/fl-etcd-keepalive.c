/* fl-etcd-keepalive.c: the keepalive of each lease, on the etcd thread (fl-etcd-thread.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The holder decides loss locally (pitfalls 2 and 9): a lease is trusted until the send time
 * of its last successful keepalive + TTL - margin, whatever etcd says later. Those times are
 * on the boot clock (CLOCK_BOOTTIME), which goes on counting while the machine is suspended,
 * as etcd's own clock does; the monotonic clock stops then, and a holder woken from a suspend
 * longer than its lease would go on believing it holds (issue 30). A lease past that point is
 * lost for good: a keepalive that still succeeds afterwards does not bring it back, since
 * another holder may have been granted the lock meanwhile. The clock-rate assumption (the
 * margin) is docs/etcd.md's.
 */
#include "config.h"

#include <string.h>
#include <libsoup/soup.h>

#include "etcd/fl-etcd-private.h"
#include "platform/fl-platform.h"
#include "protocol/fl-lock-backend-private.h"

struct _FlEtcdKeeper
{
  gint          ref;
  GMutex        mutex;       /* guards held, stopped, lost and the report */
  char        **endpoints;
  FlEtcdAuth   *auth;        /* the lock client's: one token for both */
  gboolean      reauth;      /* etcd thread only: an authentication is in flight */
  guint         current;     /* etcd thread only, as are the sources and inflight */
  char         *body;        /* {"ID":"..."} */
  gint64        ttl_us;
  gint64        margin_us;
  gint64        interval_us; /* between keepalives, and how long one may take to answer */
  gint64        valid_until; /* boot clock; written on the etcd thread, under the mutex */
  gboolean      held;
  gboolean      stopped;
  gint          lost;        /* atomic */
  GWeakRef      lock;
  GCancellable *on_loss;     /* under the mutex: _fl_etcd_keeper_cancel_on_loss() */
  GSource      *tick;
  GSource      *deadline;
  GCancellable *inflight;
  GCancellable *straggler;   /* the keepalive before, still let answer: see tick_cb() */
};

static FlEtcdKeeper *
keeper_ref (FlEtcdKeeper *k)
{
  g_atomic_int_inc (&k->ref);
  return k;
}

static void
keeper_unref (gpointer data)
{
  FlEtcdKeeper *k = data;

  if (!g_atomic_int_dec_and_test (&k->ref))
    return;
  g_strfreev (k->endpoints);
  _fl_etcd_auth_unref (k->auth);
  g_free (k->body);
  g_weak_ref_clear (&k->lock);
  g_clear_object (&k->on_loss);
  g_mutex_clear (&k->mutex);
  g_free (k);
}

/* Etcd thread. */
static void
keeper_quiet (FlEtcdKeeper *k)
{
  if (k->tick != NULL)
    {
      g_source_destroy (k->tick);
      g_clear_pointer (&k->tick, g_source_unref);
    }
  if (k->deadline != NULL)
    {
      g_source_destroy (k->deadline);
      g_clear_pointer (&k->deadline, g_source_unref);
    }
  if (k->inflight != NULL)
    g_cancellable_cancel (k->inflight);
  g_clear_object (&k->inflight);
  if (k->straggler != NULL)
    g_cancellable_cancel (k->straggler);
  g_clear_object (&k->straggler);
}

/* Etcd thread: the lease may have expired. Reported once, and only while held. */
static void
keeper_lose (FlEtcdKeeper *k)
{
  FlLock *lock = NULL;
  g_autoptr(GCancellable) on_loss = NULL;

  g_mutex_lock (&k->mutex);
  if (!g_atomic_int_get (&k->lost))
    {
      g_atomic_int_set (&k->lost, 1);
      if (k->held && !k->stopped)
        lock = g_weak_ref_get (&k->lock);
      on_loss = k->on_loss != NULL ? g_object_ref (k->on_loss) : NULL;
    }
  g_mutex_unlock (&k->mutex);
  keeper_quiet (k);
  if (on_loss != NULL)
    g_cancellable_cancel (on_loss);

  if (lock != NULL)
    {
      _fl_lock_report_lost (lock);
      g_object_unref (lock);
    }
}

/* Etcd thread. GLib's main loop waits on the monotonic clock: the deadline is converted from
 * the boot clock each time it is armed. A suspend delays the source (the report), never
 * fl_lock_is_held(), which reads the boot clock itself. */
static void
arm_deadline (FlEtcdKeeper *k)
{
  gint64 left = k->valid_until - _fl_platform_boottime_now ();

  if (k->deadline != NULL)
    g_source_set_ready_time (k->deadline, g_get_monotonic_time () + MAX (left, 0));
}

/* Etcd thread. A ready-time source stays ready once dispatched: rearm it. */
static gboolean
deadline_cb (gpointer data)
{
  FlEtcdKeeper *k = data;

  if (_fl_platform_boottime_now () >= k->valid_until)
    keeper_lose (k);
  else
    arm_deadline (k);
  return G_SOURCE_CONTINUE;
}

typedef struct
{
  FlEtcdKeeper *keeper;
  GCancellable *cancellable;
  SoupMessage  *msg;
  gint64        sent_us;
} Renewal;

static void
schedule_tick (FlEtcdKeeper *k,
               gint64        in_us)
{
  if (k->tick != NULL)
    g_source_set_ready_time (k->tick, g_get_monotonic_time () + in_us);
}

/* The etcd thread's session trusting the keeper's CA file, if any. */
static SoupSession *
session_for (FlEtcdKeeper *k)
{
  GTlsDatabase *database = NULL;
  const char *ca_file = _fl_etcd_auth_get_ca_file (k->auth);

  /* Loaded already by the lock's client (the grant came first): no file is read here. */
  if (ca_file == NULL || !_fl_etcd_auth_load_tls (k->auth, &database, NULL, NULL) ||
      database == NULL)
    return _fl_etcd_thread_session (NULL, NULL);
  return _fl_etcd_thread_session (ca_file, database);
}

static void
authenticated_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      data)
{
  FlEtcdKeeper *k = data;
  g_autoptr(GBytes) bytes = soup_session_send_and_read_finish (SOUP_SESSION (source), result,
                                                               NULL);
  g_autoptr(JsonObject) object = _fl_etcd_json_parse (bytes);
  const char *token = NULL;

  if (object != NULL)
    token = json_object_get_string_member_with_default (object, "token", NULL);
  k->reauth = FALSE;
  /* A wrong password is not retried here: the loss deadline decides, and the lock's next
   * call reports the refusal. */
  if (token != NULL)
    {
      _fl_etcd_auth_set_token (k->auth, token);
      schedule_tick (k, 0);
    }
  keeper_unref (k);
}

/* The token was found invalid: a new one, without blocking the etcd thread. The password
 * file was read by the lock's client already. */
static void
reauthenticate (FlEtcdKeeper *k)
{
  g_autofree char *body = _fl_etcd_auth_dup_request (k->auth, NULL);
  g_autofree char *url = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GTlsCertificate *certificate = NULL;

  if (body == NULL || k->reauth)
    return;
  url = g_strconcat (k->endpoints[k->current], "/v3/auth/authenticate", NULL);
  msg = soup_message_new ("POST", url);
  bytes = g_bytes_new (body, strlen (body));
  memset (body, 0, strlen (body));
  soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
  if (_fl_etcd_auth_load_tls (k->auth, NULL, &certificate, NULL) && certificate != NULL)
    soup_message_set_tls_client_certificate (msg, certificate);
  k->reauth = TRUE;
  soup_session_send_and_read_async (session_for (k), msg, G_PRIORITY_DEFAULT, NULL,
                                    authenticated_cb, keeper_ref (k));
}

static void
renewed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  Renewal *r = data;
  FlEtcdKeeper *k = r->keeper;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GError) error = NULL;
  gint64 interval = k->interval_us;
  gboolean mine = k->inflight == r->cancellable;

  bytes = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  if (mine)
    g_clear_object (&k->inflight);
  else if (k->straggler == r->cancellable)
    g_clear_object (&k->straggler);
  if (bytes != NULL && !g_atomic_int_get (&k->lost))
    object = _fl_etcd_json_parse (bytes);

  if (object != NULL && _fl_etcd_auth_get_user (k->auth) != NULL &&
      _fl_etcd_auth_is_invalid_token (soup_message_get_status (r->msg), bytes, FALSE))
    {
      /* etcd 3.4.23 renews leases whatever the token (measured: a forgotten or malformed one
       * is not refused), so this serves later versions that check it. */
      g_autofree char *token = _fl_etcd_auth_dup_token (k->auth);

      _fl_etcd_auth_forget_token (k->auth, token);
      reauthenticate (k);
      schedule_tick (k, MIN (interval, 250 * 1000));
    }
  else if (object != NULL)
    {
      JsonObject *res = _fl_etcd_json_object (object, "result");
      gint64 ttl_s = _fl_etcd_json_int (res != NULL ? res : object, "TTL");

      if (ttl_s <= 0 && !json_object_has_member (object, "error"))
        keeper_lose (k);  /* 200 without a TTL: the lease is gone (pitfall 2) */
      else if (ttl_s > 0 && _fl_platform_boottime_now () >= k->valid_until)
        keeper_lose (k);  /* too late: the lease was past trusting before this answer came */
      else if (ttl_s > 0)
        {
          gint64 until = r->sent_us + MIN (ttl_s * G_USEC_PER_SEC, k->ttl_us) - k->margin_us;

          if (until > k->valid_until)
            {
              g_mutex_lock (&k->mutex);
              k->valid_until = until;  /* written here only; read elsewhere under the mutex */
              g_mutex_unlock (&k->mutex);
              arm_deadline (k);
            }
          schedule_tick (k, interval);
        }
      else if (mine)
        {
          /* An error answer ("request timed out", "no leader": a member cut from its peers
           * answers every keepalive so): another member may renew it (issue 30, item 8). A
           * straggler's says nothing new: the next member is being asked already. */
          k->current = (k->current + 1) % g_strv_length (k->endpoints);
          schedule_tick (k, MIN (interval, 250 * 1000));
        }
    }
  else if (!g_atomic_int_get (&k->lost) && mine)
    {
      /* Unreachable: the next endpoint, soon. */
      k->current = (k->current + 1) % g_strv_length (k->endpoints);
      schedule_tick (k, MIN (interval, 250 * 1000));
    }

  g_object_unref (r->cancellable);
  g_object_unref (r->msg);
  keeper_unref (r->keeper);
  g_free (r);
}

static gboolean
tick_cb (gpointer data)
{
  FlEtcdKeeper *k = data;
  g_autofree char *url = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GBytes) body = g_bytes_new (k->body, strlen (k->body));
  g_autofree char *token = _fl_etcd_auth_dup_token (k->auth);
  GTlsCertificate *certificate = NULL;
  Renewal *r;

  /* A request that has not answered by the next tick: the next endpoint is asked, and the
   * slow one may still answer until the tick after (a busy machine, not a dead member: with
   * TTL 2 a tick is 0.33 s), so at most two are in flight. Either answer renews the lease from
   * its own send time. */
  if (k->inflight != NULL)
    {
      if (k->straggler != NULL)
        g_cancellable_cancel (k->straggler);
      g_clear_object (&k->straggler);
      k->straggler = g_steal_pointer (&k->inflight);
      k->current = (k->current + 1) % g_strv_length (k->endpoints);
    }
  url = g_strconcat (k->endpoints[k->current], "/v3/lease/keepalive", NULL);
  msg = soup_message_new ("POST", url);

  r = g_new0 (Renewal, 1);
  r->keeper = keeper_ref (k);
  r->cancellable = g_cancellable_new ();
  r->msg = g_object_ref (msg);
  r->sent_us = _fl_platform_boottime_now ();
  k->inflight = g_object_ref (r->cancellable);
  soup_message_set_request_body_from_bytes (msg, "application/json", body);
  /* A member cut from its peers says so at once, and the next one is asked 250 ms later. */
  _fl_etcd_require_leader (msg);
  if (token != NULL && token[0] != '\0')
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization",
                                  token);
  if (_fl_etcd_auth_load_tls (k->auth, NULL, &certificate, NULL) && certificate != NULL)
    soup_message_set_tls_client_certificate (msg, certificate);
  soup_session_send_and_read_async (session_for (k), msg, G_PRIORITY_DEFAULT, r->cancellable,
                                    renewed_cb, r);
  /* Until the answer reschedules it: a retry if it never comes. */
  schedule_tick (k, k->interval_us);
  return G_SOURCE_CONTINUE;
}

static gboolean
ready_time_dispatch (GSource     *source,
                     GSourceFunc  callback,
                     gpointer     data)
{
  return callback (data);
}

/* A source woken by its ready time only, which the keeper moves as keepalives succeed. */
static GSource *
ready_time_source_new (FlEtcdKeeper *k,
                       GSourceFunc   func,
                       gint64        ready_time)
{
  static GSourceFuncs funcs = { NULL, NULL, ready_time_dispatch, NULL, NULL, NULL };
  GSource *source = g_source_new (&funcs, sizeof (GSource));

  g_source_set_callback (source, func, keeper_ref (k), keeper_unref);
  g_source_set_ready_time (source, ready_time);
  g_source_attach (source, _fl_etcd_context ());
  return source;
}

static gboolean
start_cb (gpointer data)
{
  FlEtcdKeeper *k = data;

  g_mutex_lock (&k->mutex);
  if (!k->stopped)
    {
      k->deadline = ready_time_source_new (k, deadline_cb, -1);
      arm_deadline (k);
      k->tick = ready_time_source_new (k, tick_cb, g_get_monotonic_time () + k->interval_us);
    }
  g_mutex_unlock (&k->mutex);
  return G_SOURCE_REMOVE;
}

FlEtcdKeeper *
_fl_etcd_keeper_start (FlEtcdClient *client,
                       gint64        lease,
                       gint64        ttl_s,
                       gint64        granted_sent_us)
{
  FlEtcdKeeper *k = g_new0 (FlEtcdKeeper, 1);
  GMainContext *context = _fl_etcd_context ();

  k->ref = 1;
  g_mutex_init (&k->mutex);
  g_weak_ref_init (&k->lock, NULL);
  k->endpoints = g_strdupv (_fl_etcd_client_get_endpoints (client));
  /* The member that granted the lease answered well: it renews it first. */
  for (guint i = 0; k->endpoints[i] != NULL; i++)
    if (g_str_equal (k->endpoints[i], _fl_etcd_client_endpoint (client)))
      k->current = i;
  k->auth = _fl_etcd_auth_ref (_fl_etcd_client_get_auth (client));
  k->body = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", lease);
  k->ttl_us = ttl_s * G_USEC_PER_SEC;
  k->margin_us = MAX (G_USEC_PER_SEC, k->ttl_us / 5);
  /* A third of the time a renewal is trusted (TTL - margin), not of the TTL: a keepalive that
   * a paused or black-hole member never answers is sent to the next member at the next tick
   * (tick_cb()), which must answer before the last renewal runs out. With TTL/3, a TTL of 2
   * or 3 s ran out first (issue 30, item 9: a 3 s pause of the member lost the lock). */
  k->interval_us = (k->ttl_us - k->margin_us) / 3;
  k->valid_until = granted_sent_us + k->ttl_us - k->margin_us;
  g_main_context_invoke_full (context, G_PRIORITY_DEFAULT, start_cb, keeper_ref (k),
                              keeper_unref);
  return k;
}

void
_fl_etcd_keeper_set_held (FlEtcdKeeper *k,
                          FlLock       *lock)
{
  gboolean lost_already;

  g_mutex_lock (&k->mutex);
  g_weak_ref_set (&k->lock, lock);
  k->held = TRUE;
  lost_already = g_atomic_int_get (&k->lost);
  g_mutex_unlock (&k->mutex);

  /* Lost between the acquire's last look and now: keeper_lose() found nobody to tell, so the
   * lock is told here, never handed over silently lost (issue 30, item 9). */
  if (lost_already)
    _fl_lock_report_lost (lock);
}

void
_fl_etcd_keeper_cancel_on_loss (FlEtcdKeeper *k,
                                GCancellable *cancellable)
{
  gboolean lost_already;

  g_mutex_lock (&k->mutex);
  g_set_object (&k->on_loss, cancellable);
  lost_already = g_atomic_int_get (&k->lost);
  g_mutex_unlock (&k->mutex);
  if (lost_already && cancellable != NULL)
    g_cancellable_cancel (cancellable);
}

/* The boot-clock time until which the lease is trusted (0 once it was reported lost). */
gint64
_fl_etcd_keeper_valid_until (FlEtcdKeeper *k)
{
  gint64 until;

  g_mutex_lock (&k->mutex);
  until = k->valid_until;
  g_mutex_unlock (&k->mutex);
  return g_atomic_int_get (&k->lost) ? 0 : until;
}

gboolean
_fl_etcd_keeper_is_valid (FlEtcdKeeper *k)
{
  gint64 until;

  g_mutex_lock (&k->mutex);
  until = k->valid_until;
  g_mutex_unlock (&k->mutex);
  return !g_atomic_int_get (&k->lost) && _fl_platform_boottime_now () < until;
}

static gboolean
stop_cb (gpointer data)
{
  keeper_quiet (data);
  return G_SOURCE_REMOVE;
}

void
_fl_etcd_keeper_stop (FlEtcdKeeper *k)
{
  g_mutex_lock (&k->mutex);
  k->stopped = TRUE;
  g_mutex_unlock (&k->mutex);
  g_main_context_invoke_full (_fl_etcd_context (), G_PRIORITY_DEFAULT, stop_cb, k,
                              keeper_unref);
}
