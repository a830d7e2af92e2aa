/* fl-etcd-inspect.c: who holds an etcd lock, who waits, and the operator's guarded reclaim
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * docs/etcd.md, "Inspection". The lock key's value is empty, so every acquirer also puts
 * PREFIX/.fl-meta/ESCAPED-NAME/LEASE-HEX = {"host","pid","process","since","identity"} on its
 * own lease: it vanishes with the lease, and a waiter shows who it is too. "identity" is the
 * record a lock file keeps in its xattr (docs/protocol.md, section 2): with it a reader on the
 * same machine (same boot id and PID namespace, never the host name) sees a holder that exited
 * while its lease still runs, a SIGKILL say, and says so until etcd deletes the key. A snapshot is one read of
 * etcd: the queue sorted by create_revision (the oldest key holds) and the metadata keys, in
 * one transaction so both are of the same revision.
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error.h"
#include "etcd/fl-etcd-private.h"
#include "protocol/fl-content-private.h"
#include "protocol/fl-snapshot-private.h"
#include "support/fl-process-private.h"

#define FL_ETCD_META "fl-meta"  /* after a '.', which no lock name escapes to */
#define FL_ETCD_INSPECT_US (10 * G_USEC_PER_SEC)
/* A metadata value longer than this is not one libfl wrote: it is shown, never parsed. */
#define META_MAX 4096
#define META_SHOWN 256
/* A host or process name longer than this is not one. */
#define LABEL_MAX 255

/* The name ".fl-meta" would queue under PREFIX/.fl-meta/, among every metadata key. Any
 * other name is safe: an escaped name has no '/', so PREFIX/.fl-meta/E/L is never a key of
 * the lock queue PREFIX/N/ unless N is ".fl-meta" exactly. */
gboolean
_fl_etcd_name_check (const FlEtcdTarget *target,
                     const char         *uri,
                     GError            **error)
{
  const char *name = strchr (target->name, '/') + 1;

  if (name[0] == '.' && strcmp (name + 1, FL_ETCD_META) == 0)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("“%s”: the lock name “.%s” is reserved for libfl's metadata keys "
                     "(docs/etcd.md, “Inspection”): choose another name"), uri, FL_ETCD_META);
      return FALSE;
    }
  return TRUE;
}

/* PREFIX/.fl-meta/ESCAPED-NAME, from PREFIX/ESCAPED-NAME. */
static char *
meta_dir (const char *name)
{
  const char *slash = strchr (name, '/');

  return g_strdup_printf ("%.*s/." FL_ETCD_META "/%s", (int) (slash - name), name, slash + 1);
}

static char *
builder_to_string (JsonBuilder *builder)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autoptr(JsonNode) root = json_builder_get_root (builder);

  json_generator_set_root (generator, root);
  return json_generator_to_data (generator, NULL);
}

/* Best effort: a lock is never refused because who holds it could not be written down; a
 * snapshot then says the holder is unknown. */
void
_fl_etcd_meta_put (FlEtcdClient *client,
                   const char   *name,
                   gint64        lease,
                   gint64        deadline_us)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) res = NULL;
  g_autofree char *dir = meta_dir (name);
  g_autofree char *key = g_strdup_printf ("%s/%" G_GINT64_MODIFIER "x", dir, lease);
  g_autofree char *value = NULL;
  g_autofree char *key64 = NULL;
  g_autofree char *value64 = NULL;
  g_autofree char *body = NULL;
  FlProcessInfo info = { 0 };
  char record[FL_IDENTITY_MAX];
  int pid = _fl_platform_self_pid ();
  gint64 soon;

  _fl_process_probe (pid, FALSE, &info);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "host");
  json_builder_add_string_value (builder, g_get_host_name ());
  json_builder_set_member_name (builder, "pid");
  json_builder_add_int_value (builder, pid);
  json_builder_set_member_name (builder, "process");
  json_builder_add_string_value (builder, info.name != NULL ? info.name
                                          : g_get_prgname () != NULL ? g_get_prgname () : "");
  json_builder_set_member_name (builder, "since");
  json_builder_add_int_value (builder, g_get_real_time ());
  if (_fl_identity_self_record_without_kernel_lock (record, sizeof record) > 0)
    {
      json_builder_set_member_name (builder, "identity");
      json_builder_add_string_value (builder, record);
    }
  json_builder_end_object (builder);
  _fl_process_info_clear (&info);

  value = builder_to_string (builder);
  key64 = _fl_etcd_b64 (key);
  value64 = _fl_etcd_b64 (value);
  body = g_strdup_printf ("{\"key\":\"%s\",\"value\":\"%s\",\"lease\":\"%" G_GINT64_FORMAT
                          "\"}", key64, value64, lease);
  soon = g_get_monotonic_time () + FL_ETCD_INSPECT_US;
  res = _fl_etcd_client_call (client, "/v3/kv/put", body,
                              deadline_us >= 0 ? MIN (deadline_us, soon) : soon, NULL, &error);
  if (res == NULL)
    g_debug ("etcd: cannot write who waits for “%s” (%s): snapshots will say “unknown”",
             name, error->message);
}

