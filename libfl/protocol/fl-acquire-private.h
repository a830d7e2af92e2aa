/* fl-acquire-private.h: the acquire loop of the file protocol (docs/protocol.md, section 3)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "protocol/fl-names-private.h"
#include "fl-options.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* What a granted acquire hands the file backend: the lock file T.lock, held. */
typedef struct
{
  FlLockPath  lp;
  FlDir      *dir;   /* the directory that was at the path when the lock was granted */
  FlHandle    fd;    /* holds the exclusive kernel lock on the lock file */
  FlFileInfo  info;  /* the lock file's; type 0 (no regular file) when fstat() failed */
  int         pid;   /* the PID written in the file: this process's, read once by step A2 */
} FlAcquired;

/* Steps A1-A5, until the lock is held, a try-acquire (@wait FALSE, or a timeout of 0) meets a
 * live holder (FL_ERROR_BUSY), the deadline passes (FL_ERROR_TIMEOUT), @cancellable is
 * cancelled, or an error. On success @held owns the lock file. */
gboolean _fl_acquire (const char           *target,
                      const FlLockOptions  *options,
                      gboolean              wait,
                      GCancellable         *cancellable,
                      FlAcquired           *held,
                      GError              **error);

G_END_DECLS
