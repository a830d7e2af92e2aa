/* fl-etcd-private.h: what the files of the etcd backend share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * docs/etcd.md has the design; the pitfall numbers refer to the measured etcd notes.
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "fl-lock.h"
#include "protocol/fl-lock-backend-private.h"
#include "fl-snapshot.h"
#include "fl-options.h"

G_BEGIN_DECLS

/* fl-etcd-lock.c: the backend, every slot filled; what fl-etcd-module.c gives libfl. */
extern const FlLockBackend _fl_lock_backend_etcd;

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

/* fl-etcd-thread.c: the main context of the process's etcd thread (keepalives and the timers
 * of deadlines), and, on that thread only, its session trusting @ca_file's @database (the
 * default one for a NULL @ca_file). */
GMainContext *_fl_etcd_context        (void);
SoupSession  *_fl_etcd_thread_session (const char   *ca_file,
                                       GTlsDatabase *database);

/* TLS and user/password for one lock's calls (fl-etcd-auth.c): the options' settings, else the
 * FL_ETCD_* environment. Shared by a client and its keeper, so a token one of them renews
 * serves the other; thread-safe. Files are read at first use; errors name the file and the
 * option or variable that named it. */
typedef struct _FlEtcdAuth FlEtcdAuth;

FlEtcdAuth  *_fl_etcd_auth_new      (const FlLockOptions *options);
FlEtcdAuth  *_fl_etcd_auth_ref      (FlEtcdAuth  *auth);
void         _fl_etcd_auth_unref    (FlEtcdAuth  *auth);
/* The CA database (NULL: the system's) and the client certificate (NULL: none), loaded once.
 * Borrowed: they live as long as @auth. */
gboolean     _fl_etcd_auth_load_tls (FlEtcdAuth       *auth,
                                     GTlsDatabase    **database,
                                     GTlsCertificate **certificate,
                                     GError          **error);
const char  *_fl_etcd_auth_get_ca_file (FlEtcdAuth *auth);
gboolean     _fl_etcd_auth_has_certificate (FlEtcdAuth *auth);
/* NULL when no user is configured: no token is asked for. */
const char  *_fl_etcd_auth_get_user (FlEtcdAuth  *auth);
/* The body of /v3/auth/authenticate; the password is read from its file the first time. */
char        *_fl_etcd_auth_dup_request (FlEtcdAuth  *auth,
                                        GError     **error);
/* The current token, NULL before the first authentication or after it was found invalid. */
char        *_fl_etcd_auth_dup_token (FlEtcdAuth  *auth);
void         _fl_etcd_auth_set_token (FlEtcdAuth  *auth,
                                      const char  *token);
/* Forgets @token if it is still the current one (another thread may have renewed it). */
void         _fl_etcd_auth_forget_token (FlEtcdAuth *auth,
                                         const char *token);
/* Whether the answer @status, @body asks for a new token: etcd's "invalid auth token"; also
 * "user name is empty" when @sent_none (etcd had authentication off at the last token). */
gboolean     _fl_etcd_auth_is_invalid_token (guint    status,
                                             GBytes  *body,
                                             gboolean sent_none);

/* How long each member has to connect and answer a unary call before the next is asked, in
 * the first pass of a round (every call libfl makes is answered in milliseconds by a member
 * with a leader; one without says so at once); the slow ones are then asked again without
 * this bound (fl-etcd-client.c, call_round()). */
#define FL_ETCD_ATTEMPT_US (1 * G_USEC_PER_SEC)

/* How long a call asks again while every member that answers has no leader (an election,
 * or no quorum): as long as etcd itself holds a request without a leader before it answers
 * "request timed out"; and the pause between rounds. */
#define FL_ETCD_ELECTION_US       (7 * G_USEC_PER_SEC)
#define FL_ETCD_ELECTION_PAUSE_MS 100

/* A blocking client. Its session has no HTTP timeout (a lock call waits as long as it must,
 * pitfall 7): deadlines are cancellations. Endpoints are tried in turn when one cannot be
 * reached; the one that answered is tried first next time. */
typedef struct _FlEtcdClient FlEtcdClient;

/* With the FL_ETCD_* environment's TLS and user, as _new_for_options (endpoints, NULL). */
FlEtcdClient *_fl_etcd_client_new  (char       **endpoints);
FlEtcdClient *_fl_etcd_client_new_for_options (char               **endpoints,
                                               const FlLockOptions *options);
FlEtcdAuth   *_fl_etcd_client_get_auth      (FlEtcdClient *client);
char        **_fl_etcd_client_get_endpoints (FlEtcdClient *client);
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
/* Whether the last call may have been carried out by a member that did not answer it in
 * time (no answer within its attempt bound, or etcd's "request timed out") before another
 * member was asked: the answer that came may be to the request's second coming. */
gboolean    _fl_etcd_client_last_call_repeated (FlEtcdClient *client);