/* Reading */

/* What one read of etcd gave, to build snapshots from. */
typedef struct
{
  FlEtcdClient *client;
  char         *base;      /* etcd://HOSTS (or etcds://), for each snapshot's target */
  char         *prefix;
  gint64        revision;
  gint64        now_us;
  GHashTable   *meta;      /* "ESCAPED-NAME/LEASE-HEX" -> GBytes, the metadata values */
  GHashTable   *queues;    /* ESCAPED-NAME -> GPtrArray of kv JsonObject, oldest first */
  JsonObject   *response;  /* owns the kv objects */
  char         *no_quorum; /* the member read without a quorum (serializable), or NULL */
} Reading;

static void
reading_clear (Reading *r)
{
  _fl_etcd_client_free (r->client);
  g_free (r->base);
  g_free (r->prefix);
  g_clear_pointer (&r->meta, g_hash_table_unref);
  g_clear_pointer (&r->queues, g_hash_table_unref);
  g_clear_pointer (&r->response, json_object_unref);
  g_free (r->no_quorum);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Reading, reading_clear)

static void
reading_init (Reading             *r,
              char               **endpoints,
              const FlLockOptions *options,
              const char          *uri,
              const char          *prefix)
{
  const char *hosts = strstr (uri, "://") + 3;
  const char *slash = strchr (hosts, '/');

  r->client = _fl_etcd_client_new_for_options (endpoints, options);
  r->base = slash != NULL ? g_strndup (uri, slash - uri) : g_strdup (uri);
  r->prefix = g_strdup (prefix);
  r->now_us = g_get_real_time ();
  r->meta = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) g_bytes_unref);
  r->queues = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                     (GDestroyNotify) g_ptr_array_unref);
}

static GBytes *
unb64_bytes (const char *b64)
{
  gsize len = 0;
  guchar *data = g_base64_decode (b64 != NULL ? b64 : "", &len);

  return g_bytes_new_take (data, len);
}

/* Sorts one kv of PREFIX/... into the queues or the metadata; keys no libfl acquirer wrote
 * (another program sharing the prefix) are left out. */
static void
reading_add_kv (Reading    *r,
                JsonObject *kv)
{
  JsonNode *node = json_object_get_member (kv, "key");
  g_autoptr(GBytes) key_bytes = NULL;
  g_autofree char *key = NULL;
  const char *rest, *last;
  gsize len;
  const char *data;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    return;
  key_bytes = unb64_bytes (json_node_get_string (node));
  data = g_bytes_get_data (key_bytes, &len);
  key = g_strndup (data, len);
  if (strlen (key) != len || !g_str_has_prefix (key, r->prefix) || key[strlen (r->prefix)] != '/')
    return;
  rest = key + strlen (r->prefix) + 1;
  if (rest[0] == '.' && g_str_has_prefix (rest + 1, FL_ETCD_META "/"))
    {
      const char *meta = rest + 1 + strlen (FL_ETCD_META) + 1;
      JsonNode *value = json_object_get_member (kv, "value");

      last = strrchr (meta, '/');
      if (last == NULL || last == meta || strchr (meta, '/') != last)
        return;
      g_hash_table_replace (r->meta, g_strdup (meta),
                            unb64_bytes (value != NULL &&
                                         json_node_get_value_type (value) == G_TYPE_STRING
                                         ? json_node_get_string (value) : NULL));
      return;
    }
  last = strrchr (rest, '/');
  if (last == NULL || last == rest || strchr (rest, '/') != last || last[1] == '\0')
    return;
  {
    g_autofree char *name = g_strndup (rest, last - rest);
    GPtrArray *queue = g_hash_table_lookup (r->queues, name);

    if (queue == NULL)
      {
        queue = g_ptr_array_new ();
        g_hash_table_insert (r->queues, g_steal_pointer (&name), queue);
      }
    g_ptr_array_add (queue, kv);
  }
}

