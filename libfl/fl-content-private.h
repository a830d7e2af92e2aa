/* fl-content-private.h: the identity a libfl holder records beside the PID
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Set on the temp file before link(); readers of the original format never see it. */
#define FL_IDENTITY_XATTR "user.libfl.holder"
#define FL_IDENTITY_MAX   256

typedef struct
{
  int      pid;
  guint64  start_ticks;     /* /proc/<pid>/stat field 22: clock ticks since boot */
  char     boot_id[40];     /* the first 16 hex digits of /proc/sys/kernel/random/boot_id */
  guint64  pidns;           /* inode of /proc/self/ns/pid */
  gboolean kernel_lock;     /* whether the holder took the kernel lock */
  char     host[72];        /* FNV-1a of the host name, 8 hex digits */
} FlIdentity;

gsize    _fl_identity_format (const FlIdentity *identity,
                              char             *buf,
                              gsize             size);
gboolean _fl_identity_parse  (const char       *buf,
                              gsize             len,
                              FlIdentity       *identity);

G_END_DECLS
