/* fl-backend-module-private.h: what libfl gives a backend module, and what the module gives back
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A backend that needs libraries a file lock must not load (etcd's libsoup 3 and json-glib)
 * is a module in FL_BACKENDDIR (fl-backends.c, docs/backends.md). The module links neither
 * libfl-1.so nor the static libfl the tests link: two copies of libfl's types in one process
 * would register FlSnapshot twice. libfl hands it this table of the library's own functions
 * instead, and the module calls libfl only through it. The module is built from the same
 * tree as the library (they ship in one package), so the table is checked by its size and
 * libfl's version, not kept stable across versions.
 */
#pragma once

#include "protocol/fl-content-private.h"
#include "protocol/fl-lock-backend-private.h"
#include "fl-options.h"
#include "protocol/fl-snapshot-private.h"
#include "support/fl-process-private.h"

G_BEGIN_DECLS

typedef struct
{
  gsize                 size;     /* sizeof (FlBackendHost) */
  const char           *version;  /* libfl's PACKAGE_VERSION */

  GQuark               (*error_quark)          (void);
  const FlLockOptions *(*options_or_default)   (const FlLockOptions *options);
  gint64               (*options_deadline_us)  (const FlLockOptions *options,
                                                gint64               start_us);
  FlLockOptions       *(*options_new)          (void);
  FlLockOptions       *(*options_copy)         (const FlLockOptions *options);
  void                 (*options_free)         (FlLockOptions       *options);
  FlSnapshot          *(*snapshot_new_etcd)    (const FlSnapshotEtcd *fields);
  void                 (*snapshot_add_waiter)  (FlSnapshot          *self,
                                                FlSnapshot          *waiter);
  const char          *(*snapshot_get_path)    (FlSnapshot          *self);
  const char          *(*snapshot_get_target)  (FlSnapshot          *self);
  gint64               (*snapshot_get_lease_id) (FlSnapshot         *self);
  guint64              (*snapshot_get_fencing_token) (FlSnapshot    *self);
  void                 (*process_probe)        (int                  pid,
                                                gboolean             details,
                                                FlProcessInfo       *info);
  void                 (*process_info_clear)   (FlProcessInfo       *info);
  int                  (*self_pid)             (void);
  int64_t              (*boottime_now)         (void);
  void                 (*lock_report_lost)     (FlLock              *lock);
  gsize                (*identity_self_record) (char                *buf,
                                                gsize                size);
  FlRecordedProcess    (*identity_probe_record) (const char         *record,
                                                 int                 pid);
  const FlRootFollower *(*root_follower_whole) (void);
} FlBackendHost;

/* The one symbol a backend module exports: its backend, or NULL with @error set (a module
 * from another build of libfl, say). Called once, with the lock of fl-backends.c held. */
#define FL_BACKEND_MODULE_ENTRY "fl_backend_module_load"
typedef const FlLockBackend *(*FlBackendModuleLoad) (const FlBackendHost  *host,
                                                     GError              **error);

G_END_DECLS
