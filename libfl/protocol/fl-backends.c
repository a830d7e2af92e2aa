/* fl-backends.c: which backend holds a target's lock, and the modules that bring backends
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The file protocol is built in. A backend that needs more than GLib (etcd: libsoup 3 and
 * json-glib) is a module in FL_BACKENDDIR, loaded the first time one of its targets is used,
 * so that a program taking file locks never maps an HTTP stack (and a program using libsoup 2
 * does not abort on libsoup 3's symbols). Adding a backend is one folder and one line in
 * `modules` below (docs/backends.md).
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <gmodule.h>

#include "protocol/fl-backend-module-private.h"
#include "fl-error.h"
#include "protocol/fl-lock-private.h"
#include "fl-options-private.h"
#include "platform/fl-platform.h"

typedef struct
{
  const char          *scheme;  /* what a target starts with */
  const char          *module;  /* the file, without G_MODULE_SUFFIX */
  const char          *option;  /* the build option that builds it */
  /* Guarded by modules_mutex; once tried, never tried again. */
  gboolean             tried;
  const FlLockBackend *backend;
  char                *why;     /* why it could not be loaded */
} FlBackendModule;

static FlBackendModule modules[] = {
  { "etcd://", "etcd", "-Detcd=enabled" },
  { "etcds://", "etcd", "-Detcd=enabled" },
};

static GMutex modules_mutex;

static const FlBackendHost host = {
  .size = sizeof (FlBackendHost),
  .version = PACKAGE_VERSION,
  .error_quark = fl_error_quark,
  .options_or_default = _fl_lock_options_or_default,
  .options_deadline_us = _fl_lock_options_deadline_us,
  .options_new = fl_lock_options_new,
  .options_copy = fl_lock_options_copy,
  .options_free = fl_lock_options_free,
  .snapshot_new_etcd = _fl_snapshot_new_etcd,
  .snapshot_add_waiter = _fl_snapshot_add_waiter,
  .snapshot_get_path = fl_snapshot_get_path,
  .snapshot_get_target = fl_snapshot_get_target,
  .snapshot_get_lease_id = fl_snapshot_get_lease_id,
  .snapshot_get_fencing_token = fl_snapshot_get_fencing_token,
  .process_probe = _fl_process_probe,
  .process_info_clear = _fl_process_info_clear,
  .self_pid = _fl_platform_self_pid,
  .boottime_now = _fl_platform_boottime_now,
  .lock_report_lost = _fl_lock_report_lost,
  .identity_self_record = _fl_identity_self_record_without_kernel_lock,
  .identity_probe_record = _fl_identity_probe_record,
  .root_follower_whole = _fl_root_follower_whole,
};

const char *
_fl_backends_dir (void)
{
  const char *dir = g_getenv ("FL_BACKEND_DIR");

  /* As GLib treats GIO_MODULE_DIR: a setuid or setgid program must not run code from a
   * directory its caller chose. */
  if (dir != NULL && dir[0] != '\0' && !_fl_platform_is_privileged ())
    return dir;
  return FL_BACKENDDIR;
}

/* With modules_mutex held. The module stays loaded: its threads and its backend's states
 * outlive any one call. */
static void
load (FlBackendModule *m)
{
  g_autofree char *file = g_strconcat (m->module, ".", G_MODULE_SUFFIX, NULL);
  g_autofree char *path = g_build_filename (_fl_backends_dir (), file, NULL);
  g_autoptr(GError) error = NULL;
  FlBackendModuleLoad entry;
  GModule *module;

  m->tried = TRUE;
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      /* TRANSLATORS: the first %s is a file name (etcd.so), the second a directory, the
       * third a build option (-Detcd=enabled). */
      m->why = g_strdup_printf (_("its module “%s” is not in “%s”: install libfl's %s backend "
                                  "(a distribution ships it in a package of its own; from "
                                  "source, build libfl with %s)"),
                                file, _fl_backends_dir (), m->module, m->option);
      return;
    }
  module = g_module_open (path, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      m->why = g_strdup_printf (_("its module “%s” cannot be loaded: %s"), path,
                                g_module_error ());
      return;
    }
  if (!g_module_symbol (module, FL_BACKEND_MODULE_ENTRY, (gpointer *) &entry) ||
      entry == NULL)
    {
      m->why = g_strdup_printf (_("“%s” is not a libfl backend module (it has no %s)"), path,
                                FL_BACKEND_MODULE_ENTRY);
      g_module_close (module);
      return;
    }
  m->backend = entry (&host, &error);
  if (m->backend == NULL)
    {
      m->why = g_strdup_printf ("%s: %s", path, error->message);
      g_module_close (module);
      return;
    }
  g_module_make_resident (module);
}