static void
reading_add_range (Reading    *r,
                   JsonObject *range)
{
  JsonNode *node = range != NULL ? json_object_get_member (range, "kvs") : NULL;
  JsonArray *kvs;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return;
  kvs = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (kvs); i++)
    {
      JsonNode *kv = json_array_get_element (kvs, i);

      if (JSON_NODE_HOLDS_OBJECT (kv))
        reading_add_kv (r, json_node_get_object (kv));
    }
}

/* "a%2Fb" -> "a/b": the NAME as the target gave it. */
static char *
unescape_name (const char *escaped)
{
  GString *s = g_string_new (NULL);

  for (const char *p = escaped; *p != '\0'; p++)
    {
      int hi, lo;

      if (*p == '%' && (hi = g_ascii_xdigit_value (p[1])) >= 0 &&
          (lo = g_ascii_xdigit_value (p[2])) >= 0)
        {
          g_string_append_c (s, (char) (hi * 16 + lo));
          p += 2;
        }
      else
        g_string_append_c (s, *p);
    }
  return g_string_free (s, FALSE);
}

/* Seconds left on @lease; 0 once expired; -1 when etcd could not tell. */
static gint64
lease_ttl (Reading *r,
           gint64   lease,
           char   **problem)
{
  g_autofree char *body = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", lease);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) res = _fl_etcd_client_call (r->client, "/v3/lease/timetolive", body,
                                                    g_get_monotonic_time () + FL_ETCD_INSPECT_US,
                                                    NULL, &error);
  gint64 ttl;

  if (res == NULL)
    {
      /* TRANSLATORS: %s is an error message */
      *problem = g_strdup_printf (_("its TTL is not known (%s)"), error->message);
      return -1;
    }
  ttl = _fl_etcd_json_int (res, "TTL");  /* -1 for an expired lease, absent for 0 */
  return MAX (ttl, 0);
}

/* A host or process name from a metadata key: printable UTF-8 of a sane length, or NULL. */
static char *
label_member (JsonObject *object,
              const char *member)
{
  JsonNode *node = json_object_get_member (object, member);
  const char *text;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  text = json_node_get_string (node);
  if (text[0] == '\0' || strlen (text) > LABEL_MAX || !g_utf8_validate (text, -1, NULL))
    return NULL;
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return NULL;
  return g_strdup (text);
}

static gint64
int_member (JsonObject *object,
            const char *member,
            gint64      max)
{
  JsonNode *node = json_object_get_member (object, member);
  gint64 value;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return 0;
  value = json_node_get_int (node);
  return value > 0 && value <= max ? value : 0;
}

/* Who holds or waits, from the metadata key: whatever it holds, only fields of the right
 * type and size are believed, the rest is "unknown". */
typedef struct
{
  char   *host;
  char   *process;
  char   *identity;  /* the holder's identity record as text, NULL when none was written */
  gint64  pid;
  gint64  since_us;
  GBytes *raw;
  char   *problem;
} Meta;

static void
meta_clear (Meta *m)
{
  g_free (m->host);
  g_free (m->process);
  g_free (m->identity);
  g_clear_pointer (&m->raw, g_bytes_unref);
  g_free (m->problem);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Meta, meta_clear)

