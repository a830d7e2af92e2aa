/* fl-node-value.c: JavaScript arguments in, JavaScript errors out
 *
 * Bad input never crashes the process: a wrong type is a TypeError (ERR_INVALID_ARG_TYPE), a
 * number out of range a RangeError (ERR_OUT_OF_RANGE), as Node's own APIs throw them; a libfl
 * error is an Error whose code names it (the table below, docs/node.md "Errors"), with the
 * target as `path` and the lock file as `lockPath`.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

#include <math.h>
#include <string.h>

static const char *
type_name (napi_env   env,
           napi_value value)
{
  napi_valuetype type = napi_undefined;
  static const char *const names[] = {
    [napi_undefined] = "undefined", [napi_null] = "null", [napi_boolean] = "boolean",
    [napi_number] = "number", [napi_string] = "string", [napi_symbol] = "symbol",
    [napi_object] = "object", [napi_function] = "function", [napi_external] = "external",
    [napi_bigint] = "bigint",
  };

  if (value == NULL || napi_typeof (env, value, &type) != napi_ok
      || (gsize) type >= G_N_ELEMENTS (names))
    return "undefined";
  return names[type];
}

void
fl_node_throw_type_error (napi_env    env,
                          const char *name,
                          const char *expected,
                          napi_value  got)
{
  g_autofree char *message = g_strdup_printf ("The \"%s\" argument must be %s. Received %s",
                                              name, expected, type_name (env, got));

  napi_throw_type_error (env, "ERR_INVALID_ARG_TYPE", message);
}

static gboolean
is_type (napi_env        env,
         napi_value      value,
         napi_valuetype  wanted)
{
  napi_valuetype type;

  return value != NULL && napi_typeof (env, value, &type) == napi_ok && type == wanted;
}

/* A string without NUL bytes: a path cannot hold one, and C would cut it there. */
gboolean
fl_node_get_target (napi_env     env,
                    napi_value   value,
                    const char  *name,
                    char       **out)
{
  size_t length = 0;
  char *text;

  if (!is_type (env, value, napi_string))
    {
      fl_node_throw_type_error (env, name, "of type string", value);
      return FALSE;
    }
  if (napi_get_value_string_utf8 (env, value, NULL, 0, &length) != napi_ok)
    return FALSE;
  text = g_malloc (length + 1);
  if (napi_get_value_string_utf8 (env, value, text, length + 1, &length) != napi_ok)
    {
      g_free (text);
      return FALSE;
    }
  if (strlen (text) != length)
    {
      g_autofree char *message = g_strdup_printf ("The \"%s\" argument must be a string "
                                                  "without null bytes", name);

      g_free (text);
      napi_throw_type_error (env, "ERR_INVALID_ARG_VALUE", message);
      return FALSE;
    }
  *out = text;
  return TRUE;
}

/* @options may be undefined or null: the defaults. Anything else must be an object. */
static gboolean
get_option (napi_env     env,
            napi_value   options,
            const char  *name,
            napi_value  *out)
{
  napi_valuetype type = napi_undefined;

  *out = NULL;
  if (options == NULL || napi_typeof (env, options, &type) != napi_ok
      || type == napi_undefined || type == napi_null)
    return TRUE;
  if (type != napi_object && type != napi_function)
    {
      fl_node_throw_type_error (env, "options", "of type object", options);
      return FALSE;
    }
  if (napi_get_named_property (env, options, name, out) != napi_ok)
    return FALSE;
  if (is_type (env, *out, napi_undefined))
    *out = NULL;
  return TRUE;
}

/* A duration in milliseconds: a number >= 0 (Infinity: for ever), or absent. */
static gboolean
get_ms_option (napi_env    env,
               napi_value  options,
               const char *name,
               gboolean   *present,
               double     *out)
{
  napi_value value;

  *present = FALSE;
  if (!get_option (env, options, name, &value))
    return FALSE;
  if (value == NULL)
    return TRUE;
  if (!is_type (env, value, napi_number))
    {
      g_autofree char *what = g_strdup_printf ("options.%s", name);

      fl_node_throw_type_error (env, what, "of type number", value);
      return FALSE;
    }
  napi_get_value_double (env, value, out);
  if (!(*out >= 0))   /* also NaN, which the module's loop read as "time is up" */
    {
      g_autofree char *message = g_strdup_printf ("The value of \"options.%s\" is out of "
                                                  "range. It must be >= 0 or Infinity. "
                                                  "Received %g", name, *out);

      napi_throw_range_error (env, "ERR_OUT_OF_RANGE", message);
      return FALSE;
    }
  *present = TRUE;
  return TRUE;
}

gboolean
fl_node_get_bool_option (napi_env    env,
                         napi_value  options,
                         const char *name,
                         gboolean   *out)
{
  napi_value value;
  bool b = false;

  if (!get_option (env, options, name, &value))
    return FALSE;
  if (value == NULL)
    return TRUE;
  if (!is_type (env, value, napi_boolean))
    {
      g_autofree char *what = g_strdup_printf ("options.%s", name);

      fl_node_throw_type_error (env, what, "of type boolean", value);
      return FALSE;
    }
  napi_get_value_bool (env, value, &b);
  *out = b;
  return TRUE;
}

static gint64
ms_to_gint64 (double ms)
{
  return ms >= (double) G_MAXINT64 / 2 ? G_MAXINT64 / 2 : (gint64) ms;
}

