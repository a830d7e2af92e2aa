/* fl-etcd-module.c: the etcd backend as a module: its entry point, and libfl's functions as
 * the module reaches them, through the table libfl gave it (fl-backend-module-private.h)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Only the module is built from this file. The etcd tests link the rest of libfl/etcd/ with
 * the static libfl, whose own functions these names then are.
 */
#include "config.h"

#include <gmodule.h>

#include "protocol/fl-backend-module-private.h"
#include "fl-error.h"
#include "etcd/fl-etcd-private.h"
#include "fl-options-private.h"
#include "platform/fl-platform.h"

static const FlBackendHost *host;

G_MODULE_EXPORT const FlLockBackend *fl_backend_module_load (const FlBackendHost  *libfl,
                                                             GError              **error);

const FlLockBackend *
fl_backend_module_load (const FlBackendHost  *libfl,
                        GError              **error)
{
  /* No translation: libfl's catalogue may be another version's too. */
  if (libfl->size != sizeof (FlBackendHost) || g_strcmp0 (libfl->version, PACKAGE_VERSION) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "this etcd module is from libfl %s, the program runs libfl %s: install the "
                   "etcd module of the same build as libfl", PACKAGE_VERSION, libfl->version);
      return NULL;
    }
  host = libfl;
  return &_fl_lock_backend_etcd;
}

GQuark
fl_error_quark (void)
{
  return host->error_quark ();
}

const FlLockOptions *
_fl_lock_options_or_default (const FlLockOptions *options)
{
  return host->options_or_default (options);
}

gint64
_fl_lock_options_deadline_us (const FlLockOptions *options,
                              gint64               start_us)
{
  return host->options_deadline_us (options, start_us);
}

FlLockOptions *
fl_lock_options_new (void)
{
  return host->options_new ();
}

FlLockOptions *
fl_lock_options_copy (const FlLockOptions *options)
{
  return host->options_copy (options);
}

void
fl_lock_options_free (FlLockOptions *options)
{
  host->options_free (options);
}

FlSnapshot *
_fl_snapshot_new_etcd (const FlSnapshotEtcd *fields)
{
  return host->snapshot_new_etcd (fields);
}

void
_fl_snapshot_add_waiter (FlSnapshot *self,
                         FlSnapshot *waiter)
{
  host->snapshot_add_waiter (self, waiter);
}

const char *
fl_snapshot_get_path (FlSnapshot *self)
{
  return host->snapshot_get_path (self);
}

const char *
fl_snapshot_get_target (FlSnapshot *self)
{
  return host->snapshot_get_target (self);
}

gint64
fl_snapshot_get_lease_id (FlSnapshot *self)
{
  return host->snapshot_get_lease_id (self);
}

guint64
fl_snapshot_get_fencing_token (FlSnapshot *self)
{
  return host->snapshot_get_fencing_token (self);
}

void
_fl_process_probe (int            pid,
                   gboolean       details,
                   FlProcessInfo *info)
{
  host->process_probe (pid, details, info);
}

void
_fl_process_info_clear (FlProcessInfo *info)
{
  host->process_info_clear (info);
}

int
_fl_platform_self_pid (void)
{
  return host->self_pid ();
}

int64_t
_fl_platform_boottime_now (void)
{
  return host->boottime_now ();
}

void
_fl_lock_report_lost (FlLock *lock)
{
  host->lock_report_lost (lock);
}

gsize
_fl_identity_self_record_without_kernel_lock (char  *buf,
                                              gsize  size)
{
  return host->identity_self_record (buf, size);
}

FlRecordedProcess
_fl_identity_probe_record (const char *record,
                           int         pid)
{
  return host->identity_probe_record (record, pid);
}

const FlRootFollower *
_fl_root_follower_whole (void)
{
  return host->root_follower_whole ();
}