static void
meta_read (Reading    *r,
           const char *name,
           gint64      lease,
           Meta       *m)
{
  g_autofree char *key = g_strdup_printf ("%s/%" G_GINT64_MODIFIER "x", name, lease);
  GBytes *raw = g_hash_table_lookup (r->meta, key);
  g_autoptr(JsonObject) object = NULL;

  if (raw == NULL)
    {
      m->problem = g_strdup (_("who is unknown: it has no metadata key"));
      return;
    }
  m->raw = g_bytes_ref (raw);
  if (g_bytes_get_size (raw) > META_MAX)
    {
      m->problem = g_strdup_printf (_("who is unknown: its metadata key is too long to be "
                                      "libfl's (%lu bytes)"),
                                    (unsigned long) g_bytes_get_size (raw));
      return;
    }
  object = _fl_etcd_json_parse (raw);
  if (object == NULL)
    {
      m->problem = g_strdup (_("who is unknown: its metadata key is not a JSON object"));
      return;
    }
  m->host = label_member (object, "host");
  m->process = label_member (object, "process");
  m->pid = int_member (object, "pid", G_MAXINT);
  m->since_us = int_member (object, "since", G_MAXINT64);
  m->identity = label_member (object, "identity");  /* parsed where it is probed */
  /* Half a record is not believed either: it is not one libfl wrote. */
  if (m->host == NULL || m->pid == 0)
    {
      m->problem = g_strdup (_("who is unknown: its metadata key names no host and PID"));
      g_clear_pointer (&m->host, g_free);
      g_clear_pointer (&m->process, g_free);
      g_clear_pointer (&m->identity, g_free);
      m->pid = 0;
      m->since_us = 0;
    }
}

static FlSnapshot *
snapshot_of (Reading    *r,
             const char *name,
             JsonObject *kv,
             guint       place)
{
  g_auto(Meta) m = { 0 };
  g_autofree char *problem = NULL;
  g_autofree char *path = g_strdup_printf ("%s/%s", r->prefix, name);
  g_autofree char *plain = unescape_name (name);
  g_autofree char *target = g_strdup_printf ("%s/%s/%s", r->base, r->prefix, plain);
  g_autofree char *who = NULL;
  g_autofree char *reason = NULL;
  FlSnapshotEtcd f = { 0 };
  FlRecordedProcess probed = FL_RECORDED_NOT_HERE;
  const char *raw;
  gsize raw_len = 0;

  f.lease = _fl_etcd_json_int (kv, "lease");
  f.token = (guint64) _fl_etcd_json_int (kv, "create_revision");
  /* Without a quorum no member can say how long a lease has left; none expires either. */
  f.lease_ttl = place == 0 && r->no_quorum == NULL ? lease_ttl (r, f.lease, &problem) : -1;
  meta_read (r, name, f.lease, &m);
  /* The holder, while its lease runs: is its process on this machine, and still there? */
  if (place == 0 && f.lease_ttl > 0)
    probed = _fl_identity_probe_record (m.identity, (int) m.pid);
  /* Running here: the model watches it (a pidfd) and reads the lock again when it exits. */
  f.holder_here = probed == FL_RECORDED_RUNNING;

  if (m.problem != NULL)
    who = g_strdup (m.problem);
  else
    who = g_strdup_printf (_("PID %lld on %s"), (long long) m.pid, m.host);
  /* TRANSLATORS: in the next four messages, the last %s is who holds or waits, such as
   * "PID 18583 on db2" or "who is unknown: it has no metadata key" */
  if (place > 0)
    reason = g_strdup_printf (_("waiting, number %u in line, with lease %llx; %s"),
                              place, (unsigned long long) f.lease, who);
  else if (f.lease_ttl == 0)
    reason = g_strdup_printf (_("its lease %llx has just expired: etcd is deleting the key; %s"),
                              (unsigned long long) f.lease, who);
  else if (probed >= FL_RECORDED_EXITED)
    {
      /* Still held: etcd is the judge, and the lease runs until its TTL is out. But the
       * holder is proven gone from this machine, so nothing keeps the lease alive: it ends
       * then without anyone's help, and the next in line holds. */
      f.holder_exited = TRUE;
      reason = probed == FL_RECORDED_REUSED
        /* TRANSLATORS: "holder exited: PID 18583 on db2 is now another process; ..." */
        ? g_strdup_printf (_("holder exited: PID %lld on %s is now another process; its lease "
                             "%llx expires in %lld s, and etcd then deletes the key"),
                           (long long) m.pid, m.host, (unsigned long long) f.lease,
                           (long long) f.lease_ttl)
        : g_strdup_printf (_("holder exited: PID %lld on %s is gone; its lease %llx expires "
                             "in %lld s, and etcd then deletes the key"),
                           (long long) m.pid, m.host, (unsigned long long) f.lease,
                           (long long) f.lease_ttl);
    }
  else if (problem != NULL)
    /* TRANSLATORS: the second %s is "its TTL is not known (...)" */
    reason = g_strdup_printf (_("held with lease %llx, which etcd judges alive, but %s; %s"),
                              (unsigned long long) f.lease, problem, who);
  else
    reason = g_strdup_printf (_("held with lease %llx, which etcd judges alive; %s"),
                              (unsigned long long) f.lease, who);

  if (r->no_quorum != NULL)
    {
      /* TRANSLATORS: the first %s is the reason above, the second an etcd endpoint */
      char *said = g_strdup_printf (_("%s; read from etcd at %s without a quorum: nothing can be "
                                      "granted or released until a majority of the members is "
                                      "back, so this is the last state it knows"), reason,
                                    r->no_quorum);

      g_free (reason);
      reason = said;
    }

  raw = m.raw != NULL ? g_bytes_get_data (m.raw, &raw_len) : NULL;
  f.target = target;
  f.path = path;
  f.name = name;
  f.host = m.host;
  f.pid = (int) m.pid;
  f.process_name = m.process;
  f.since_us = m.since_us;
  f.metadata = raw;
  f.metadata_len = MIN (raw_len, META_SHOWN);
  f.reason = reason;
  f.revision = r->revision;
  f.waiting = place > 0;
  f.captured_at = r->now_us;
  return _fl_snapshot_new_etcd (&f);
}

