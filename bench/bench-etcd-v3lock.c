/* bench-etcd-v3lock.c: etcd's own lock, the baseline of fl-bench-etcd
 *
 * What `etcdctl lock NAME` does, without a process start: a session (a lease of 60 s), the
 * v3lock service's Lock on it (it puts NAME/<lease> and waits until every older key under NAME
 * is gone), then Unlock and the session's end (the lease revoked): 4 calls through etcd's
 * JSON gateway, over one kept-alive connection as libfl's own client uses. No keepalive is
 * sent: every lock here is held far less than the lease's 60 s.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "bench-etcd-v3lock.h"

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <string.h>

struct _V3Lock
{
  SoupSession *session;
  char        *endpoint;   /* http://HOST:PORT */
  gint64       lease;      /* the held lock's session, or 0 */
  char        *key;        /* the held lock's key, base64 as etcd gives it */
};

V3Lock *
v3lock_new (const char *endpoint)
{
  V3Lock *self = g_new0 (V3Lock, 1);

  self->session = soup_session_new_with_options ("timeout", 30, NULL);
  self->endpoint = g_strdup (endpoint);
  return self;
}

void
v3lock_free (V3Lock *self)
{
  if (self == NULL)
    return;
  g_clear_object (&self->session);
  g_free (self->endpoint);
  g_free (self->key);
  g_free (self);
}

/* One call; the answer's JSON object, or NULL with @error set. */
static JsonObject *
call (V3Lock      *self,
      const char  *path,
      const char  *body,
      GError     **error)
{
  g_autofree char *url = g_strconcat (self->endpoint, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", url);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) response = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonNode *root;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  response = soup_session_send_and_read (self->session, msg, NULL, error);
  if (response == NULL)
    return NULL;
  if (soup_message_get_status (msg) != SOUP_STATUS_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: HTTP %u", url,
                   soup_message_get_status (msg));
      return NULL;
    }
  if (!json_parser_load_from_data (parser, g_bytes_get_data (response, NULL),
                                   (gssize) g_bytes_get_size (response), error))
    return NULL;
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: no JSON object", url);
      return NULL;
    }
  return json_object_ref (json_node_get_object (root));
}

/* etcd's JSON gateway writes 64-bit integers as strings. */
static gint64
int_member (JsonObject *object,
            const char *name)
{
  const char *text;

  if (!json_object_has_member (object, name))
    return 0;
  text = json_object_get_string_member (object, name);
  return text != NULL ? g_ascii_strtoll (text, NULL, 10) : 0;
}

gboolean
v3lock_acquire (V3Lock      *self,
                const char  *name,
                GError     **error)
{
  g_autofree char *name64 = g_base64_encode ((const guchar *) name, strlen (name));
  g_autoptr(JsonObject) granted = call (self, "/v3/lease/grant", "{\"TTL\":60}", error);
  g_autoptr(JsonObject) locked = NULL;
  g_autofree char *body = NULL;

  if (granted == NULL)
    return FALSE;
  self->lease = int_member (granted, "ID");
  body = g_strdup_printf ("{\"name\":\"%s\",\"lease\":\"%" G_GINT64_FORMAT "\"}", name64,
                          self->lease);
  locked = call (self, "/v3/lock/lock", body, error);
  if (locked == NULL || !json_object_has_member (locked, "key"))
    {
      g_prefix_error (error, "v3lock %s: ", name);
      return FALSE;
    }
  self->key = g_strdup (json_object_get_string_member (locked, "key"));
  return TRUE;
}

gboolean
v3lock_release (V3Lock  *self,
                GError **error)
{
  g_autofree char *unlock = g_strdup_printf ("{\"key\":\"%s\"}", self->key);
  g_autofree char *revoke = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", self->lease);
  g_autoptr(JsonObject) unlocked = call (self, "/v3/lock/unlock", unlock, error);
  g_autoptr(JsonObject) revoked = NULL;

  g_clear_pointer (&self->key, g_free);
  if (unlocked == NULL)
    return FALSE;
  revoked = call (self, "/v3/lease/revoke", revoke, error);
  self->lease = 0;
  return revoked != NULL;
}
