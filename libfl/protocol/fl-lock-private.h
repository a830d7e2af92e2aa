/* fl-lock-private.h: knobs for tests and the benchmark
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-lock.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* Use the named temp `T.lock.<pid>.<8 hex>.tmp` even where O_TMPFILE works, so that tests
 * cover both paths. The environment variable FL_NAMED_TEMP=1 does the same for a process. */
void     _fl_lock_set_force_named_temp (gboolean force);

/* The inode the lock holds, for tests. */
gboolean _fl_lock_get_inode            (FlLock  *self,
                                        guint64 *dev,
                                        guint64 *ino);

/* Where ::lost is emitted from now on (fl_lock_acquire_finish(): the caller's context). */
void     _fl_lock_set_context          (FlLock       *self,
                                        GMainContext *context);

/* Opens the directory of a lock (step A1), creating it when @create_dirs. */
FlDir   *_fl_open_lock_directory       (const char  *directory,
                                        gboolean     create_dirs,
                                        GError     **error);

G_END_DECLS
