/* fl-node-snapshot.c: status(), scan(), isLocked(), lockDirFor(): what a lock is now
 *
 * status() and scan() return plain objects with the members, names and values of flctl's
 * JSON records (`flctl status -j`, `flctl list -j`; docs/flctl.1, JSON OUTPUT), so a script
 * moves between the two without a mapping. This file is their one copy in JavaScript; the
 * test compares it with flctl's own output member by member (tests/node).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

#include <string.h>

/* docs/flctl.1: the "schema" member of every top-level record. */
#define FL_NODE_JSON_SCHEMA 1

static napi_value
boolean (napi_env env,
         gboolean value)
{
  napi_value result;

  FL_NODE_CALL (env, napi_get_boolean (env, value, &result));
  return result;
}

static napi_value
null_value (napi_env env)
{
  napi_value result;

  FL_NODE_CALL (env, napi_get_null (env, &result));
  return result;
}

static napi_value
iso8601_or_null (napi_env env,
                 gint64   unix_us)
{
  g_autoptr(GDateTime) time = NULL;
  g_autofree char *text = NULL;

  if (unix_us > 0)
    time = g_date_time_new_from_unix_utc (unix_us / G_USEC_PER_SEC);
  if (time != NULL)
    text = g_date_time_format (time, "%Y-%m-%dT%H:%M:%SZ");
  return fl_node_string_or_null (env, text);
}

static napi_value snapshot_to_object (napi_env env, FlSnapshot *snapshot, gint64 now_us,
                                      gboolean top_level);

static gboolean
add_etcd_members (napi_env    env,
                  napi_value  object,
                  FlSnapshot *snapshot,
                  gint64      now_us)
{
  gint64 lease = snapshot != NULL ? fl_snapshot_get_lease_id (snapshot) : 0;
  gint64 ttl = snapshot != NULL ? fl_snapshot_get_lease_ttl (snapshot) : -1;
  GPtrArray *waiters = snapshot != NULL ? fl_snapshot_get_waiters (snapshot) : NULL;
  g_autofree char *lease_hex = lease != 0 ? g_strdup_printf ("%" G_GINT64_MODIFIER "x", lease)
                                          : NULL;
  napi_value array;

  if (!fl_node_set (env, object, "host",
            fl_node_string_or_null (env, snapshot != NULL ? fl_snapshot_get_host (snapshot) : NULL))
      || !fl_node_set (env, object, "lease", fl_node_string_or_null (env, lease_hex))
      || !fl_node_set (env, object, "lease_ttl_s", fl_node_int_or_null (env, lease != 0 && ttl >= 0, ttl))
      || !fl_node_set (env, object, "token",
               fl_node_int_or_null (env, lease != 0,
                                    lease != 0 ? (gint64) fl_snapshot_get_fencing_token (snapshot) : 0))
      || !fl_node_set (env, object, "revision",
               fl_node_int_or_null (env, lease != 0,
                                    lease != 0 ? fl_snapshot_get_revision (snapshot) : 0))
      || !fl_node_set (env, object, "waiting",
               boolean (env, snapshot != NULL && fl_snapshot_get_waiting (snapshot))))
    return FALSE;
  if (waiters == NULL)
    return fl_node_set (env, object, "waiters", null_value (env));
  if (napi_create_array_with_length (env, waiters->len, &array) != napi_ok)
    return FALSE;
  for (guint i = 0; i < waiters->len; i++)
    {
      napi_value waiter = snapshot_to_object (env, waiters->pdata[i], now_us, FALSE);

      if (waiter == NULL || napi_set_element (env, array, i, waiter) != napi_ok)
        return FALSE;
    }
  return fl_node_set (env, object, "waiters", array);
}

