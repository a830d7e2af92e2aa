/* fl-lock.h: taking and releasing a lock
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <gio/gio.h>

#include "fl-version-macros.h"
#include "fl-options.h"

G_BEGIN_DECLS

#define FL_TYPE_LOCK (fl_lock_get_type ())

FL_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (FlLock, fl_lock, FL, LOCK, GObject)

/**
 * FlLockFunc:
 * @user_data: the data given to fl_with_lock()
 * @error: where the function reports its own failure
 *
 * The critical section run by fl_with_lock() while the lock is held.
 *
 * Returns: %TRUE on success, %FALSE with @error set on failure
 *
 * Since: 0.1
 */
typedef gboolean (*FlLockFunc) (gpointer   user_data,
                                GError   **error);

FL_AVAILABLE_IN_0_1
char       *fl_lock_path_for        (const char           *target);
FL_AVAILABLE_IN_0_1
FlLock     *fl_lock_acquire         (const char           *target,
                                     const FlLockOptions  *options,
                                     GCancellable         *cancellable,
                                     GError              **error);
FL_AVAILABLE_IN_0_1
FlLock     *fl_lock_try_acquire     (const char           *target,
                                     const FlLockOptions  *options,
                                     GError              **error);
FL_AVAILABLE_IN_0_1
void        fl_lock_acquire_async   (const char           *target,
                                     const FlLockOptions  *options,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data);
FL_AVAILABLE_IN_0_1
FlLock     *fl_lock_acquire_finish  (GAsyncResult         *result,
                                     GError              **error);
FL_AVAILABLE_IN_0_1
gboolean    fl_lock_release         (FlLock               *self,
                                     GError              **error);
FL_AVAILABLE_IN_0_1
const char *fl_lock_get_target      (FlLock               *self);
FL_AVAILABLE_IN_0_1
const char *fl_lock_get_path        (FlLock               *self);
FL_AVAILABLE_IN_0_1
gboolean    fl_lock_is_held         (FlLock               *self);
FL_AVAILABLE_IN_0_1
guint64     fl_lock_get_fencing_token (FlLock             *self);
FL_AVAILABLE_IN_0_1
int         fl_lock_dup_fd          (FlLock               *self,
                                     GError              **error);
FL_AVAILABLE_IN_0_1
gboolean    fl_with_lock            (const char           *target,
                                     FlLockFunc            func,
                                     gpointer              user_data,
                                     const FlLockOptions  *options,
                                     GCancellable         *cancellable,
                                     GError              **error);
FL_AVAILABLE_IN_0_1
gboolean    fl_is_locked            (const char           *target,
                                     const FlLockOptions  *options,
                                     GError              **error);

G_END_DECLS