/* The module's options, with its defaults, as FlLockOptions. */
gboolean
fl_node_get_request (napi_env       env,
                     napi_value     target,
                     napi_value     options,
                     FlNodeRequest *request)
{
  gboolean present;
  double ms;

  memset (request, 0, sizeof *request);
  if (!fl_node_get_target (env, target, "targetPath", &request->target))
    return FALSE;
  request->options = fl_lock_options_new ();
  /* The module makes the target's directory when it is missing. */
  fl_lock_options_set_create_dirs (request->options, TRUE);

  request->timeout_ms = FL_DEFAULT_TIMEOUT_MS;
  if (!get_ms_option (env, options, "timeoutMs", &present, &ms))
    goto fail;
  if (present)
    request->timeout_ms = isinf (ms) ? -1 : ms_to_gint64 (ms);

  /* The module looked again every retryIntervalMs; libfl wakes on the release itself and
   * backs off where it cannot watch: the interval caps that backoff, so a waiter never
   * looks less often than the module's caller asked. */
  if (!get_ms_option (env, options, "retryIntervalMs", &present, &ms))
    goto fail;
  if (present && !isinf (ms))
    fl_lock_options_set_backoff_ms (request->options, 1, MAX (ms_to_gint64 (ms), 1));

  if (!get_ms_option (env, options, "staleAfterMs", &present, &ms))
    goto fail;
  if (present)
    fl_lock_options_set_stale_after_ms (request->options,
                                        isinf (ms) ? FL_STALE_NEVER : ms_to_gint64 (ms));

  /* etcd: the lease's TTL in seconds. */
  if (!get_ms_option (env, options, "leaseTtlS", &present, &ms))
    goto fail;
  if (present)
    fl_lock_options_set_lease_ttl_s (request->options, (guint) CLAMP (ms, 1, 3600 * 24));
  return TRUE;

fail:
  fl_node_request_clear (request);
  return FALSE;
}

static const char *
code_for (const GError *error)
{
  static const char *const fl_codes[] = {
    [FL_ERROR_FAILED] = "ELOCKFAILED",
    [FL_ERROR_BUSY] = "ELOCKBUSY",
    [FL_ERROR_TIMEOUT] = "ELOCKTIMEOUT",
    [FL_ERROR_LOST] = "ELOCKLOST",
    [FL_ERROR_INVALID_TARGET] = "ELOCKINVALID",
    [FL_ERROR_NOT_DIRECTORY] = "ELOCKNOTDIR",
    [FL_ERROR_PERMISSION] = "ELOCKPERM",
    [FL_ERROR_FOREIGN] = "ELOCKFOREIGN",
    [FL_ERROR_NOT_STALE] = "ELOCKNOTSTALE",
    [FL_ERROR_CHANGED] = "ELOCKCHANGED",
    [FL_ERROR_NO_SPACE] = "ELOCKNOSPC",
    [FL_ERROR_NOT_SUPPORTED] = "ELOCKNOTSUP",
    [FL_ERROR_HELD_BY_SELF] = "ELOCKHELDBYSELF",
  };

  if (error->domain == FL_ERROR && error->code >= 0
      && (gsize) error->code < G_N_ELEMENTS (fl_codes))
    return fl_codes[error->code];
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return "ABORT_ERR";   /* Node's code for a wait an AbortSignal ended */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    return "ENOENT";
  return "ELOCKFAILED";
}

static void
set_string (napi_env    env,
            napi_value  object,
            const char *name,
            const char *text)
{
  napi_value value;

  if (text != NULL && napi_create_string_utf8 (env, text, NAPI_AUTO_LENGTH, &value) == napi_ok)
    napi_set_named_property (env, object, name, value);
}

napi_value
fl_node_error_new (napi_env      env,
                   const GError *error,
                   const char   *target,
                   const char   *lock_path)
{
  g_autofree char *own_lock_path = NULL;
  napi_value code, message, result;

  if (lock_path == NULL && target != NULL)
    lock_path = own_lock_path = fl_lock_path_for (target);
  FL_NODE_CALL (env, napi_create_string_utf8 (env, code_for (error), NAPI_AUTO_LENGTH, &code));
  FL_NODE_CALL (env, napi_create_string_utf8 (env, error->message, NAPI_AUTO_LENGTH, &message));
  FL_NODE_CALL (env, napi_create_error (env, code, message, &result));
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    set_string (env, result, "name", "AbortError");
  set_string (env, result, "path", target);
  set_string (env, result, "lockPath", lock_path);
  return result;
}

void
fl_node_throw_gerror (napi_env      env,
                      const GError *error,
                      const char   *target,
                      const char   *lock_path)
{
  napi_value value = fl_node_error_new (env, error, target, lock_path);

  if (value != NULL)
    napi_throw (env, value);
}

napi_value
fl_node_string_or_null (napi_env    env,
                        const char *text)
{
  napi_value value;

  if (text == NULL)
    FL_NODE_CALL (env, napi_get_null (env, &value));
  else
    {
      /* JavaScript strings are UTF-16: a name that is not UTF-8 shows U+FFFD where its bad
       * bytes were, as in flctl's JSON. */
      g_autofree char *valid = g_utf8_make_valid (text, -1);

      FL_NODE_CALL (env, napi_create_string_utf8 (env, valid, NAPI_AUTO_LENGTH, &value));
    }
  return value;
}

napi_value
fl_node_int_or_null (napi_env env,
                     gboolean known,
                     gint64   value)
{
  napi_value result;

  if (!known)
    FL_NODE_CALL (env, napi_get_null (env, &result));
  else
    FL_NODE_CALL (env, napi_create_int64 (env, value, &result));
  return result;
}

/* FALSE when @value is NULL (its making failed, an exception pending) or cannot be set. */
gboolean
fl_node_set (napi_env    env,
             napi_value  object,
             const char *name,
             napi_value  value)
{
  return value != NULL && napi_set_named_property (env, object, name, value) == napi_ok;
}