/* One etcd operation's own cancellable (@op): cancelled when the caller's @cancellable is, and
 * at @deadline_us (monotonic, -1 for none) by a timer on the etcd thread, so that a blocked
 * request ends either way. Begin and end it around the operation, on one thread. */
typedef struct
{
  GCancellable *op;
  GCancellable *outer;
  gulong        handler;
  GSource      *timer;
} FlEtcdOp;

void        _fl_etcd_op_begin (FlEtcdOp     *op,
                               GCancellable *cancellable,
                               gint64        deadline_us);
void        _fl_etcd_op_end   (FlEtcdOp     *op);
/* Cancelling @data, a GCancellable: for g_cancellable_connect() from another cancellable. */
void        _fl_etcd_cancel_cb (GCancellable *outer,
                                gpointer      data);

/* Only a member with a leader may answer @msg: the gateway passes Grpc-Metadata-* on as gRPC
 * metadata, etcd's "hasleader". A member cut from its peers then says "no leader" at once
 * instead of after its own 7 s, and ends a watch about 3 election timeouts after it lost its
 * leader instead of holding it open and silent (issue 30). */
void        _fl_etcd_require_leader (SoupMessage *msg);

/* What etcd answers while it has no leader: an election after the leader died, or no quorum
 * (after its own wait of about 7 s). */
gboolean    _fl_etcd_error_is_leaderless (const GError *error);

/* A streaming POST (/v3/watch) to the current endpoint, with the client's TLS settings and
 * token, on its session (no HTTP timeout: @cancellable ends it). The response body, or NULL
 * when the request could not be sent; *@status is the HTTP status. */
GInputStream *_fl_etcd_client_open_stream (FlEtcdClient  *client,
                                           const char    *path,
                                           const char    *body,
                                           GCancellable  *cancellable,
                                           guint         *status,
                                           GError       **error);

/* fl-etcd-json.c: etcd's answers and keys. */

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
/* Every key below @dir ("DIR/..."), as the members "key" and "range_end" of a RangeRequest:
 * etcd's prefix range, whose end is the prefix with its last byte plus one ('/' + 1 = '0'). */
char       *_fl_etcd_dir_range_json (const char *dir);

/* The keepalive of one lease, on the etcd thread with its own session. Valid until the send
 * time of the last successful keepalive + TTL - margin (pitfall 9); then lost, once. Times on
 * the boot clock (_fl_platform_boottime_now()), @granted_sent_us too. */
typedef struct _FlEtcdKeeper FlEtcdKeeper;

/* Keeps @client's endpoints and TLS/user settings (not @client itself). */
FlEtcdKeeper *_fl_etcd_keeper_start    (FlEtcdClient  *client,
                                        gint64         lease,
                                        gint64         ttl_s,
                                        gint64         granted_sent_us);
/* From now on a loss is reported to @lock (_fl_lock_report_lost()). */
void          _fl_etcd_keeper_set_held (FlEtcdKeeper  *keeper,
                                        FlLock        *lock);
/* Until set again (to NULL), a loss also cancels @cancellable (at once if lost already): a
 * waiter whose lease is lost stops waiting on it then, not when its watch next ends. */
void          _fl_etcd_keeper_cancel_on_loss (FlEtcdKeeper *keeper,
                                              GCancellable *cancellable);
gboolean      _fl_etcd_keeper_is_valid (FlEtcdKeeper  *keeper);
gint64        _fl_etcd_keeper_valid_until (FlEtcdKeeper *keeper);
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
/* @recursive does not matter: a name is one key component. What cannot be read is an error
 * of the whole scan (one read), never an entry of @errors. */
GPtrArray  *_fl_etcd_scan         (const char          *root,
                                   gboolean             recursive,
                                   const FlLockOptions *options,
                                   GCancellable        *cancellable,
                                   GPtrArray           *errors,
                                   GError             **error);
gboolean    _fl_etcd_reclaim      (FlSnapshot          *snapshot,
                                   const FlLockOptions *options,
                                   gboolean             forced,
                                   GCancellable        *cancellable,
                                   GError             **error);

/* fl-etcd-watch.c: PREFIX/ followed live for the directory model. @changed runs on the
 * caller's thread-default main context whenever something under the prefix may have changed,
 * and after the stream was down; never after _fl_etcd_watch_stop() (called on that context).
 * @destroy frees @data, from any thread, after the stop. */
typedef void (*FlEtcdChangedFunc) (gpointer data);
typedef struct _FlEtcdWatch FlEtcdWatch;

FlEtcdWatch *_fl_etcd_watch_start (const char          *root,
                                   const FlLockOptions *options,
                                   FlEtcdChangedFunc    changed,
                                   gpointer             data,
                                   GDestroyNotify       destroy,
                                   GError             **error);
void         _fl_etcd_watch_stop  (FlEtcdWatch         *watch);

G_END_DECLS
