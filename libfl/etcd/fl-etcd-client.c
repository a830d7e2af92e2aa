/* fl-etcd-client.c: the v3 JSON gateway over libsoup 3 (blocking calls), targets
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <libsoup/soup.h>

#include <glib/gi18n-lib.h>

#include "fl-error.h"
#include "etcd/fl-etcd-private.h"

/* Target */

/* NAME is one key component: `/` and `%` escaped, so `a/b` never waits behind `a/b/c`
 * (pitfall 6): etcd's lock service queues under NAME + "/". */
static char *
escape_name (const char *name)
{
  GString *s = g_string_new (NULL);

  for (const char *p = name; *p != '\0'; p++)
    {
      if (*p == '/' || *p == '%')
        g_string_append_printf (s, "%%%02X", (guchar) *p);
      else
        g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

gboolean
_fl_etcd_target_parse (FlEtcdTarget *target,
                       const char   *uri,
                       GError      **error)
{
  const char *scheme = g_str_has_prefix (uri, "etcds://") ? "https" : "http";
  const char *rest = strstr (uri, "://") + 3;
  const char *path = strchr (rest, '/');
  const char *name = path != NULL ? strchr (path + 1, '/') : NULL;
  g_autofree char *hosts = NULL;
  g_autofree char *prefix = NULL;
  g_autofree char *escaped = NULL;
  g_auto(GStrv) parts = NULL;
  GPtrArray *endpoints;

  if (path == NULL || path == rest || name == NULL || name == path + 1 || name[1] == '\0')
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("“%s” is not an etcd lock: write etcd://HOST:PORT[,HOST:PORT...]/PREFIX/NAME"),
                   uri);
      return FALSE;
    }

  hosts = g_strndup (rest, path - rest);
  if (strchr (hosts, '@') != NULL)
    {
      /* Not echoed: the part before '@' may be a password. */
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("The etcd target “%.*s…@%s%s” has credentials in it, where any process "
                     "list or log shows them: give the user with fl_lock_options_set_etcd_user() "
                     "or FL_ETCD_USER, and the password in a file (FL_ETCD_PASSWORD_FILE)"),
                   (int) (rest - uri), uri, strrchr (hosts, '@') + 1, path);
      return FALSE;
    }
  parts = g_strsplit (hosts, ",", -1);
  endpoints = g_ptr_array_new ();
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0' || strchr (parts[i], ':') == NULL)
        {
          g_ptr_array_free (endpoints, TRUE);
          g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                       _("“%s”: the endpoint “%s” is not HOST:PORT"), uri, parts[i]);
          return FALSE;
        }
      g_ptr_array_add (endpoints, g_strdup_printf ("%s://%s", scheme, parts[i]));
    }
  g_ptr_array_add (endpoints, NULL);

  prefix = g_strndup (path + 1, name - path - 1);
  escaped = escape_name (name + 1);
  target->endpoints = (char **) g_ptr_array_free (endpoints, FALSE);
  target->name = g_strdup_printf ("%s/%s", prefix, escaped);
  return TRUE;
}

void
_fl_etcd_target_clear (FlEtcdTarget *target)
{
  g_clear_pointer (&target->endpoints, g_strfreev);
  g_clear_pointer (&target->name, g_free);
}

/* Client */

struct _FlEtcdClient
{
  SoupSession *session;
  FlEtcdAuth  *auth;
  GTlsCertificate *certificate;  /* borrowed from auth, once TLS is set up */
  gboolean     tls_ready;
  char       **endpoints;
  guint        n_endpoints;
  guint        current;
  gboolean     repeated;  /* the last call's, _fl_etcd_client_last_call_repeated() */
};

/* The member of each list of endpoints that last answered well, for the whole process: a new
 * client (every acquire, snapshot and scan makes one) starts there, so a first endpoint that
 * is a black hole costs its 1 s once per process, not once per lock (issue 30). */
G_LOCK_DEFINE_STATIC (answered);
static GHashTable *answered;  /* endpoints joined with "," -> index + 1 */

