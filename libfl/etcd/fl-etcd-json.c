/* fl-etcd-json.c: reading etcd's proto3 JSON answers and writing its base64 keys, for every
 * file of the etcd backend (the client, the keepalive, the authentication, the inspection)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "etcd/fl-etcd-private.h"

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

char *
_fl_etcd_dir_range_json (const char *dir)
{
  g_autofree char *from = g_strconcat (dir, "/", NULL);
  g_autofree char *to = g_strconcat (dir, "0", NULL);
  g_autofree char *from64 = _fl_etcd_b64 (from);
  g_autofree char *to64 = _fl_etcd_b64 (to);

  return g_strdup_printf ("\"key\":\"%s\",\"range_end\":\"%s\"", from64, to64);
}