static gboolean
add_owner_and_holder_members (napi_env    env,
                              napi_value  object,
                              FlSnapshot *snapshot)
{
  gint64 since = snapshot != NULL ? fl_snapshot_get_owner_since (snapshot) : 0;
  int keeper_pid = snapshot != NULL ? fl_snapshot_get_keeper_pid (snapshot) : 0;

  return fl_node_set (env, object, "format",
              fl_node_string_or_null (env, snapshot != NULL
                                      ? fl_lock_format_to_string (fl_snapshot_get_lock_format (snapshot))
                                      : NULL))
    && fl_node_set (env, object, "owner_user",
            fl_node_string_or_null (env, snapshot != NULL ? fl_snapshot_get_owner_user (snapshot) : NULL))
    && fl_node_set (env, object, "owner_name",
            fl_node_string_or_null (env, snapshot != NULL ? fl_snapshot_get_owner_name (snapshot) : NULL))
    && fl_node_set (env, object, "owner_since_s", fl_node_int_or_null (env, since != 0, since / G_USEC_PER_SEC))
    && fl_node_set (env, object, "holder_exited",
            boolean (env, snapshot != NULL && fl_snapshot_get_holder_exited (snapshot)))
    && fl_node_set (env, object, "holder_stopped",
            boolean (env, snapshot != NULL && fl_snapshot_get_holder_stopped (snapshot)))
    && fl_node_set (env, object, "keeper_pid", fl_node_int_or_null (env, keeper_pid > 0, keeper_pid))
    && fl_node_set (env, object, "keeper_process",
            fl_node_string_or_null (env, snapshot != NULL ? fl_snapshot_get_keeper_name (snapshot) : NULL));
}

static napi_value
snapshot_to_object (napi_env    env,
                    FlSnapshot *snapshot,
                    gint64      now_us,
                    gboolean    top_level)
{
  FlKernelLock kernel_lock = fl_snapshot_get_kernel_lock (snapshot);
  int pid = fl_snapshot_get_pid (snapshot);
  gint64 process_uid = fl_snapshot_get_process_uid (snapshot);
  gint64 file_uid = fl_snapshot_get_file_uid (snapshot);
  napi_value object;

  FL_NODE_CALL (env, napi_create_object (env, &object));
  if (!fl_node_set (env, object, "path", fl_node_string_or_null (env, fl_snapshot_get_path (snapshot)))
      || !fl_node_set (env, object, "target", fl_node_string_or_null (env, fl_snapshot_get_target (snapshot)))
      || !fl_node_set (env, object, "kind",
               fl_node_string_or_null (env, fl_entry_kind_to_string (fl_snapshot_get_kind (snapshot))))
      || !fl_node_set (env, object, "state",
               fl_node_string_or_null (env, fl_entry_state_to_string (fl_snapshot_get_state (snapshot))))
      || !fl_node_set (env, object, "pid", fl_node_int_or_null (env, pid > 0, pid))
      || !fl_node_set (env, object, "process", fl_node_string_or_null (env, fl_snapshot_get_process_name (snapshot)))
      || !fl_node_set (env, object, "cmdline", fl_node_string_or_null (env, fl_snapshot_get_process_cmdline (snapshot)))
      || !fl_node_set (env, object, "process_uid", fl_node_int_or_null (env, pid > 0 && process_uid >= 0, process_uid))
      || !fl_node_set (env, object, "liveness",
               fl_node_string_or_null (env, fl_liveness_to_string (fl_snapshot_get_liveness (snapshot))))
      || !fl_node_set (env, object, "kernel_lock", kernel_lock == FL_KERNEL_LOCK_UNKNOWN
                                           ? null_value (env)
                                           : boolean (env, kernel_lock == FL_KERNEL_LOCK_HELD))
      || !fl_node_set (env, object, "stale", boolean (env, fl_snapshot_get_stale (snapshot)))
      || !fl_node_set (env, object, "reason", fl_node_string_or_null (env, fl_snapshot_get_reason (snapshot)))
      || !fl_node_set (env, object, "content", fl_node_string_or_null (env, fl_snapshot_get_content (snapshot)))
      || !fl_node_set (env, object, "file_uid", fl_node_int_or_null (env, file_uid >= 0, file_uid))
      || !fl_node_set (env, object, "mtime", iso8601_or_null (env, fl_snapshot_get_mtime (snapshot)))
      || !fl_node_set (env, object, "age_s",
               fl_node_int_or_null (env, TRUE,
                                    MAX (fl_snapshot_get_age_at (snapshot, now_us), 0) / G_USEC_PER_SEC))
      || !add_etcd_members (env, object, snapshot, now_us)
      || !add_owner_and_holder_members (env, object, snapshot))
    return NULL;
  if (top_level && !fl_node_set (env, object, "schema", fl_node_int_or_null (env, TRUE, FL_NODE_JSON_SCHEMA)))
    return NULL;
  return object;
}