static char *
endpoints_key (FlEtcdClient *client)
{
  return g_strjoinv (",", client->endpoints);
}

static void
remember_answered (FlEtcdClient *client)
{
  char *key = endpoints_key (client);

  G_LOCK (answered);
  if (answered == NULL)
    answered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_hash_table_replace (answered, key, GUINT_TO_POINTER (client->current + 1));
  G_UNLOCK (answered);
}

FlEtcdClient *
_fl_etcd_client_new_for_options (char               **endpoints,
                                 const FlLockOptions *options)
{
  FlEtcdClient *client = g_new0 (FlEtcdClient, 1);
  g_autofree char *key = NULL;
  guint last = 0;

  /* timeout 0: a lock call blocks for as long as it waits (pitfall 7) */
  client->session = soup_session_new_with_options ("timeout", 0, "idle-timeout", 0, NULL);
  client->auth = _fl_etcd_auth_new (options);
  client->endpoints = g_strdupv (endpoints);
  client->n_endpoints = g_strv_length (endpoints);
  key = endpoints_key (client);
  G_LOCK (answered);
  if (answered != NULL)
    last = GPOINTER_TO_UINT (g_hash_table_lookup (answered, key));
  G_UNLOCK (answered);
  if (last > 0 && last <= client->n_endpoints)
    client->current = last - 1;
  return client;
}

FlEtcdClient *
_fl_etcd_client_new (char **endpoints)
{
  return _fl_etcd_client_new_for_options (endpoints, NULL);
}

void
_fl_etcd_client_free (FlEtcdClient *client)
{
  if (client == NULL)
    return;
  g_object_unref (client->session);
  _fl_etcd_auth_unref (client->auth);
  g_strfreev (client->endpoints);
  g_free (client);
}

const char *
_fl_etcd_client_endpoint (FlEtcdClient *client)
{
  return client->endpoints[client->current];
}

FlEtcdAuth *
_fl_etcd_client_get_auth (FlEtcdClient *client)
{
  return client->auth;
}

char **
_fl_etcd_client_get_endpoints (FlEtcdClient *client)
{
  return client->endpoints;
}

/* The CA file and certificate are read at the first call, and only for https endpoints: a
 * stale FL_ETCD_CA_FILE does not break etcd:// targets. */
static gboolean
ensure_tls (FlEtcdClient  *client,
            GError       **error)
{
  GTlsDatabase *database = NULL;
  gboolean https = FALSE;

  if (client->tls_ready)
    return TRUE;
  for (guint i = 0; i < client->n_endpoints; i++)
    https = https || g_str_has_prefix (client->endpoints[i], "https://");
  if (https)
    {
      if (!_fl_etcd_auth_load_tls (client->auth, &database, &client->certificate, error))
        return FALSE;
      if (database != NULL)
        g_object_set (client->session, "tls-database", database, NULL);
    }
  client->tls_ready = TRUE;
  return TRUE;
}

