/* fl-node.c: the addon's entry point: the functions lib/index.cjs builds the API from
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-node-private.h"

/* NAPI_MODULE_INIT defines exported functions without a prototype (node_api.h's, not ours);
 * gcc forgives what a system header's macro expands to, clang does not. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
NAPI_MODULE_INIT ()
{
  static const struct
  {
    const char     *name;
    napi_callback   func;
  } functions[] = {
    { "acquireSync", fl_node_acquire_sync },
    { "acquireAsync", fl_node_acquire_async },
    { "cancel", fl_node_cancel },
    { "release", fl_node_release },
    { "withLock", fl_node_with_lock },
    { "lockInfo", fl_node_lock_info },
    { "status", fl_node_status },
    { "scan", fl_node_scan },
    { "isLocked", fl_node_is_locked },
    { "lockPathFor", fl_node_lock_path_for },
  };

  fl_node_env_install (env);
  for (gsize i = 0; i < G_N_ELEMENTS (functions); i++)
    {
      napi_value fn;

      if (napi_create_function (env, functions[i].name, NAPI_AUTO_LENGTH, functions[i].func,
                                NULL, &fn) != napi_ok
          || napi_set_named_property (env, exports, functions[i].name, fn) != napi_ok)
        return NULL;
    }
  return exports;
}
#pragma GCC diagnostic pop
