/* fl-node-async.c: an acquire that waits off the JavaScript thread
 *
 * Each wait runs in a thread of its own, not in libuv's thread pool: the pool has four
 * threads by default and Node's fs calls need them, so four waits there would stall every
 * fs call of the process, and deadlock a holder whose section reads a file while a fifth
 * section waits. The thread hands its result back through a thread-safe function, which also
 * keeps the event loop alive while the wait lasts, as a pending timer does.
 *
 * An AbortSignal cancels the wait (lib/index.cjs calls cancel()); so does the environment's
 * end. In both cases nothing is left behind: a lock granted just as the wait was cancelled is
 * released before the promise is rejected.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

/* Marks the tokens this addon made: an external from elsewhere is refused, not followed. */
static const napi_type_tag token_tag = { 0x6c6962666c2d6e6fULL, 0x64652d746f6b656eULL };

typedef struct
{
  napi_env                 env;
  FlNodeRequest            request;
  napi_deferred            deferred;
  napi_threadsafe_function done;
  napi_ref                 on_lost;
  GThread                 *thread;
  gulong                   closing_handler;
  FlNodeHeld              *held;
  GError                  *error;
} Job;

static void
job_free (Job *job)
{
  FlNodeEnv *fenv = (FlNodeEnv *) job->request.owner;

  if (job->closing_handler != 0)
    g_cancellable_disconnect (fl_node_env_get_closing (fenv), job->closing_handler);
  g_clear_pointer (&job->held, fl_node_held_unref);
  g_clear_error (&job->error);
  fl_node_request_clear (&job->request);
  g_free (job);
}

static gpointer
job_run (gpointer data)
{
  Job *job = data;

  job->held = fl_node_acquire (&job->request, &job->error);
  /* Cancelled while it was granted: the caller no longer wants it. */
  if (job->held != NULL && g_cancellable_is_cancelled (job->request.cancellable))
    {
      g_clear_pointer (&job->held, fl_node_held_unref);
      g_set_error (&job->error, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                   "The wait for the lock of %s was cancelled", job->request.target);
    }
  napi_call_threadsafe_function (job->done, job, napi_tsfn_blocking);
  napi_release_threadsafe_function (job->done, napi_tsfn_release);
  return NULL;
}

/* The environment goes while the wait runs: end it, and wait for its thread, before the
 * thread-safe function goes (this hook was registered after it, so runs before it). The
 * result then reaches job_done() with no environment, which drops it. */
static void
job_env_cleanup (void *data)
{
  Job *job = data;

  g_cancellable_cancel (job->request.cancellable);
  g_thread_join (g_steal_pointer (&job->thread));
}

static void
job_done (napi_env   env,
          napi_value js_callback,
          void      *context,
          void      *data)
{
  Job *job = data;
  napi_value value = NULL, on_lost = NULL;

  if (job == NULL)
    return;
  if (env == NULL)
    {
      job_free (job);   /* the environment is gone: the lock, if any, is released */
      return;
    }
  napi_remove_env_cleanup_hook (env, job_env_cleanup, job);
  if (job->thread != NULL)
    g_thread_join (g_steal_pointer (&job->thread));

  if (job->held != NULL)
    {
      if (job->on_lost != NULL)
        napi_get_reference_value (env, job->on_lost, &on_lost);
      value = fl_node_wrap_held (env, g_steal_pointer (&job->held), on_lost);
    }
  if (value != NULL)
    napi_resolve_deferred (env, job->deferred, value);
  else
    {
      if (job->error == NULL)
        g_set_error (&job->error, FL_ERROR, FL_ERROR_FAILED,
                     "The lock of %s was granted but could not be handed to JavaScript",
                     job->request.target);
      value = fl_node_error_new (env, job->error, job->request.target, NULL);
      if (value == NULL)
        napi_get_and_clear_last_exception (env, &value);
      napi_reject_deferred (env, job->deferred, value);
    }
  if (job->on_lost != NULL)
    napi_delete_reference (env, job->on_lost);
  job_free (job);
}

static void
cancellable_free (napi_env env,
                  void    *data,
                  void    *hint)
{
  g_object_unref (data);
}

static void
cancel_job (GCancellable *closing,
            gpointer      data)
{
  g_cancellable_cancel (data);
}

/* acquireAsync(targetPath, options, onLost): [promise of a handle, a token for cancel()]. */
napi_value
fl_node_acquire_async (napi_env           env,
                       napi_callback_info info)
{
  napi_value args[3] = { NULL, NULL, NULL };
  size_t argc = G_N_ELEMENTS (args);
  napi_value promise, token, name, result;
  napi_valuetype type = napi_undefined;
  FlNodeEnv *fenv = fl_node_env_get (env);
  Job *job;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, args, NULL, NULL));
  job = g_new0 (Job, 1);
  if (!fl_node_get_request (env, args[0], args[1], &job->request))
    {
      g_free (job);
      return NULL;
    }
  job->env = env;
  job->request.owner = fenv;
  job->request.wait_for_self = TRUE;   /* behind this thread's own section, which goes on */
  job->request.cancellable = g_cancellable_new ();
  if (args[2] != NULL && napi_typeof (env, args[2], &type) == napi_ok && type == napi_function)
    napi_create_reference (env, args[2], 1, &job->on_lost);

  if (napi_create_promise (env, &job->deferred, &promise) != napi_ok
      || napi_create_external (env, g_object_ref (job->request.cancellable), cancellable_free,
                               NULL, &token) != napi_ok
      || napi_type_tag_object (env, token, &token_tag) != napi_ok
      || napi_create_string_utf8 (env, "libfl acquire", NAPI_AUTO_LENGTH, &name) != napi_ok
      || napi_create_threadsafe_function (env, NULL, NULL, name, 0, 1, NULL, NULL, NULL,
                                          job_done, &job->done) != napi_ok)
    {
      if (job->on_lost != NULL)
        napi_delete_reference (env, job->on_lost);
      job_free (job);
      return NULL;
    }
  job->closing_handler = g_cancellable_connect (fl_node_env_get_closing (fenv),
                                                G_CALLBACK (cancel_job),
                                                g_object_ref (job->request.cancellable),
                                                g_object_unref);
  napi_add_env_cleanup_hook (env, job_env_cleanup, job);
  job->thread = g_thread_new ("fl-node-wait", job_run, job);

  FL_NODE_CALL (env, napi_create_array_with_length (env, 2, &result));
  FL_NODE_CALL (env, napi_set_element (env, result, 0, promise));
  FL_NODE_CALL (env, napi_set_element (env, result, 1, token));
  return result;
}

/* cancel(token): ends the wait; its promise is rejected with an AbortError. */
napi_value
fl_node_cancel (napi_env           env,
                napi_callback_info info)
{
  napi_value arg = NULL;
  size_t argc = 1;
  napi_valuetype type = napi_undefined;
  void *cancellable = NULL;
  bool tagged = false;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, &arg, NULL, NULL));
  if (arg != NULL)
    napi_typeof (env, arg, &type);

  if (type == napi_external)
    napi_check_object_type_tag (env, arg, &token_tag, &tagged);
  if (!tagged || napi_get_value_external (env, arg, &cancellable) != napi_ok)
    {
      fl_node_throw_type_error (env, "token", "a token returned by acquireAsync()", arg);
      return NULL;
    }
  g_cancellable_cancel (cancellable);
  return NULL;
}
