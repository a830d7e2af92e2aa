/* fl-error.h: the FL_ERROR domain
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <glib.h>

#include "fl-version-macros.h"

G_BEGIN_DECLS

#define FL_ERROR (fl_error_quark ())

/**
 * FlError:
 * @FL_ERROR_FAILED: an I/O error not covered below; the message names the path and the
 *   system's reason.
 * @FL_ERROR_BUSY: fl_lock_try_acquire() found the lock held by a live holder.
 * @FL_ERROR_TIMEOUT: the deadline passed while waiting (the Node module's `ELOCKTIMEOUT`); the
 *   message names the holder's PID and the lock's age.
 * @FL_ERROR_LOST: on release, the lock file is no longer the one this holder created: it was
 *   taken away. Nothing was removed; the message names who holds it now.
 * @FL_ERROR_INVALID_TARGET: the target path cannot name a lock: empty, a trailing slash, too long
 *   for PATH_MAX, or a temp or graveyard name longer than NAME_MAX.
 * @FL_ERROR_NOT_DIRECTORY: the lock's directory is missing (and creating it was not asked for)
 *   or is not a directory.
 * @FL_ERROR_PERMISSION: the lock's directory or file may not be written or read.
 * @FL_ERROR_FOREIGN: the lock path is not a regular file: a directory (another library's lock
 *   format), a symbolic link (never followed), a FIFO, a socket or a device.
 * @FL_ERROR_NOT_STALE: a reclaim was refused because the holder is alive (or cannot be judged).
 * @FL_ERROR_CHANGED: a reclaim was refused because the file is no longer the one the snapshot
 *   saw (another inode, other content, or gone).
 * @FL_ERROR_NO_SPACE: the filesystem is full or over quota; nothing was left behind.
 * @FL_ERROR_NOT_SUPPORTED: this platform cannot do it: fl_list_kernel_locks() where the system
 *   keeps no table of its kernel locks (Windows).
 * @FL_ERROR_HELD_BY_SELF: this process already holds the lock, or another of its threads is
 *   acquiring it: a lock is not re-entrant, and the acquire fails at once instead of waiting
 *   for itself; the message says since when. A forked child is another process: it waits.
 * @FL_ERROR_BACKEND_MISSING: the target names a lock of a backend that is a module (an
 *   `etcd://` target) and the module is not installed or cannot be loaded; the message names
 *   the module file, the directory searched and what to install (docs/backends.md).
 *
 * Error codes of the %FL_ERROR domain. Codes are only ever appended. Waiting operations that are
 * cancelled report %G_IO_ERROR_CANCELLED instead.
 *
 * Since: 0.1
 */
typedef enum
{
  FL_ERROR_FAILED,
  FL_ERROR_BUSY,
  FL_ERROR_TIMEOUT,
  FL_ERROR_LOST,
  FL_ERROR_INVALID_TARGET,
  FL_ERROR_NOT_DIRECTORY,
  FL_ERROR_PERMISSION,
  FL_ERROR_FOREIGN,
  FL_ERROR_NOT_STALE,
  FL_ERROR_CHANGED,
  FL_ERROR_NO_SPACE,
  FL_ERROR_NOT_SUPPORTED,
  FL_ERROR_HELD_BY_SELF,
  FL_ERROR_BACKEND_MISSING,
} FlError;

FL_AVAILABLE_IN_0_1
GQuark fl_error_quark (void);

G_END_DECLS
