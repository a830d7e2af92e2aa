/* fl-etcd-client.c: the v3 JSON gateway over libsoup 3 (blocking calls), targets, JSON
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <libsoup/soup.h>

#include "fl-error.h"
#include "fl-etcd-private.h"

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
                   "“%s” is not an etcd lock: write etcd://HOST:PORT[,HOST:PORT...]/PREFIX/NAME",
                   uri);
      return FALSE;
    }

  hosts = g_strndup (rest, path - rest);
  parts = g_strsplit (hosts, ",", -1);
  endpoints = g_ptr_array_new ();
  for (guint i = 0; parts[i] != NULL; i++)
    {
      if (parts[i][0] == '\0' || strchr (parts[i], ':') == NULL)
        {
          g_ptr_array_free (endpoints, TRUE);
          g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                       "“%s”: the endpoint “%s” is not HOST:PORT", uri, parts[i]);
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

/* JSON */

gint64
_fl_etcd_json_int (JsonObject *object,
                   const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0;
  if (json_node_get_value_type (node) == G_TYPE_STRING)
    return g_ascii_strtoll (json_node_get_string (node), NULL, 10);
  return json_node_get_int (node);
}

gboolean
_fl_etcd_json_bool (JsonObject *object,
                    const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node);
}

JsonObject *
_fl_etcd_json_parse (GBytes *bytes)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  gsize size = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &size) : NULL;
  JsonNode *root;

  if (data == NULL || size == 0 || size > G_MAXSSIZE ||
      !json_parser_load_from_data (parser, data, (gssize) size, NULL))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_object_ref (json_node_get_object (root));
}

JsonObject *
_fl_etcd_json_object (JsonObject *object,
                      const char *member)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

JsonObject *
_fl_etcd_json_first_kv (JsonObject *range)
{
  JsonNode *node = range != NULL ? json_object_get_member (range, "kvs") : NULL;
  JsonArray *kvs;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  kvs = json_node_get_array (node);
  if (json_array_get_length (kvs) == 0)
    return NULL;
  return json_array_get_object_element (kvs, 0);
}

char *
_fl_etcd_b64 (const char *text)
{
  return g_base64_encode ((const guchar *) text, strlen (text));
}

char *
_fl_etcd_unb64 (const char *b64)
{
  gsize len;
  guchar *data = g_base64_decode (b64 != NULL ? b64 : "", &len);
  char *text = g_strndup ((const char *) data, len);

  g_free (data);
  return text;
}

/* Client */

struct _FlEtcdClient
{
  SoupSession *session;
  char       **endpoints;
  guint        n_endpoints;
  guint        current;
};

FlEtcdClient *
_fl_etcd_client_new (char **endpoints)
{
  FlEtcdClient *client = g_new0 (FlEtcdClient, 1);

  /* timeout 0: a lock call blocks for as long as it waits (pitfall 7) */
  client->session = soup_session_new_with_options ("timeout", 0, "idle-timeout", 0, NULL);
  client->endpoints = g_strdupv (endpoints);
  client->n_endpoints = g_strv_length (endpoints);
  return client;
}

void
_fl_etcd_client_free (FlEtcdClient *client)
{
  if (client == NULL)
    return;
  g_object_unref (client->session);
  g_strfreev (client->endpoints);
  g_free (client);
}

const char *
_fl_etcd_client_endpoint (FlEtcdClient *client)
{
  return client->endpoints[client->current];
}

/* Runs on the etcd thread; owns a reference to the operation's cancellable. */
static gboolean
deadline_cb (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

static void
forward_cancel_cb (GCancellable *outer,
                   gpointer      data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
}

/* Both error formats (pitfall 8): unary {"error","message","code"}, streaming
 * {"error":{"message","grpc_code"...}}. */
static void
set_http_error (GError    **error,
                const char *endpoint,
                const char *path,
                guint       status,
                GBytes     *body)
{
  g_autoptr(JsonObject) root = _fl_etcd_json_parse (body);
  JsonObject *object = root;
  JsonObject *inner = _fl_etcd_json_object (object, "error");
  const char *message = NULL;

  if (inner != NULL)
    object = inner;
  if (object != NULL && json_object_has_member (object, "message"))
    message = json_object_get_string_member (object, "message");
  g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
               "etcd at %s answered %s with HTTP %u: %s", endpoint, path, status,
               message != NULL ? message : "no message");
}

static GBytes *
post (FlEtcdClient  *client,
      const char    *endpoint,
      const char    *path,
      const char    *body,
      GCancellable  *cancellable,
      guint         *status,
      GError       **error)
{
  g_autofree char *url = g_strconcat (endpoint, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  GBytes *response;

  if (msg == NULL)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET, "“%s” is not a valid URL", url);
      return NULL;
    }
  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  response = soup_session_send_and_read (client->session, msg, cancellable, error);
  *status = soup_message_get_status (msg);
  return response;
}

JsonObject *
_fl_etcd_client_call (FlEtcdClient  *client,
                      const char    *path,
                      const char    *body,
                      gint64         deadline_us,
                      GCancellable  *cancellable,
                      GError       **error)
{
  g_autoptr(GCancellable) op = g_cancellable_new ();
  g_autoptr(GError) last_error = NULL;
  GSource *timer = NULL;
  gulong handler = 0;
  JsonObject *ret = NULL;

  if (cancellable != NULL)
    handler = g_cancellable_connect (cancellable, G_CALLBACK (forward_cancel_cb), op, NULL);
  if (deadline_us >= 0)
    {
      gint64 left_ms = (deadline_us - g_get_monotonic_time () + 999) / 1000;

      timer = g_timeout_source_new (left_ms > 0 ? (guint) MIN (left_ms, G_MAXUINT) : 0);
      g_source_set_callback (timer, deadline_cb, g_object_ref (op), g_object_unref);
      g_source_attach (timer, _fl_etcd_context ());
    }

  for (guint tried = 0; tried < client->n_endpoints; tried++)
    {
      const char *endpoint = client->endpoints[client->current];
      g_autoptr(GBytes) response = NULL;
      g_autoptr(GError) local_error = NULL;
      guint status = 0;

      response = post (client, endpoint, path, body, op, &status, &local_error);
      if (response == NULL)
        {
          if (g_cancellable_is_cancelled (op))
            break;
          /* Cannot reach this one: the next endpoint, and it first from now on. */
          g_clear_error (&last_error);
          last_error = g_error_new (FL_ERROR, FL_ERROR_FAILED,
                                    "Cannot reach etcd at %s (%s): is etcd running there?",
                                    endpoint, local_error->message);
          client->current = (client->current + 1) % client->n_endpoints;
          continue;
        }
      if (status != SOUP_STATUS_OK)
        {
          set_http_error (error, endpoint, path, status, response);
          goto out;
        }
      ret = _fl_etcd_json_parse (response);
      if (ret == NULL)
        {
          g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                       "etcd at %s answered %s with something that is not a JSON object",
                       endpoint, path);
          goto out;
        }
      goto out;
    }

  if (g_cancellable_is_cancelled (op))
    {
      if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
        g_cancellable_set_error_if_cancelled (cancellable, error);
      else
        g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
                     "Timed out (ELOCKTIMEOUT) in %s on etcd at %s", path,
                     client->endpoints[client->current]);
    }
  else
    g_propagate_error (error, g_steal_pointer (&last_error));

out:
  if (timer != NULL)
    {
      g_source_destroy (timer);
      g_source_unref (timer);
    }
  if (handler != 0)
    g_cancellable_disconnect (cancellable, handler);
  return ret;
}