static FlSnapshot *
snapshot_of_queue (Reading    *r,
                   const char *name,
                   GPtrArray  *queue)
{
  FlSnapshot *holder = snapshot_of (r, name, queue->pdata[0], 0);

  for (guint i = 1; i < queue->len; i++)
    _fl_snapshot_add_waiter (holder, snapshot_of (r, name, queue->pdata[i], i));
  return holder;
}

static char *
range_json (const char *dir,
            gboolean    keys_only,
            gboolean    serializable)
{
  g_autofree char *range = _fl_etcd_dir_range_json (dir);

  return g_strdup_printf ("{%s,\"sort_target\":\"CREATE\",\"sort_order\":\"ASCEND\"%s%s}", range,
                          keys_only ? ",\"keys_only\":true" : "",
                          serializable ? ",\"serializable\":true" : "");
}

/* The queue of the lock @name (PREFIX/ESCAPED-NAME) and its metadata in one transaction, so
 * both are of one revision. A transaction
 * of serializable ranges only is served by the member alone. */
static char *
queue_txn_json (const char *name,
                gboolean    serializable)
{
  g_autofree char *meta = meta_dir (name);
  g_autofree char *queue_range = range_json (name, TRUE, serializable);
  g_autofree char *meta_range = range_json (meta, FALSE, serializable);

  return g_strdup_printf ("{\"success\":[{\"request_range\":%s},{\"request_range\":%s}]}",
                          queue_range, meta_range);
}

/* One read of etcd. Without a quorum a linearizable read fails after etcd's own wait (about
 * 7 s, "request timed out"); the member's own copy is then read (@serializable_body) and the
 * snapshots say so: nothing can be granted or released while no majority is there, so the
 * copy is the last state, and it is what an operator needs to see during the outage.
 * Fills @r's response and the store revision it reflects. */