/* flctl's record of a target nobody holds: the same members. */
static napi_value
unlocked_to_object (napi_env    env,
                    const char *target)
{
  gboolean etcd = g_str_has_prefix (target, "etcd://") || g_str_has_prefix (target, "etcds://");
  g_autofree char *path = etcd ? g_strdup (target) : fl_lock_path_for (target);
  napi_value object;

  FL_NODE_CALL (env, napi_create_object (env, &object));
  if (!fl_node_set (env, object, "path", fl_node_string_or_null (env, path))
      || !fl_node_set (env, object, "target", fl_node_string_or_null (env, target))
      || !fl_node_set (env, object, "kind", fl_node_string_or_null (env, "lock"))
      || !fl_node_set (env, object, "state", fl_node_string_or_null (env, "unlocked"))
      || !fl_node_set (env, object, "pid", null_value (env))
      || !fl_node_set (env, object, "process", null_value (env))
      || !fl_node_set (env, object, "cmdline", null_value (env))
      || !fl_node_set (env, object, "process_uid", null_value (env))
      || !fl_node_set (env, object, "liveness", fl_node_string_or_null (env, "unknown"))
      || !fl_node_set (env, object, "kernel_lock", null_value (env))
      || !fl_node_set (env, object, "stale", boolean (env, FALSE))
      || !fl_node_set (env, object, "reason",
               fl_node_string_or_null (env, etcd ? "not locked: no key is queued for it in etcd"
                                                 : "not locked: the lock file does not exist"))
      || !fl_node_set (env, object, "content", null_value (env))
      || !fl_node_set (env, object, "file_uid", null_value (env))
      || !fl_node_set (env, object, "mtime", null_value (env))
      || !fl_node_set (env, object, "age_s", null_value (env))
      || !add_etcd_members (env, object, NULL, 0)
      || !add_owner_and_holder_members (env, object, NULL)
      || !fl_node_set (env, object, "schema", fl_node_int_or_null (env, TRUE, FL_NODE_JSON_SCHEMA)))
    return NULL;
  return object;
}

/* As flctl status: a PATH libfl would have written (T.lock, a temp, a graveyard) is that
 * file; anything else is a target, whose lock is T.lock. */
static FlSnapshot *
snapshot_for_path (const char  *path,
                   GError     **error)
{
  g_autofree char *name = g_path_get_basename (path);
  FlEntryKind kind;
  gboolean etcd = g_str_has_prefix (path, "etcd://") || g_str_has_prefix (path, "etcds://");

  if (!etcd && fl_entry_kind_for_name (name, &kind))
    return fl_snapshot_new (path, NULL, error);
  return fl_snapshot_new_for_target (path, NULL, error);
}

/* The target whose lock PATH would be when nothing is there (flctl-status.c's rule). */
static char *
unlocked_target_for (const char *path)
{
  g_autofree char *directory = NULL;
  g_autofree char *name = g_path_get_basename (path);
  FlEntryKind kind;

  if (g_str_has_prefix (path, "etcd://") || g_str_has_prefix (path, "etcds://"))
    return g_strdup (path);
  directory = g_path_get_dirname (path);
  if (!g_file_test (directory, G_FILE_TEST_IS_DIR))
    return NULL;
  if (!fl_entry_kind_for_name (name, &kind))
    return g_strdup (path);
  if (g_str_has_suffix (path, ".lock"))
    return g_strndup (path, strlen (path) - strlen (".lock"));
  return NULL;
}

