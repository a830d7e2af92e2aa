/* fl-evidence-private.h: FlEvidence, what was read of one lock, temp or graveyard file, and
 * the verdict judged from it
 *
 * Steps J1-J2 of docs/protocol.md (fl-evidence.c) fill the evidence; J3-J4 (fl-judge.c,
 * fl-judge-private.h) the verdict. One record for both, so that a decision and the reason
 * it gives are made from the same facts.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "protocol/fl-content-private.h"
#include "fl-enums.h"
#include "protocol/fl-names-private.h"
#include "support/fl-process-private.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

#define FL_CONTENT_MAX 64

typedef enum
{
  FL_PROBE_SHARED,     /* an inspector: take LOCK_SH and drop it at once */
  FL_PROBE_EXCLUSIVE,  /* a taker: take LOCK_EX and keep it while deciding (step T1 on) */
} FlProbeMode;

typedef struct
{
  char          *path;            /* for messages */
  char          *name;            /* last component */
  FlHandle       fd;              /* FL_HANDLE_NONE when foreign or unreadable */
  int            open_errno;      /* why fd is none for a regular file */
  FlFileInfo     info;            /* of the file we have open, else of the name */
  FlNameInfo     name_info;
  FlEntryKind    kind;
  gboolean       remote;          /* on a network or FUSE filesystem */
  FlFsLocks      fs_locks;        /* what a free kernel lock proves on its filesystem */

  char           content[FL_CONTENT_MAX + 1];
  gsize          content_len;
  gboolean       content_complete;  /* the whole file was read */
  int            content_pid;       /* 0 unless content_kind is FL_CONTENT_PID */
  FlContentKind  content_kind;      /* what the original module makes of the content */
  gint64         content_value;     /* the number, for FL_CONTENT_NO_SUCH_PID and _GROUP */

  FlIdentity     identity;
  gboolean       has_identity;

  /* The verdict, filled by _fl_evidence_judge(). */
  FlKernelLock   kernel_lock;
  gboolean       holds_exclusive; /* we hold LOCK_EX on fd */
  gboolean       no_kernel_locks; /* the filesystem refuses flock(): PID rules only */
  gboolean       only_probers;    /* LOCK_EX refused, LOCK_SH granted and held on fd */
  int            pid;             /* the PID judged: holder for a lock, creator otherwise */
  FlProcessInfo  process;
  FlLiveness     liveness;
  gboolean       stale;
  char          *reason;
  gint64         mtime_us;        /* wall clock */
  gint64         changed_us;      /* max (mtime, ctime): what touch and restores cannot move back */
  gint64         stale_at_us;     /* when an unparsable lock turns stale, else 0 */

  /* Evidence for people, never for a decision (an inspector's judgement only). */
  gboolean       holder_exited;   /* held, yet pid has exited: an inherited descriptor keeps it */
  int            keeper_pid;      /* then a process that keeps it, 0 when none can be named */
  char          *keeper_name;     /* its name, or NULL */
} FlEvidence;

/* Step J1 + J2. A missing file is G_IO_ERROR_NOT_FOUND; a file that is not regular is
 * not an error here: it comes back with kind FL_ENTRY_FOREIGN and no fd. */
gboolean _fl_evidence_open          (FlEvidence  *self,
                                     FlDir       *dir,
                                     const char  *dir_path,
                                     const char  *name,
                                     GError     **error);

/* The rest of step J2, which a held lock does not need: the identity xattr (fl-evidence.c). */
void     _fl_evidence_read_identity (FlEvidence  *self);

/* Whether @name in @dir is still the file that self->fd has open. */
gboolean _fl_evidence_still_at      (FlEvidence  *self,
                                     FlDir       *dir,
                                     const char  *name);

void     _fl_evidence_clear         (FlEvidence  *self);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlEvidence, _fl_evidence_clear)

G_END_DECLS
