/* fl-snapshot-private.h: building snapshots fast, for scans and the directory model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-snapshot.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* Judges @name in the open directory @dir (whose path is @directory, for messages and the
 * snapshot's path) as of @now_us. Without the holder's command line: cheap enough for
 * 100,000 files. G_IO_ERROR_NOT_FOUND when the file went away. */
FlSnapshot *_fl_snapshot_new_at   (FlDir               *dir,
                                   const char          *directory,
                                   const char          *name,
                                   const FlLockOptions *options,
                                   gint64               now_us,
                                   GError             **error);

/* The same, with the holder's command line when @details. */
FlSnapshot *_fl_snapshot_new_full (FlDir               *dir,
                                   const char          *directory,
                                   const char          *name,
                                   const FlLockOptions *options,
                                   gint64               now_us,
                                   gboolean             details,
                                   GError             **error);

/* st_mode of the file as seen, to tell what a foreign entry is. */
guint       _fl_snapshot_get_mode (FlSnapshot          *self);
/* When the judge's age rule turns this not-yet-stale lock stale (its clock, counted from the
 * later of mtime and ctime); 0 when no age rule applies (a PID, an empty file, a process
 * group, FL_STALE_NEVER) or it is stale already. What the model's deadlines must use: a
 * deadline of its own could pass while the judge still says "not stale", and spin. */
gint64      _fl_snapshot_get_stale_at (FlSnapshot        *self);

G_END_DECLS