/* status(path): one record. */
napi_value
fl_node_status (napi_env           env,
                napi_callback_info info)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autofree char *path = NULL;
  g_autofree char *unlocked = NULL;
  napi_value arg = NULL;
  size_t argc = 1;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, &arg, NULL, NULL));
  if (!fl_node_get_target (env, arg, "path", &path))
    return NULL;
  snapshot = snapshot_for_path (path, &error);
  if (snapshot != NULL)
    return snapshot_to_object (env, snapshot, g_get_real_time (), TRUE);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    unlocked = unlocked_target_for (path);
  if (unlocked != NULL)
    return unlocked_to_object (env, unlocked);
  fl_node_throw_gerror (env, error, path, NULL);
  return NULL;
}

static int
compare_by_path (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (fl_snapshot_get_path (*(FlSnapshot * const *) a),
                 fl_snapshot_get_path (*(FlSnapshot * const *) b));
}

/* scan(dir, { recursive }): the records of every lock, temp and graveyard file, sorted by
 * path. Parts of the tree that could not be read are the array's `errors` (Error objects with
 * code and path), so a listing is never silently incomplete. */
napi_value
fl_node_scan (napi_env           env,
              napi_callback_info info)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GPtrArray) unreadable = NULL;
  g_autofree char *directory = NULL;
  napi_value args[2] = { NULL, NULL };
  size_t argc = G_N_ELEMENTS (args);
  gboolean recursive = FALSE;
  napi_value result, errors;
  gint64 now;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, args, NULL, NULL));
  if (!fl_node_get_target (env, args[0], "dir", &directory)
      || !fl_node_get_bool_option (env, args[1], "recursive", &recursive))
    return NULL;
  found = fl_scan_directory_full (directory, recursive ? FL_SCAN_RECURSIVE : FL_SCAN_NONE,
                                  NULL, NULL, &unreadable, &error);
  if (found == NULL)
    {
      fl_node_throw_gerror (env, error, directory, NULL);
      return NULL;
    }
  g_ptr_array_sort (found, compare_by_path);
  now = g_get_real_time ();
  FL_NODE_CALL (env, napi_create_array_with_length (env, found->len, &result));
  for (guint i = 0; i < found->len; i++)
    {
      napi_value record = snapshot_to_object (env, found->pdata[i], now, TRUE);

      if (record == NULL)
        return NULL;
      FL_NODE_CALL (env, napi_set_element (env, result, i, record));
    }
  FL_NODE_CALL (env, napi_create_array_with_length (env, unreadable->len, &errors));
  for (guint i = 0; i < unreadable->len; i++)
    {
      napi_value e = fl_node_error_new (env, unreadable->pdata[i], NULL, NULL);

      if (e == NULL)
        return NULL;
      FL_NODE_CALL (env, napi_set_element (env, errors, i, e));
    }
  if (!fl_node_set (env, result, "errors", errors))
    return NULL;
  return result;
}

/* isLocked(targetPath): held by a live holder now (the module's: the file exists). */
napi_value
fl_node_is_locked (napi_env           env,
                   napi_callback_info info)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *target = NULL;
  napi_value arg = NULL;
  size_t argc = 1;
  gboolean locked;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, &arg, NULL, NULL));
  if (!fl_node_get_target (env, arg, "targetPath", &target))
    return NULL;
  locked = fl_is_locked (target, NULL, &error);
  if (error != NULL)
    {
      fl_node_throw_gerror (env, error, target, NULL);
      return NULL;
    }
  return boolean (env, locked);
}

/* lockDirFor(targetPath): `${targetPath}.lock`, the module's name for the lock file. */
napi_value
fl_node_lock_path_for (napi_env           env,
                       napi_callback_info info)
{
  g_autofree char *target = NULL;
  g_autofree char *path = NULL;
  napi_value arg = NULL;
  size_t argc = 1;

  FL_NODE_CALL (env, napi_get_cb_info (env, info, &argc, &arg, NULL, NULL));
  if (!fl_node_get_target (env, arg, "targetPath", &target))
    return NULL;
  path = fl_lock_path_for (target);
  return fl_node_string_or_null (env, path);
}
