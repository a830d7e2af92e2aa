/* fl-etcd-private.h: etcd's v3 JSON gateway over libsoup 3, and the keepalive thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * docs/etcd.md has the design; the pitfall numbers refer to the measured etcd notes.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "fl-lock.h"
#include "fl-snapshot.h"

G_BEGIN_DECLS

/* etcd://HOST:PORT[,HOST:PORT...]/PREFIX/NAME, split. */
typedef struct
{
  char   **endpoints;  /* "http://HOST:PORT", in the order given */
  char    *name;       /* PREFIX/ESCAPED-NAME: the lock's name in etcd */
} FlEtcdTarget;

gboolean _fl_etcd_target_parse (FlEtcdTarget *target,
                                const char   *uri,
                                GError      **error);
void     _fl_etcd_target_clear (FlEtcdTarget *target);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlEtcdTarget, _fl_etcd_target_clear)

/* The main context of the process's etcd thread: keepalives and the timers of deadlines. */
GMainContext *_fl_etcd_context (void);

/* A blocking client. Its session has no HTTP timeout (a lock call waits as long as it must,
 * pitfall 7): deadlines are cancellations. Endpoints are tried in turn when one cannot be
 * reached; the one that answered is tried first next time. */
typedef struct _FlEtcdClient FlEtcdClient;

FlEtcdClient *_fl_etcd_client_new  (char       **endpoints);
void          _fl_etcd_client_free (FlEtcdClient *client);
const char   *_fl_etcd_client_endpoint (FlEtcdClient *client);

/* POSTs @body to @path ("/v3/lease/grant"). @deadline_us is monotonic, -1 for none: past it
 * the call fails with FL_ERROR_TIMEOUT. Returns the response object. */
JsonObject *_fl_etcd_client_call (FlEtcdClient  *client,
                                  const char    *path,
                                  const char    *body,
                                  gint64         deadline_us,
                                  GCancellable  *cancellable,
                                  GError       **error);

/* The object that @bytes holds, or NULL. A response body is not NUL-terminated: it is
 * parsed by its length, never as a C string. */
JsonObject *_fl_etcd_json_parse  (GBytes     *bytes);
/* proto3 JSON: int64 as strings, zero values left out (pitfall 3). */
gint64      _fl_etcd_json_int    (JsonObject *object,
                                  const char *member);
gboolean    _fl_etcd_json_bool   (JsonObject *object,
                                  const char *member);
JsonObject *_fl_etcd_json_object (JsonObject *object,
                                  const char *member);
/* The first kv of a range response, or NULL. */
JsonObject *_fl_etcd_json_first_kv (JsonObject *range);
char       *_fl_etcd_b64          (const char *text);
char       *_fl_etcd_unb64        (const char *b64);

/* The keepalive of one lease, on the etcd thread with its own session. Valid until the send
 * time of the last successful keepalive + TTL - margin (pitfall 9); then lost, once. */
typedef struct _FlEtcdKeeper FlEtcdKeeper;

FlEtcdKeeper *_fl_etcd_keeper_start    (char         **endpoints,
                                        gint64         lease,
                                        gint64         ttl_s,
                                        gint64         granted_sent_us);
/* From now on a loss is reported to @lock (_fl_lock_report_lost()). */
void          _fl_etcd_keeper_set_held (FlEtcdKeeper  *keeper,
                                        FlLock        *lock);
gboolean      _fl_etcd_keeper_is_valid (FlEtcdKeeper  *keeper);
/* No more keepalives nor reports; drops the caller's reference. */
void          _fl_etcd_keeper_stop     (FlEtcdKeeper  *keeper);

/* fl-etcd-inspect.c (docs/etcd.md, "Inspection"): the metadata key, snapshots, scans of a
 * prefix, the guarded reclaim. */
gboolean    _fl_etcd_name_check   (const FlEtcdTarget  *target,
                                   const char          *uri,
                                   GError             **error);
/* PREFIX/.fl-meta/ESCAPED-NAME/LEASE-HEX = who this process is, on @lease; best effort. */
void        _fl_etcd_meta_put     (FlEtcdClient        *client,
                                   const char          *name,
                                   gint64               lease,
                                   gint64               deadline_us);
FlSnapshot *_fl_etcd_snapshot_new (const char          *uri,
                                   const FlLockOptions *options,
                                   GError             **error);
GPtrArray  *_fl_etcd_scan         (const char          *root,
                                   const FlLockOptions *options,
                                   GCancellable        *cancellable,
                                   GError             **error);
gboolean    _fl_etcd_reclaim      (FlSnapshot          *snapshot,
                                   gboolean             forced,
                                   GError             **error);

G_END_DECLS