static FlBackendModule *
module_for (const char *target)
{
  for (gsize i = 0; i < G_N_ELEMENTS (modules); i++)
    if (g_str_has_prefix (target, modules[i].scheme))
      return &modules[i];
  return NULL;
}

/* The backend that stands in for a module that cannot be loaded: every operation says why. */

static void
set_missing_error (const char  *target,
                   GError     **error)
{
  FlBackendModule *m = module_for (target);

  g_mutex_lock (&modules_mutex);
  g_set_error (error, FL_ERROR, FL_ERROR_BACKEND_MISSING,
               /* TRANSLATORS: the first %s is a target (etcd://...), the second a backend's
                * name (etcd), the third why its module cannot be loaded. */
               _("“%s” is an %s lock, but libfl cannot use that backend: %s"),
               target, m->module, m->why);
  g_mutex_unlock (&modules_mutex);
}

static gpointer
missing_acquire (const char          *target,
                 const FlLockOptions *options,
                 gboolean             wait,
                 GCancellable        *cancellable,
                 GError             **error)
{
  set_missing_error (target, error);
  return NULL;
}

static char *
missing_dup_held_key (const char *target)
{
  return NULL;
}

static gboolean
missing_is_locked (const char          *target,
                   const FlLockOptions *options,
                   GError             **error)
{
  set_missing_error (target, error);
  return FALSE;
}

static FlSnapshot *
missing_snapshot_new (const char          *target,
                      const FlLockOptions *options,
                      GError             **error)
{
  set_missing_error (target, error);
  return NULL;
}

static GPtrArray *
missing_scan (const char          *root,
              gboolean             recursive,
              const FlLockOptions *options,
              GCancellable        *cancellable,
              GPtrArray           *errors,
              GError             **error)
{
  set_missing_error (root, error);
  return NULL;
}

/* Never followed (root_check refuses it): the spelling it was given, for the message. */
static char *
missing_root_path (const char *target)
{
  return g_strdup (target);
}

/* A directory model refuses its root at once, saying what to install. */
static gboolean
missing_root_check (const char          *path,
                    const FlLockOptions *options,
                    GError             **error)
{
  set_missing_error (path, error);
  return FALSE;
}

/* The missing backend never acquires nor makes snapshots, so nothing calls the slots that
 * take a lock's state or a snapshot, and no directory model follows its roots (root_check
 * refuses them): it has no watch_start. */
static const FlLockBackend missing_backend = {
  .name = "missing",
  .acquire = missing_acquire,
  .dup_held_key = missing_dup_held_key,
  .is_locked = missing_is_locked,
  .snapshot_new = missing_snapshot_new,
  .scan = missing_scan,
  .root_path = missing_root_path,
  .root_check = missing_root_check,
  .root_follower = _fl_root_follower_whole,
};

const FlLockBackend *
_fl_lock_backend_for (const char *target)
{
  FlBackendModule *m = module_for (target);
  const FlLockBackend *backend;

  if (m == NULL)
    return &_fl_lock_backend_file;

  g_mutex_lock (&modules_mutex);
  if (!m->tried)
    {
      /* Both schemes of one module share its one load. */
      for (gsize i = 0; i < G_N_ELEMENTS (modules); i++)
        if (modules[i].tried && g_str_equal (modules[i].module, m->module))
          {
            m->tried = TRUE;
            m->backend = modules[i].backend;
            m->why = g_strdup (modules[i].why);
            break;
          }
      if (!m->tried)
        load (m);
    }
  backend = m->backend != NULL ? m->backend : &missing_backend;
  g_mutex_unlock (&modules_mutex);
  return backend;
}
