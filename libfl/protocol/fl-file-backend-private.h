/* fl-file-backend-private.h: the file protocol's inspection slots of its FlLockBackend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The lock operations are in fl-file-lock.c, next to the table; what inspects a lock file
 * lives with the code it shares: the judge (fl-file-backend.c), the walk (model/fl-scan.c)
 * and the guarded reclaim (fl-snapshot-reclaim.c).
 */
#pragma once

#include "protocol/fl-lock-backend-private.h"

G_BEGIN_DECLS

/* fl-file-backend.c */
gboolean    _fl_file_is_locked    (const char           *target,
                                   const FlLockOptions  *options,
                                   GError              **error);
FlSnapshot *_fl_file_snapshot_new (const char           *target,
                                   const FlLockOptions  *options,
                                   GError              **error);
gpointer    _fl_file_watch_start  (const char           *root,
                                   const FlLockOptions  *options,
                                   void                (*changed) (gpointer data),
                                   gpointer              data,
                                   GDestroyNotify        destroy,
                                   GError              **error);
void        _fl_file_watch_stop   (gpointer              watch);

/* model/fl-model-roots.c */
char       *_fl_file_root_path    (const char           *target);
gboolean    _fl_file_root_check   (const char           *path,
                                   const FlLockOptions  *options,
                                   GError              **error);

/* model/fl-model-followers.c: a directory followed file by file */
const FlRootFollower *_fl_file_root_follower (void);

/* model/fl-scan.c */
GPtrArray  *_fl_file_scan         (const char           *root,
                                   gboolean              recursive,
                                   const FlLockOptions  *options,
                                   GCancellable         *cancellable,
                                   GPtrArray            *errors,
                                   GError              **error);

/* fl-snapshot-reclaim.c */
gboolean    _fl_file_reclaim      (FlSnapshot           *snapshot,
                                   const FlLockOptions  *options,
                                   gboolean              forced,
                                   GCancellable         *cancellable,
                                   GError              **error);

G_END_DECLS