/* Runs on the etcd thread; owns a reference to the operation's cancellable. */
static gboolean
deadline_cb (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

void
_fl_etcd_cancel_cb (GCancellable *outer,
                    gpointer      data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
}

void
_fl_etcd_op_begin (FlEtcdOp     *op,
                   GCancellable *cancellable,
                   gint64        deadline_us)
{
  *op = (FlEtcdOp) { g_cancellable_new (), cancellable, 0, NULL };
  if (cancellable != NULL)
    op->handler = g_cancellable_connect (cancellable, G_CALLBACK (_fl_etcd_cancel_cb), op->op,
                                         NULL);
  if (deadline_us >= 0)
    {
      gint64 left_ms = (deadline_us - g_get_monotonic_time () + 999) / 1000;

      op->timer = g_timeout_source_new (left_ms > 0 ? (guint) MIN (left_ms, G_MAXUINT) : 0);
      g_source_set_callback (op->timer, deadline_cb, g_object_ref (op->op), g_object_unref);
      g_source_attach (op->timer, _fl_etcd_context ());
    }
}

void
_fl_etcd_op_end (FlEtcdOp *op)
{
  if (op->timer != NULL)
    {
      g_source_destroy (op->timer);
      g_source_unref (op->timer);
    }
  if (op->handler != 0)
    g_cancellable_disconnect (op->outer, op->handler);
  g_clear_object (&op->op);
}

static gboolean
contains (const char *message,
          const char *what)
{
  return message != NULL && strstr (message, what) != NULL;
}

/* Both error formats (pitfall 8): unary {"error","message","code"}, streaming
 * {"error":{"message","grpc_code"...}}. Refusals by etcd's authentication are
 * FL_ERROR_PERMISSION and say what to set. */
static void
set_http_error (FlEtcdClient *client,
                GError      **error,
                const char   *endpoint,
                const char   *path,
                guint         status,
                GBytes       *body)
{
  g_autoptr(JsonObject) root = _fl_etcd_json_parse (body);
  JsonObject *object = root;
  JsonObject *inner = _fl_etcd_json_object (object, "error");
  const char *user = _fl_etcd_auth_get_user (client->auth);
  const char *message = NULL;

  if (inner != NULL)
    object = inner;
  if (object != NULL)
    message = json_object_get_string_member_with_default (object, "message", NULL);

  if (contains (message, "authentication failed"))
    g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                 _("etcd at %s refused the user “%s”: wrong password or no such user (check "
                   "the password file)"), endpoint, user);
  else if (contains (message, "user name is empty"))
    g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                 _("etcd at %s has authentication enabled: give a user with "
                   "fl_lock_options_set_etcd_user() or FL_ETCD_USER and FL_ETCD_PASSWORD_FILE"),
                 endpoint);
  else if (contains (message, "invalid auth token"))
    g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                 _("etcd at %s rejects the token it has just issued to the user “%s”: etcd "
                   "3.4 does so for every token when started with --auth-token-ttl; leave that "
                   "flag at its default"), endpoint, user);
  else if (contains (message, "permission denied"))
    g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                 _("etcd at %s: the user “%s” may not call %s; grant its role readwrite on the "
                   "lock prefix"), endpoint, user != NULL ? user : _("(none)"), path);
  else
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("etcd at %s answered %s with HTTP %u: %s"), endpoint, path, status,
                 message != NULL ? message : _("no message"));
}

/* What to set, when the failure was TLS's. */
static void
set_tls_error (FlEtcdClient *client,
               GError      **error,
               const char   *endpoint,
               SoupMessage  *msg,
               const GError *cause,
               gboolean      certificate_requested)
{
  GTlsCertificateFlags flags = soup_message_get_tls_peer_certificate_errors (msg);
  const char *ca_file = _fl_etcd_auth_get_ca_file (client->auth);

  if ((flags & G_TLS_CERTIFICATE_UNKNOWN_CA) && ca_file != NULL)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("etcd at %s has a certificate that the CA file “%s” did not sign: set the CA "
                   "that signed etcd's --cert-file (fl_lock_options_set_etcd_ca_file() or "
                   "FL_ETCD_CA_FILE)"), endpoint, ca_file);
  else if (flags & G_TLS_CERTIFICATE_UNKNOWN_CA)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("etcd at %s has a certificate from a CA that this system does not trust: "
                   "set the CA file that signed it with fl_lock_options_set_etcd_ca_file() or "
                   "FL_ETCD_CA_FILE"), endpoint);
  else if (flags & G_TLS_CERTIFICATE_BAD_IDENTITY)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("etcd at %s has a certificate for another host (hostname mismatch): name "
                   "the endpoint as its certificate does (its subjectAltName)"), endpoint);
  else if (flags != 0)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("etcd at %s has a certificate that cannot be trusted (%s): expired, not yet "
                   "valid or revoked"), endpoint, cause->message);
  else if (certificate_requested && !_fl_etcd_auth_has_certificate (client->auth))
    g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                 _("etcd at %s requires a client certificate (--client-cert-auth) and refused "
                   "this one without (%s): set one with "
                   "fl_lock_options_set_etcd_client_certificate() or FL_ETCD_CERT_FILE and "
                   "FL_ETCD_KEY_FILE"), endpoint, cause->message);
  else if (!_fl_etcd_auth_has_certificate (client->auth))
    g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                 _("TLS with etcd at %s failed (%s): if etcd requires client certificates "
                   "(--client-cert-auth), set one with "
                   "fl_lock_options_set_etcd_client_certificate() or FL_ETCD_CERT_FILE and "
                   "FL_ETCD_KEY_FILE"), endpoint, cause->message);
  else
    g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                 _("TLS with etcd at %s failed (%s): is the client certificate signed by the CA "
                   "of etcd's --trusted-ca-file?"), endpoint, cause->message);
}

