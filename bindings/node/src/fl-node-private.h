/* fl-node-private.h: what the parts of the Node.js addon share (bindings/node, docs/node.md)
 *
 * The addon uses libfl's public API only (<libfl/fl.h>), so that it builds against an
 * installed libfl (npm install, node-gyp) as well as the in-tree one (meson).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Node-API 8: both Node.js 18 (Debian 12's) and 20 load it. */
#define NAPI_VERSION 8
#include <node_api.h>

#include <libfl/fl.h>

/* One per Node.js environment (the main thread, each worker thread): the locks it holds,
 * released when it goes away (a worker that exits holding a lock leaves nothing behind). */
typedef struct _FlNodeEnv FlNodeEnv;

/* A lock taken for JavaScript: the FlLock, the in-process gate it passed, and the 'lost'
 * relay of an etcd lock. Refcounted: the JS handle, the env's list and a pending release each
 * hold a reference. */
typedef struct _FlNodeHeld FlNodeHeld;

/* fl-node-gate.c: in-process turns. libfl refuses a second acquire of a lock this process
 * holds (FL_ERROR_HELD_BY_SELF), but a Node.js process runs several JavaScript threads
 * (worker_threads) that must wait for each other as the module's did. */
typedef enum
{
  FL_NODE_GATE_ENTERED,
  FL_NODE_GATE_TIMEOUT,
  FL_NODE_GATE_CANCELLED,
  FL_NODE_GATE_SELF,
} FlNodeGateResult;

FlNodeGateResult fl_node_gate_enter  (const char   *key,
                                      gconstpointer owner,
                                      gboolean      fail_if_owner,
                                      gint64        deadline_us,
                                      GCancellable *cancellable);
void             fl_node_gate_leave  (const char   *key);
char            *fl_node_gate_key    (const char   *target);

/* fl-node-acquire.c: one acquire, from any thread: the gate, then libfl, in one deadline. */
typedef struct
{
  char          *target;
  FlLockOptions *options;
  gint64         timeout_ms;    /* < 0: for ever */
  gboolean       wait_for_self; /* async: queue behind this env's own holder */
  gconstpointer  owner;         /* the FlNodeEnv asking */
  GCancellable  *cancellable;
} FlNodeRequest;

void        fl_node_request_clear (FlNodeRequest *request);
FlNodeHeld *fl_node_acquire       (const FlNodeRequest *request,
                                   GError             **error);
gboolean    fl_node_held_release  (FlNodeHeld  *held,
                                   GError     **error);
FlLock     *fl_node_held_get_lock (FlNodeHeld  *held);
gboolean    fl_node_held_is_released (FlNodeHeld *held);
FlNodeHeld *fl_node_held_ref      (FlNodeHeld  *held);
void        fl_node_held_unref    (FlNodeHeld  *held);
void        fl_node_held_relay_lost (FlNodeHeld *held,
                                     void      (*func) (gpointer data),
                                     gpointer    data);
void        fl_node_held_stop_relay (FlNodeHeld *held);
gboolean    fl_node_held_can_be_lost (FlNodeHeld *held);

/* fl-node-value.c: JavaScript values in, errors out. Each returns FALSE with a JavaScript
 * exception pending. */
gboolean fl_node_get_target   (napi_env      env,
                               napi_value    value,
                               const char   *name,
                               char        **out);
gboolean fl_node_get_request  (napi_env       env,
                               napi_value     target,
                               napi_value     options,
                               FlNodeRequest *request);
gboolean fl_node_get_bool_option (napi_env    env,
                                  napi_value  options,
                                  const char *name,
                                  gboolean   *out);
void     fl_node_throw_type_error (napi_env    env,
                                   const char *name,
                                   const char *expected,
                                   napi_value  got);
napi_value fl_node_error_new  (napi_env      env,
                               const GError *error,
                               const char   *target,
                               const char   *lock_path);
void     fl_node_throw_gerror (napi_env      env,
                               const GError *error,
                               const char   *target,
                               const char   *lock_path);
napi_value fl_node_string_or_null (napi_env    env,
                                   const char *text);
gboolean fl_node_set          (napi_env    env,
                               napi_value  object,
                               const char *name,
                               napi_value  value);
napi_value fl_node_int_or_null (napi_env env,
                                gboolean known,
                                gint64   value);

/* fl-node-env.c: the environment's instance data. */
FlNodeEnv *fl_node_env_get     (napi_env    env);
void       fl_node_env_add     (FlNodeEnv  *fenv,
                                FlNodeHeld *held);
void       fl_node_env_remove  (FlNodeEnv  *fenv,
                                FlNodeHeld *held);
gboolean   fl_node_env_closing (FlNodeEnv  *fenv);
GCancellable *fl_node_env_get_closing (FlNodeEnv *fenv);
void       fl_node_env_install (napi_env    env);

/* The exported functions, one file each. */
napi_value fl_node_acquire_sync  (napi_env env, napi_callback_info info);  /* fl-node-lock.c */
napi_value fl_node_release       (napi_env env, napi_callback_info info);
napi_value fl_node_with_lock     (napi_env env, napi_callback_info info);
napi_value fl_node_lock_info     (napi_env env, napi_callback_info info);
napi_value fl_node_acquire_async (napi_env env, napi_callback_info info);  /* fl-node-async.c */
napi_value fl_node_cancel        (napi_env env, napi_callback_info info);
napi_value fl_node_status        (napi_env env, napi_callback_info info);  /* fl-node-snapshot.c */
napi_value fl_node_scan          (napi_env env, napi_callback_info info);
napi_value fl_node_is_locked     (napi_env env, napi_callback_info info);
napi_value fl_node_lock_path_for (napi_env env, napi_callback_info info);

/* fl-node-lock.c: a JavaScript object for a held lock. */
napi_value fl_node_wrap_held     (napi_env    env,
                                  FlNodeHeld *held,
                                  napi_value  on_lost);

#define FL_NODE_CALL(env, call)                                    \
  G_STMT_START {                                                   \
    if ((call) != napi_ok)                                         \
      return NULL;                                                 \
  } G_STMT_END
