/* etcd-inspect-util.h: calls to a test's etcd, for test-etcd-inspect.c and test-flctl-etcd.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * etcd_server_call() and etcd_server_queue() (etcd-test-util.c) parse a response with
 * json_from_string(), as a C string: libsoup's GBytes carries no NUL, so they read past the
 * body (it failed under MALLOC_PERTURB_). These go through libfl's client, which parses by
 * length, until etcd-test-util.c is fixed; then they can be dropped for those.
 */
#pragma once

#include <string.h>

#include "etcd-test-util.h"
#include "fl-etcd-private.h"

/* A POST to the server's JSON gateway; asserts it answers 200 with a JSON object. */
static inline JsonObject *
inspect_call (EtcdServer *server,
              const char *path,
              const char *body)
{
  char *endpoints[] = { server->endpoint, NULL };
  FlEtcdClient *client = _fl_etcd_client_new (endpoints);
  g_autoptr(GError) error = NULL;
  JsonObject *res = _fl_etcd_client_call (client, path, body,
                                          g_get_monotonic_time () + 10 * G_USEC_PER_SEC, NULL,
                                          &error);

  _fl_etcd_client_free (client);
  g_assert_no_error (error);
  g_assert_nonnull (res);
  return res;
}

/* The kvs under @prefix + "/", oldest first (by create_revision). */
static inline GPtrArray *
inspect_queue (EtcdServer *server,
               const char *prefix)
{
  g_autofree char *start = g_strconcat (prefix, "/", NULL);
  g_autofree char *end = g_strconcat (prefix, "0", NULL);
  g_autofree char *start64 = g_base64_encode ((const guchar *) start, strlen (start));
  g_autofree char *end64 = g_base64_encode ((const guchar *) end, strlen (end));
  g_autofree char *body = g_strdup_printf ("{\"key\":\"%s\",\"range_end\":\"%s\","
                                           "\"sort_target\":\"CREATE\",\"sort_order\":"
                                           "\"ASCEND\"}", start64, end64);
  g_autoptr(JsonObject) res = inspect_call (server, "/v3/kv/range", body);
  GPtrArray *queue = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  JsonArray *kvs = json_object_has_member (res, "kvs")
                   ? json_object_get_array_member (res, "kvs") : NULL;

  for (guint i = 0; kvs != NULL && i < json_array_get_length (kvs); i++)
    g_ptr_array_add (queue, json_object_ref (json_array_get_object_element (kvs, i)));
  return queue;
}