/* No certificate to show: go on without one, so that etcd's refusal is the error, and
 * remember that one was asked for. Runs in the TLS handshake's thread while post() waits. */
static gboolean
request_certificate_cb (SoupMessage          *msg,
                        GTlsClientConnection *connection,
                        gpointer              data)
{
  g_atomic_int_set ((gint *) data, 1);
  soup_message_set_tls_client_certificate (msg, NULL);
  return TRUE;
}

/* A POST of @body to @endpoint's @path, with the token and the client certificate. Without a
 * certificate of ours, *@requested is set if the server asks for one. */
static SoupMessage *
new_message (FlEtcdClient  *client,
             const char    *endpoint,
             const char    *path,
             const char    *body,
             const char    *token,
             gint          *requested,
             GError       **error)
{
  g_autofree char *url = g_strconcat (endpoint, path, NULL);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  SoupMessage *msg = soup_message_new ("POST", url);

  if (msg == NULL)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET, _("“%s” is not a valid URL"), url);
      return NULL;
    }
  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  /* The one request a member without a leader may answer is the read that asks for its own
   * copy on purpose: the fallback without a quorum. */
  if (strstr (body, "\"serializable\":true") == NULL)
    _fl_etcd_require_leader (msg);
  if (token != NULL && token[0] != '\0')
    soup_message_headers_replace (soup_message_get_request_headers (msg), "Authorization",
                                  token);
  if (client->certificate != NULL)
    soup_message_set_tls_client_certificate (msg, client->certificate);
  else
    g_signal_connect (msg, "request-certificate", G_CALLBACK (request_certificate_cb),
                      requested);
  return msg;
}

void
_fl_etcd_require_leader (SoupMessage *msg)
{
  soup_message_headers_replace (soup_message_get_request_headers (msg),
                                "Grpc-Metadata-hasleader", "true");
}

/* Whether a send that failed with @local_error failed in TLS: the handshake, a certificate
 * asked for, or etcd's certificate refused. */
static gboolean
is_tls_failure (const char   *endpoint,
                SoupMessage  *msg,
                const GError *local_error,
                gint         *requested)
{
  return local_error != NULL && g_str_has_prefix (endpoint, "https://") &&
         (local_error->domain == G_TLS_ERROR || g_atomic_int_get (requested) ||
          soup_message_get_tls_peer_certificate_errors (msg) != 0);
}

static GBytes *
post (FlEtcdClient  *client,
      const char    *endpoint,
      const char    *path,
      const char    *body,
      const char    *token,
      GCancellable  *cancellable,
      guint         *status,
      GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gint requested = 0;
  g_autoptr(SoupMessage) msg = new_message (client, endpoint, path, body, token, &requested,
                                            error);
  GBytes *response;

  if (msg == NULL)
    return NULL;
  response = soup_session_send_and_read (client->session, msg, cancellable, &local_error);
  *status = soup_message_get_status (msg);
  if (response == NULL && is_tls_failure (endpoint, msg, local_error, &requested))
    set_tls_error (client, error, endpoint, msg, local_error, g_atomic_int_get (&requested));
  else if (response == NULL)
    g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                 _("Cannot reach etcd at %s (%s): is etcd running there?"), endpoint,
                 local_error != NULL ? local_error->message : _("no answer"));
  return response;
}

