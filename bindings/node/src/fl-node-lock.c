/* fl-node-lock.c: a held lock as a JavaScript object, taken synchronously or handed over by
 * fl-node-async.c; its release, its state, and an etcd lock's 'lost' relayed to JavaScript
 *
 * The object is what lib/index.cjs's LockHandle keeps. A handle that is garbage-collected
 * while held is released then: nothing can release it any more. A lock is also listed in its
 * environment, which releases it when the thread exits (fl-node-env.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

/* Marks the objects this addon wrapped: another addon's wrapped object is refused. */
static const napi_type_tag handle_tag = { 0x6c6962666c2d6e6fULL, 0x64652d6c6f636b73ULL };

typedef struct
{
  napi_env                 env;
  FlNodeHeld              *held;
  FlNodeEnv               *fenv;
  napi_threadsafe_function lost;   /* etcd only: calls the handle's on_lost */
} LockRef;

static void
call_on_lost (napi_env   env,
              napi_value on_lost,
              void      *context,
              void      *data)
{
  napi_value undefined;

  if (env == NULL || on_lost == NULL)
    return;
  napi_get_undefined (env, &undefined);
  napi_call_function (env, undefined, on_lost, 0, NULL, NULL);
}

/* On the relay thread (fl-node-acquire.c), under the held lock's mutex. */
static void
relay_lost (gpointer data)
{
  LockRef *ref = data;

  napi_call_threadsafe_function (ref->lost, NULL, napi_tsfn_nonblocking);
}

/* Stops the relay before the thread-safe function goes: the environment's cleanup runs
 * this hook (registered after the function's own, so it runs before it) or the finalizer. */
static void
stop_lost_relay (void *data)
{
  LockRef *ref = data;

  if (ref->lost == NULL)
    return;
  fl_node_held_stop_relay (ref->held);
  napi_release_threadsafe_function (ref->lost, napi_tsfn_abort);
  ref->lost = NULL;
}

static void
lock_ref_finalize (napi_env env,
                   void    *data,
                   void    *hint)
{
  LockRef *ref = data;

  if (ref->lost != NULL)
    {
      napi_remove_env_cleanup_hook (env, stop_lost_relay, ref);
      stop_lost_relay (ref);
    }
  fl_node_env_remove (ref->fenv, ref->held);
  fl_node_held_release (ref->held, NULL);
  fl_node_held_unref (ref->held);
  g_free (ref);
}

/* Takes over the caller's reference to @held. */
napi_value
fl_node_wrap_held (napi_env    env,
                   FlNodeHeld *held,
                   napi_value  on_lost)
{
  LockRef *ref = g_new0 (LockRef, 1);
  napi_valuetype type = napi_undefined;
  napi_value object, name;

  ref->env = env;
  ref->held = held;
  ref->fenv = fl_node_env_get (env);
  fl_node_env_add (ref->fenv, held);
  if (napi_create_object (env, &object) != napi_ok
      || napi_type_tag_object (env, object, &handle_tag) != napi_ok
      || napi_wrap (env, object, ref, lock_ref_finalize, NULL, NULL) != napi_ok)
    {
      fl_node_env_remove (ref->fenv, held);
      fl_node_held_unref (held);
      g_free (ref);
      return NULL;
    }
  if (on_lost != NULL)
    napi_typeof (env, on_lost, &type);
  if (type == napi_function && fl_node_held_can_be_lost (held)
      && napi_create_string_utf8 (env, "libfl lost", NAPI_AUTO_LENGTH, &name) == napi_ok
      && napi_create_threadsafe_function (env, on_lost, NULL, name, 0, 1, NULL, NULL, NULL,
                                          call_on_lost, &ref->lost) == napi_ok)
    {
      /* A held lock does not keep the process alive; its loss is only news. */
      napi_unref_threadsafe_function (env, ref->lost);
      napi_add_env_cleanup_hook (env, stop_lost_relay, ref);
      fl_node_held_relay_lost (held, relay_lost, ref);
    }
  return object;
}

/* The LockRef of args[0], or NULL with a TypeError pending: not a handle of this addon. */
static LockRef *
get_lock_ref (napi_env   env,
              napi_value value)
{
  LockRef *ref = NULL;
  napi_valuetype type = napi_undefined;
  bool tagged = false;

  if (value != NULL)
    napi_typeof (env, value, &type);
  if (type == napi_object)
    napi_check_object_type_tag (env, value, &handle_tag, &tagged);
  if (!tagged || napi_unwrap (env, value, (void **) &ref) != napi_ok || ref == NULL)
    {
      bool pending = false;

      napi_is_exception_pending (env, &pending);
      if (pending)
        {
          napi_value ignored;

          napi_get_and_clear_last_exception (env, &ignored);
        }
      fl_node_throw_type_error (env, "lock", "a lock handle returned by lock()", value);
      return NULL;
    }
  return ref;
}

