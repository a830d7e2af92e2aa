/* fl-options.h: how long to wait, when a lock is stale, how to back off
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <glib-object.h>

#include "fl-version-macros.h"

G_BEGIN_DECLS

/* Defaults, the same as the Node module's. */

/**
 * FL_DEFAULT_TIMEOUT_MS:
 *
 * How long an acquire waits by default, in milliseconds: 30 s.
 *
 * Since: 0.1
 */
#define FL_DEFAULT_TIMEOUT_MS     30000

/**
 * FL_DEFAULT_STALE_AFTER_MS:
 *
 * How old a lock whose content is not a PID must be to be stale by default, in
 * milliseconds: 30 s.
 *
 * Since: 0.1
 */
#define FL_DEFAULT_STALE_AFTER_MS 30000

/**
 * FL_DEFAULT_BACKOFF_MIN_MS:
 *
 * The first retry interval by default, in milliseconds, where no event can be watched.
 *
 * Since: 0.1
 */
#define FL_DEFAULT_BACKOFF_MIN_MS 1

/**
 * FL_DEFAULT_BACKOFF_MAX_MS:
 *
 * The longest retry interval by default, in milliseconds.
 *
 * Since: 0.1
 */
#define FL_DEFAULT_BACKOFF_MAX_MS 1000

/**
 * FL_DEFAULT_LEASE_TTL_S:
 *
 * The TTL of an etcd lock's lease by default, in seconds.
 *
 * Since: 0.1
 */
#define FL_DEFAULT_LEASE_TTL_S    10

/**
 * FL_TIMEOUT_INFINITE:
 *
 * A timeout that means "wait forever" (fl_lock_options_set_timeout_ms()). Every negative value
 * means the same, and so does any timeout too long for the monotonic clock to count to (about
 * 290,000 years, %G_MAXINT64 included).
 *
 * Since: 0.1
 */
#define FL_TIMEOUT_INFINITE ((gint64) -1)

/**
 * FL_STALE_NEVER:
 *
 * A stale_after that means "never" (fl_lock_options_set_stale_after_ms()): a lock whose
 * content is not a PID is then never taken over automatically, however old (an operator can
 * still reclaim it). Every value from %FL_STALE_AFTER_NEVER_FROM_MS on means the same.
 *
 * Since: 0.1
 */
#define FL_STALE_NEVER G_MAXINT64

/**
 * FL_STALE_AFTER_NEVER_FROM_MS:
 *
 * 100 years, in milliseconds: a stale_after at least this long is %FL_STALE_NEVER.
 *
 * Since: 0.1
 */
#define FL_STALE_AFTER_NEVER_FROM_MS ((gint64) 100 * 36525 * 24 * 3600 * 10)

/**
 * FL_BACKOFF_LIMIT_MS:
 *
 * 24 hours, in milliseconds: the longest backoff honoured; longer ones are this long.
 *
 * Since: 0.1
 */
#define FL_BACKOFF_LIMIT_MS ((gint64) 24 * 3600 * 1000)

#define FL_TYPE_LOCK_OPTIONS (fl_lock_options_get_type ())

/**
 * FlLockOptions:
 *
 * Options of an acquire, an inspection or a reclaim. %NULL wherever options are taken means
 * the defaults. An options value is not shared between threads while it is being changed;
 * once set up, it may be read from any thread.
 *
 * Since: 0.1
 */
typedef struct _FlLockOptions FlLockOptions;

FL_AVAILABLE_IN_0_1
GType          fl_lock_options_get_type          (void) G_GNUC_CONST;
FL_AVAILABLE_IN_0_1
FlLockOptions *fl_lock_options_new               (void);
FL_AVAILABLE_IN_0_1
FlLockOptions *fl_lock_options_copy              (const FlLockOptions *self);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_free              (FlLockOptions       *self);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_timeout_ms    (FlLockOptions       *self,
                                                  gint64               timeout_ms);
FL_AVAILABLE_IN_0_1
gint64         fl_lock_options_get_timeout_ms    (const FlLockOptions *self);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_stale_after_ms (FlLockOptions      *self,
                                                   gint64              stale_after_ms);
FL_AVAILABLE_IN_0_1
gint64         fl_lock_options_get_stale_after_ms (const FlLockOptions *self);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_create_dirs   (FlLockOptions       *self,
                                                  gboolean             create_dirs);
FL_AVAILABLE_IN_0_1
gboolean       fl_lock_options_get_create_dirs   (const FlLockOptions *self);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_backoff_ms    (FlLockOptions       *self,
                                                  gint64               min_ms,
                                                  gint64               max_ms);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_get_backoff_ms    (const FlLockOptions *self,
                                                  gint64              *min_ms,
                                                  gint64              *max_ms);

FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_lease_ttl_s   (FlLockOptions       *self,
                                                  guint                ttl_s);
FL_AVAILABLE_IN_0_1
guint          fl_lock_options_get_lease_ttl_s   (const FlLockOptions *self);

FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_etcd_ca_file  (FlLockOptions       *self,
                                                  const char          *ca_file);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_etcd_client_certificate (FlLockOptions *self,
                                                            const char    *cert_file,
                                                            const char    *key_file);
FL_AVAILABLE_IN_0_1
void           fl_lock_options_set_etcd_user     (FlLockOptions       *self,
                                                  const char          *user,
                                                  const char          *password_file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlLockOptions, fl_lock_options_free)

G_END_DECLS