/* One round: the endpoints in turn, from the current one, until one answers. NULL with
 * @error (*@final when a member answered it: asking again would not change it), and with
 * @leaderless when a member answered that it has no leader. *@invalid_token is set when the
 * answer says the token must be renewed.
 *
 * Each member first gets FL_ETCD_ATTEMPT_US to connect and answer: one that accepts and
 * never answers (a black hole, a paused member) is passed over (issue 30). When no member
 * answered in that pass, the ones that were only slow (connected, no answer yet: a leader that
 * lost its quorum, a busy machine) are asked again with what is left of the caller's
 * deadline, so that a slow cluster still answers and etcd's own answer still comes; not when
 * a member said it has no leader and @round_again (the caller will ask the round again while
 * an election may still end). */
static JsonObject *
call_round (FlEtcdClient  *client,
            const char    *path,
            const char    *body,
            const char    *token,
            GCancellable  *op,
            gboolean       round_again,
            gboolean      *invalid_token,
            GError       **leaderless,
            gboolean      *final,
            GError       **error)
{
  g_autoptr(GError) last_error = NULL;
  g_autofree gboolean *slow = g_new0 (gboolean, client->n_endpoints);
  guint first = client->current;
  JsonObject *ret = NULL;

  for (guint pass = 0; pass < 2; pass++)
    for (guint tried = 0; tried < client->n_endpoints; tried++)
      {
        guint i = (first + tried) % client->n_endpoints;
        const char *endpoint = client->endpoints[i];
        g_autoptr(GBytes) response = NULL;
        gboolean bounded = pass == 0 && client->n_endpoints > 1;
        FlEtcdOp attempt;
        guint status = 0;

        /* A member said it has no leader: an election is going on (the slow one may be the
         * leader that went away), and the whole round will be asked again, each member within
         * its bound. The slow ones are given the rest of the deadline only when it will not:
         * otherwise a paused leader took the caller's whole deadline while the others
         * elected a new one. */
        if (pass == 1 && round_again && *leaderless != NULL)
          break;
        if (pass == 1 && !slow[i])
          continue;
        g_clear_error (&last_error);
        _fl_etcd_op_begin (&attempt, op,
                           bounded ? g_get_monotonic_time () + FL_ETCD_ATTEMPT_US : -1);
        response = post (client, endpoint, path, body, token, attempt.op, &status,
                         &last_error);
        slow[i] = response == NULL && g_cancellable_is_cancelled (attempt.op) &&
                  !g_cancellable_is_cancelled (op);
        client->repeated = client->repeated || slow[i];
        _fl_etcd_op_end (&attempt);
        if (g_cancellable_is_cancelled (op))
          return NULL;
        /* Cannot reach this one, or no answer in time: the next endpoint, and it first from
         * now on. */
        client->current = (i + 1) % client->n_endpoints;
        if (response == NULL)
          continue;
        if (status != SOUP_STATUS_OK)
          {
            if (invalid_token != NULL && token != NULL &&
                _fl_etcd_auth_is_invalid_token (status, response, token[0] == '\0'))
              *invalid_token = TRUE;
            set_http_error (client, &last_error, endpoint, path, status, response);
            /* A member without a leader (cut from its peers), or whose request timed out,
             * speaks for itself alone: another may have a leader. Every request libfl sends
             * may be sent twice (issue 30): a grant twice leaves a spare lease to expire, the
             * rest are idempotent. */
            if (_fl_etcd_error_is_leaderless (last_error))
              {
                /* "no leader" was refused before it started; "timed out" may be applied */
                client->repeated = client->repeated ||
                                   strstr (last_error->message, "request timed out") != NULL;
                g_debug ("etcd at %s: %s; asking the next member", endpoint,
                         last_error->message);
                g_clear_error (leaderless);
                *leaderless = g_steal_pointer (&last_error);
                continue;
              }
            client->current = i;
            *final = TRUE;
            g_propagate_error (error, g_steal_pointer (&last_error));
            return NULL;
          }
        client->current = i;
        remember_answered (client);
        ret = _fl_etcd_json_parse (response);
        if (ret == NULL)
          g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                       _("etcd at %s answered %s with something that is not a JSON object"),
                       endpoint, path);
        return ret;
      }
  if (last_error != NULL)
    g_propagate_error (error, g_steal_pointer (&last_error));
  return NULL;
}

