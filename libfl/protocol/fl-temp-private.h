/* fl-temp-private.h: the file that becomes the lock
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "protocol/fl-names-private.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

typedef struct
{
  FlHandle  fd;    /* the kernel lock (exclusive) is held on it from creation on */
  char     *name;  /* NULL for an unnamed file (O_TMPFILE), which has none until it is the lock */
  int       pid;   /* the PID it holds: this process's, read once while it was made */
  /* Whether step A3b must look through the lock's name after the link: the kernel lock was
   * taken on a filesystem not known to carry it to every name (FL_FS_LOCKS_CARRIED). */
  gboolean  check_name;
  gboolean  marked;   /* the inode mark of step A3b is set on fd */
  FlFsLocks fs_locks;
} FlTemp;

typedef enum
{
  FL_LINK_HELD,
  FL_LINK_EXISTS,
  FL_LINK_RETRY,   /* the temp went away or /proc is missing: make a named one and retry */
  FL_LINK_FAILED,
} FlLinkResult;

/* Whether to skip O_TMPFILE (FL_NAMED_TEMP=1, or _fl_lock_set_force_named_temp()). */
gboolean     _fl_temp_use_named (void);

/* Step A2: create, take the kernel lock, write the PID, set the identity. When others keep
 * taking shared locks on every new temp, goes on until @deadline_us (monotonic, -1 = none;
 * a try-acquire passes its start) or cancellation. */
gboolean     _fl_temp_create    (FlTemp            *temp,
                                 FlDir             *dir,
                                 const FlLockPath  *lp,
                                 gboolean           named,
                                 gint64             deadline_us,
                                 GCancellable      *cancellable,
                                 GError           **error);

/* Step A3: link it to T.lock; a named temp is removed once linked. Then step A3b, where the
 * filesystem may give the name another kernel inode: @temp->fd may become a handle on the
 * lock opened through its name, holding the kernel lock that others will see. */
FlLinkResult _fl_temp_link      (FlTemp            *temp,
                                 FlDir             *dir,
                                 const FlLockPath  *lp,
                                 GError           **error);

/* Removes a named temp and closes it; nothing is left behind. */
void         _fl_temp_discard   (FlTemp            *temp,
                                 FlDir             *dir);

G_END_DECLS