static gboolean
reading_read (Reading       *r,
              const char    *path,
              const char    *body,
              const char    *serializable_body,
              GCancellable  *cancellable,
              GError       **error)
{
  g_autoptr(GError) local_error = NULL;

  g_assert (r->response == NULL);
  r->response = _fl_etcd_client_call (r->client, path, body,
                                      g_get_monotonic_time () + FL_ETCD_INSPECT_US,
                                      cancellable, &local_error);
  if (r->response == NULL && _fl_etcd_error_is_leaderless (local_error))
    {
      r->response = _fl_etcd_client_call (r->client, path, serializable_body,
                                          g_get_monotonic_time () + FL_ETCD_INSPECT_US,
                                          cancellable, error);
      if (r->response != NULL)
        r->no_quorum = g_strdup (_fl_etcd_client_endpoint (r->client));
    }
  else if (r->response == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  if (r->response == NULL)
    return FALSE;
  r->revision = _fl_etcd_json_int (_fl_etcd_json_object (r->response, "header"), "revision");
  return TRUE;
}

FlSnapshot *
_fl_etcd_snapshot_new (const char          *uri,
                       const FlLockOptions *options,
                       GError             **error)
{
  g_auto(FlEtcdTarget) t = { 0 };
  g_auto(Reading) r = { 0 };
  g_autofree char *body = NULL;
  g_autofree char *serializable_body = NULL;
  g_autofree char *prefix = NULL;
  const char *name;
  JsonNode *responses;
  GPtrArray *kvs;

  if (!_fl_etcd_target_parse (&t, uri, error) || !_fl_etcd_name_check (&t, uri, error))
    return NULL;
  name = strchr (t.name, '/') + 1;
  prefix = g_strndup (t.name, name - 1 - t.name);
  reading_init (&r, t.endpoints, options, uri, prefix);

  body = queue_txn_json (t.name, FALSE);
  serializable_body = queue_txn_json (t.name, TRUE);
  if (!reading_read (&r, "/v3/kv/txn", body, serializable_body, NULL, error))
    return NULL;
  responses = json_object_get_member (r.response, "responses");
  if (responses != NULL && JSON_NODE_HOLDS_ARRAY (responses))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (responses)); i++)
      {
        JsonNode *one = json_array_get_element (json_node_get_array (responses), i);

        if (JSON_NODE_HOLDS_OBJECT (one))
          reading_add_range (&r, _fl_etcd_json_object (json_node_get_object (one),
                                                       "response_range"));
      }

  kvs = g_hash_table_lookup (r.queues, name);
  if (kvs == NULL && r.no_quorum != NULL)
    {
      /* Issue 30: a member's stale copy may miss a lock the majority grants; not "unlocked". */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("“%s” is not locked in the copy of etcd at %s, read without a quorum: no "
                     "member with a leader answered, so a lock granted since may be missing"),
                   uri, r.no_quorum);
      return NULL;
    }
  if (kvs == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("“%s” is not locked: no key is queued for “%s” in etcd at %s"), uri, t.name,
                   _fl_etcd_client_endpoint (r.client));
      return NULL;
    }
  return snapshot_of_queue (&r, name, kvs);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (fl_snapshot_get_path (*(FlSnapshot * const *) a),
                 fl_snapshot_get_path (*(FlSnapshot * const *) b));
}

GPtrArray *
_fl_etcd_scan (const char          *root,
               gboolean             recursive,
               const FlLockOptions *options,
               GCancellable        *cancellable,
               GPtrArray           *errors,
               GError             **error)
{
  g_autofree char *trimmed = g_strdup (root);
  g_autofree char *probe = NULL;
  g_autofree char *body = NULL;
  g_autofree char *serializable_body = NULL;
  g_auto(FlEtcdTarget) t = { 0 };
  g_auto(Reading) r = { 0 };
  g_autoptr(GPtrArray) out = NULL;
  GHashTableIter iter;
  gpointer name, queue;
  gsize len = strlen (trimmed);
  const char *hosts = strstr (trimmed, "://") + 3;

  /* etcd://HOSTS/PREFIX[/]: parsed as the lock PREFIX/x would be, so both agree. */
  if (len > 0 && trimmed[len - 1] == '/')
    trimmed[len - 1] = '\0';
  if (strchr (hosts, '/') == NULL || strchr (strchr (hosts, '/') + 1, '/') != NULL)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("“%s” is not an etcd prefix: write etcd://HOST:PORT[,HOST:PORT...]/PREFIX"),
                   root);
      return NULL;
    }
  probe = g_strconcat (trimmed, "/x", NULL);
  if (!_fl_etcd_target_parse (&t, probe, NULL))
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("“%s” is not an etcd prefix: write etcd://HOST:PORT[,HOST:PORT...]/PREFIX"),
                   root);
      return NULL;
    }
  t.name[strlen (t.name) - 2] = '\0';  /* PREFIX */
  reading_init (&r, t.endpoints, options, trimmed, t.name);

  body = range_json (t.name, FALSE, FALSE);
  serializable_body = range_json (t.name, FALSE, TRUE);
  if (!reading_read (&r, "/v3/kv/range", body, serializable_body, cancellable, error))
    return NULL;
  reading_add_range (&r, r.response);

  out = g_ptr_array_new_with_free_func (g_object_unref);
  g_hash_table_iter_init (&iter, r.queues);
  while (g_hash_table_iter_next (&iter, &name, &queue))
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      g_ptr_array_add (out, snapshot_of_queue (&r, name, queue));
    }
  g_ptr_array_sort (out, compare_paths);
  return g_steal_pointer (&out);
}