/* A pause that @op ends early. */
static void
pause_op (GCancellable *op,
          guint         ms)
{
  GPollFD pfd;

  if (g_cancellable_make_pollfd (op, &pfd))
    {
      g_poll (&pfd, 1, (int) ms);
      g_cancellable_release_fd (op);
    }
  else
    g_usleep ((gulong) ms * 1000);
}

/* The endpoints in turn until one answers. While every member that answers has no leader
 * (an election; each request asks for a leader, so they say so at once) the round is
 * repeated for as long as etcd itself would have held the request, FL_ETCD_ELECTION_US. */
static JsonObject *
call_endpoints (FlEtcdClient  *client,
                const char    *path,
                const char    *body,
                const char    *token,
                GCancellable  *op,
                GCancellable  *cancellable,
                gboolean      *invalid_token,
                GError       **error)
{
  gint64 election_end = g_get_monotonic_time () + FL_ETCD_ELECTION_US;
  g_autoptr(GError) last_error = NULL;
  g_autoptr(GError) leaderless = NULL;
  JsonObject *ret = NULL;
  gboolean final = FALSE;

  for (;;)
    {
      g_clear_error (&last_error);
      g_clear_error (&leaderless);
      gboolean round_again = g_get_monotonic_time () + FL_ETCD_ELECTION_PAUSE_MS * 1000
                             < election_end;

      ret = call_round (client, path, body, token, op, round_again, invalid_token,
                        &leaderless, &final, &last_error);
      if (ret != NULL || final || leaderless == NULL || g_cancellable_is_cancelled (op) ||
          g_get_monotonic_time () + FL_ETCD_ELECTION_PAUSE_MS * 1000 >= election_end)
        break;
      pause_op (op, FL_ETCD_ELECTION_PAUSE_MS);
    }
  if (ret != NULL)
    return ret;
  if (final)
    {
      g_propagate_error (error, g_steal_pointer (&last_error));
      return NULL;
    }

  if (g_cancellable_is_cancelled (op))
    {
      if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
        g_cancellable_set_error_if_cancelled (cancellable, error);
      else
        g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
                     _("Timed out (ELOCKTIMEOUT) in %s on etcd at %s"), path,
                     client->endpoints[client->current]);
    }
  else if (leaderless != NULL)
    {
      /* Of the members that answered, none had a leader: that is the news (callers fall back
       * to a read without a quorum on it), not that the others could not be reached. */
      g_propagate_error (error, g_steal_pointer (&leaderless));
    }
  else
    g_propagate_error (error, g_steal_pointer (&last_error));
  return NULL;
}

/* A new token for the configured user. An etcd without authentication enabled gets "" (no
 * header), which a later "user name is empty" replaces. */
