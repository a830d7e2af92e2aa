/* fl-options-private.h: the options' fields, read by the rest of the library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-options.h"

G_BEGIN_DECLS

struct _FlLockOptions
{
  gint64   timeout_ms;
  gint64   stale_after_ms;
  gint64   backoff_min_ms;
  gint64   backoff_max_ms;
  gboolean create_dirs;
  guint    lease_ttl_s;
  /* etcd TLS and authentication; NULL: the FL_ETCD_* environment decides (fl-etcd-auth.c).
   * Read by the etcd module: this structure is part of what fl-backend-module-private.h
   * checks by libfl's version. */
  char    *etcd_ca_file;
  char    *etcd_cert_file;
  char    *etcd_key_file;
  char    *etcd_user;
  char    *etcd_password_file;
};

/* @options may be NULL: the defaults. Never returns NULL. */
const FlLockOptions *_fl_lock_options_or_default (const FlLockOptions *options);

/* The values in microseconds, saturated: none of them overflows, whatever was set. */

/* The monotonic deadline of a wait started at @start_us, or -1 for forever. */
gint64 _fl_lock_options_deadline_us    (const FlLockOptions *options,
                                        gint64               start_us);
/* stale_after in us, G_MAXINT64 for FL_STALE_NEVER. */
gint64 _fl_lock_options_stale_after_us (const FlLockOptions *options);
/* When a non-PID lock written at @mtime_us turns stale, G_MAXINT64 for never. */
gint64 _fl_lock_options_stale_at_us    (const FlLockOptions *options,
                                        gint64               mtime_us);
/* The backoff bounds, clamped to FL_BACKOFF_LIMIT_MS. */
void   _fl_lock_options_backoff_us     (const FlLockOptions *options,
                                        gint64              *min_us,
                                        gint64              *max_us);

G_END_DECLS