/* A lock taken on this thread, blocking it as the module's withFileLock() does; NULL with
 * the error thrown. */
static FlNodeHeld *
acquire_here (napi_env   env,
              napi_value target,
              napi_value options)
{
  g_autoptr(GError) error = NULL;
  FlNodeRequest request;
  FlNodeHeld *held;

  if (!fl_node_get_request (env, target, options, &request))
    return NULL;
  request.owner = fl_node_env_get (env);
  held = fl_node_acquire (&request, &error);
  if (held == NULL)
    fl_node_throw_gerror (env, error, request.target, NULL);
  fl_node_request_clear (&request);
  return held;
}

/* acquireSync(targetPath, options, onLost): a handle, or throws. */
napi_value
fl_node_acquire_sync (napi_env           env,
                      napi_callback_info info)
{
  napi_value args[3] = { NULL, NULL, NULL };
  size_t argc = G_N_ELEMENTS (args);
  FlNodeHeld *held;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, args, NULL, NULL));
  held = acquire_here (env, args[0], args[1]);
  return held != NULL ? fl_node_wrap_held (env, held, args[2]) : NULL;
}

/* release(handle): undefined, or throws ELOCKLOST (nothing was removed). Twice: nothing. */
napi_value
fl_node_release (napi_env           env,
                 napi_callback_info info)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *target = NULL;
  g_autofree char *lock_path = NULL;
  napi_value arg = NULL;
  size_t argc = 1;
  LockRef *ref;
  FlLock *lock;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, &arg, NULL, NULL));
  ref = get_lock_ref (env, arg);
  if (ref == NULL)
    return NULL;
  lock = fl_node_held_get_lock (ref->held);
  if (lock != NULL)
    {
      target = g_strdup (fl_lock_get_target (lock));
      lock_path = g_strdup (fl_lock_get_path (lock));
    }
  if (!fl_node_held_release (ref->held, &error))
    {
      fl_node_env_remove (ref->fenv, ref->held);
      fl_node_throw_gerror (env, error, target, lock_path);
      return NULL;
    }
  fl_node_env_remove (ref->fenv, ref->held);
  return NULL;
}

/* lockInfo(handle): { held, fencingToken, target, lockPath } now. */
napi_value
fl_node_lock_info (napi_env           env,
                   napi_callback_info info)
{
  napi_value arg = NULL, result, held_value;
  size_t argc = 1;
  LockRef *ref;
  FlLock *lock;
  guint64 token = 0;
  gboolean held = FALSE;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, &arg, NULL, NULL));
  ref = get_lock_ref (env, arg);
  if (ref == NULL)
    return NULL;
  FL_NODE_CALL (env, napi_create_object (env, &result));
  lock = fl_node_held_get_lock (ref->held);
  if (lock != NULL)
    {
      held = fl_lock_is_held (lock);
      token = fl_lock_get_fencing_token (lock);
    }
  FL_NODE_CALL (env, napi_get_boolean (env, held, &held_value));
  if (!fl_node_set (env, result, "held", held_value)
      /* 0 is "no token": a file lock has none (fl_lock_get_fencing_token()) */
      || !fl_node_set (env, result, "fencingToken",
                      fl_node_int_or_null (env, token != 0, (gint64) token)))
    return NULL;
  return result;
}

/* withLock(targetPath, fn, options): the module's withFileLock() in one native call: no
 * handle object is made, so a loop of sections leaves nothing for the garbage collector.
 * The lock is listed in the environment while fn runs: a worker thread that exits inside fn
 * leaves it free. fn's exception goes on as it was thrown, after the release. */
napi_value
fl_node_with_lock (napi_env           env,
                   napi_callback_info info)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *target = NULL;
  napi_value args[3] = { NULL, NULL, NULL };
  size_t argc = G_N_ELEMENTS (args);
  napi_valuetype type = napi_undefined;
  FlNodeEnv *fenv = fl_node_env_get (env);
  napi_value undefined, result = NULL;
  FlNodeHeld *held;
  napi_status called;
  gboolean released;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, args, NULL, NULL));
  if (args[1] != NULL)
    napi_typeof (env, args[1], &type);
  if (type != napi_function)
    {
      fl_node_throw_type_error (env, "fn", "of type function", args[1]);
      return NULL;
    }
  held = acquire_here (env, args[0], args[2]);
  if (held == NULL)
    return NULL;
  target = g_strdup (fl_lock_get_target (fl_node_held_get_lock (held)));

  fl_node_env_add (fenv, held);
  napi_get_undefined (env, &undefined);
  called = napi_call_function (env, undefined, args[1], 0, NULL, &result);
  fl_node_env_remove (fenv, held);
  released = fl_node_held_release (held, called == napi_ok ? &error : NULL);
  fl_node_held_unref (held);
  if (called == napi_ok && !released)
    {
      fl_node_throw_gerror (env, error, target, NULL);
      result = NULL;
    }
  return called == napi_ok ? result : NULL;
}