static char *
authenticate (FlEtcdClient  *client,
              GCancellable  *op,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autofree char *body = _fl_etcd_auth_dup_request (client->auth, error);
  g_autoptr(JsonObject) res = NULL;
  g_autoptr(GError) local_error = NULL;
  const char *token;

  if (body == NULL)
    return NULL;
  res = call_endpoints (client, "/v3/auth/authenticate", body, NULL, op, cancellable, NULL,
                        &local_error);
  memset (body, 0, strlen (body));
  if (res == NULL && contains (local_error->message, "authentication is not enabled"))
    token = "";
  else if (res == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  else
    token = json_object_get_string_member_with_default (res, "token", "");
  _fl_etcd_auth_set_token (client->auth, token);
  return g_strdup (token);
}

/* The token to send: none without a configured user, else the current one, authenticated
 * first when there is none yet. FALSE with @error set when that authentication failed. */
static gboolean
dup_token (FlEtcdClient  *client,
           GCancellable  *op,
           GCancellable  *cancellable,
           char         **token,
           GError       **error)
{
  *token = NULL;
  if (_fl_etcd_auth_get_user (client->auth) == NULL)
    return TRUE;
  *token = _fl_etcd_auth_dup_token (client->auth);
  if (*token == NULL)
    *token = authenticate (client, op, cancellable, error);
  return *token != NULL;
}

/* With the user's token when one is configured; an invalid one is renewed once, never in a
 * loop (a wrong password fails at once, as FL_ERROR_PERMISSION). */
static JsonObject *
call_authorized (FlEtcdClient  *client,
                 const char    *path,
                 const char    *body,
                 GCancellable  *op,
                 GCancellable  *cancellable,
                 GError       **error)
{
  for (guint attempt = 0;; attempt++)
    {
      g_autofree char *token = NULL;
      g_autoptr(GError) local_error = NULL;
      gboolean invalid = FALSE;
      JsonObject *ret;

      if (!dup_token (client, op, cancellable, &token, error))
        return NULL;
      ret = call_endpoints (client, path, body, token, op, cancellable, &invalid,
                            &local_error);
      if (ret != NULL || !invalid || attempt > 0)
        {
          if (local_error != NULL)
            g_propagate_error (error, g_steal_pointer (&local_error));
          return ret;
        }
      g_debug ("etcd at %s: the token of “%s” is no longer valid; authenticating again",
               _fl_etcd_client_endpoint (client), _fl_etcd_auth_get_user (client->auth));
      _fl_etcd_auth_forget_token (client->auth, token);
    }
}

JsonObject *
_fl_etcd_client_call (FlEtcdClient  *client,
                      const char    *path,
                      const char    *body,
                      gint64         deadline_us,
                      GCancellable  *cancellable,
                      GError       **error)
{
  FlEtcdOp op;
  JsonObject *ret;

  client->repeated = FALSE;
  if (!ensure_tls (client, error))
    return NULL;
  _fl_etcd_op_begin (&op, cancellable, deadline_us);
  ret = call_authorized (client, path, body, op.op, cancellable, error);
  _fl_etcd_op_end (&op);
  return ret;
}

gboolean
_fl_etcd_client_last_call_repeated (FlEtcdClient *client)
{
  return client->repeated;
}

gboolean
_fl_etcd_error_is_leaderless (const GError *error)
{
  return g_error_matches (error, FL_ERROR, FL_ERROR_FAILED) &&
         (strstr (error->message, "etcdserver: request timed out") != NULL ||
          strstr (error->message, "etcdserver: no leader") != NULL ||
          strstr (error->message, "etcdserver: leader changed") != NULL);
}

GInputStream *
_fl_etcd_client_open_stream (FlEtcdClient  *client,
                             const char    *path,
                             const char    *body,
                             GCancellable  *cancellable,
                             guint         *status,
                             GError       **error)
{
  const char *endpoint = client->endpoints[client->current];
  g_autoptr(SoupMessage) msg = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GError) local_error = NULL;
  gint requested = 0;
  GInputStream *stream;

  *status = 0;
  if (!ensure_tls (client, error))
    return NULL;
  /* The same token as the unary calls: a stream opened with an expired one ends at once,
   * and the caller's next unary call renews it. */
  if (!dup_token (client, cancellable, cancellable, &token, error))
    return NULL;
  msg = new_message (client, endpoint, path, body, token, &requested, error);
  if (msg == NULL)
    return NULL;
  stream = soup_session_send (client->session, msg, cancellable, &local_error);
  *status = soup_message_get_status (msg);
  if (stream == NULL && is_tls_failure (endpoint, msg, local_error, &requested))
    set_tls_error (client, error, endpoint, msg, local_error, g_atomic_int_get (&requested));
  else if (stream == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return stream;
}