/* Reclaim */

static void
set_changed (GError    **error,
             const char *target,
             gint64      lease,
             guint64     token)
{
  g_set_error (error, FL_ERROR, FL_ERROR_CHANGED,
               _("“%s” is no longer the acquisition the snapshot saw (lease %llx, token %llu): "
                 "it was released or its lease ended. Nothing was revoked; look at it again"),
               target, (unsigned long long) lease, (unsigned long long) token);
}

/* Revoking lease L can end only the acquisition that was seen: etcd never reuses a lease ID.
 * The guard (the key still has the token and lease seen) makes a snapshot that is out of
 * date refuse, rather than report success for a lease that has already gone. */
gboolean
_fl_etcd_reclaim (FlSnapshot          *snapshot,
                  const FlLockOptions *options,
                  gboolean             forced,
                  GCancellable        *cancellable,
                  GError             **error)
{
  const char *target = fl_snapshot_get_target (snapshot);
  gint64 lease = fl_snapshot_get_lease_id (snapshot);
  guint64 token = fl_snapshot_get_fencing_token (snapshot);
  g_auto(FlEtcdTarget) t = { 0 };
  g_autofree char *key = NULL;
  g_autofree char *key64 = NULL;
  g_autofree char *guard = NULL;
  g_autofree char *revoke = NULL;
  g_autoptr(JsonObject) checked = NULL;
  g_autoptr(JsonObject) revoked = NULL;
  g_autoptr(GError) local_error = NULL;
  FlEtcdClient *client;

  if (!forced)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_NOT_STALE,
                   _("“%s” is queued with lease %llx, which etcd judges alive: libfl never "
                     "calls an etcd lock stale. If its holder must go, reclaim it forced "
                     "(flctl reclaim --force --lease %llx): that revokes this lease only"),
                   target, (unsigned long long) lease, (unsigned long long) lease);
      return FALSE;
    }
  if (!_fl_etcd_target_parse (&t, target, error))
    return FALSE;

  key = g_strdup_printf ("%s/%" G_GINT64_MODIFIER "x", fl_snapshot_get_path (snapshot), lease);
  key64 = _fl_etcd_b64 (key);
  guard = g_strdup_printf (
    "{\"compare\":[{\"target\":\"CREATE\",\"key\":\"%s\",\"result\":\"EQUAL\","
    "\"create_revision\":\"%" G_GUINT64_FORMAT "\"},"
    "{\"target\":\"LEASE\",\"key\":\"%s\",\"result\":\"EQUAL\",\"lease\":\"%" G_GINT64_FORMAT
    "\"}]}", key64, token, key64, lease);
  revoke = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", lease);

  client = _fl_etcd_client_new (t.endpoints);
  checked = _fl_etcd_client_call (client, "/v3/kv/txn", guard,
                                  g_get_monotonic_time () + FL_ETCD_INSPECT_US, NULL, error);
  if (checked != NULL && _fl_etcd_json_bool (checked, "succeeded"))
    revoked = _fl_etcd_client_call (client, "/v3/lease/revoke", revoke,
                                    g_get_monotonic_time () + FL_ETCD_INSPECT_US, NULL,
                                    &local_error);
  _fl_etcd_client_free (client);

  if (checked == NULL)
    return FALSE;
  if (revoked != NULL)
    return TRUE;
  /* The guard failed, or the lease went between the guard and the revoke: either way it is
   * not what was seen any more. */
  if (local_error == NULL || strstr (local_error->message, "lease not found") != NULL)
    {
      set_changed (error, target, lease, token);
      return FALSE;
    }
  g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                              _("Cannot revoke lease %llx of “%s”: "),
                              (unsigned long long) lease, target);
  return FALSE;
}
