/* fl-judge-private.h: reading one lock, temp or graveyard file and judging it
 *
 * Steps J1-J4 of docs/protocol.md, shared by acquire, inspection and reclaim, so that every
 * front-end reaches the same verdict from the same evidence.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "fl-content-private.h"
#include "fl-enums.h"
#include "fl-names-private.h"
#include "fl-options.h"
#include "fl-process-private.h"
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

  /* The verdict, filled by _fl_lock_state_judge(). */
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
} FlLockState;

/* Step J1 + J2. A missing file is G_IO_ERROR_NOT_FOUND; a file that is not regular is
 * not an error here: it comes back with kind FL_ENTRY_FOREIGN and no fd. */
gboolean _fl_lock_state_open       (FlLockState         *self,
                                    FlDir               *dir,
                                    const char          *dir_path,
                                    const char          *name,
                                    GError             **error);

/* The rest of step J2, which a held lock does not need: the identity xattr (fl-evidence.c). */
void     _fl_lock_state_read_identity (FlLockState  *self);

/* Steps J3 + J4. */
void     _fl_lock_state_judge      (FlLockState         *self,
                                    FlProbeMode          mode,
                                    const FlLockOptions *options,
                                    gint64               now_us,
                                    gboolean             details);

/* Whether @name in @dir is still the file that self->fd has open. */
gboolean _fl_lock_state_still_at   (FlLockState         *self,
                                    FlDir               *dir,
                                    const char          *name);

void     _fl_lock_state_clear      (FlLockState         *self);

/* "PID 1234 (name)", or "PID 1234" when the name is unknown. */
char    *_fl_lock_state_describe_holder (FlLockState    *self);

/* Who else holds LOCK_SH on the file, from /proc/locks: "a process with PID 12 (cat) holds a
 * shared lock on the file". When /proc/locks names nobody (or cannot be read): NULL, or, if
 * @known says someone does, "another process holds a shared lock on the file". */
char    *_fl_lock_state_describe_shared (FlLockState    *self,
                                         gboolean        known);

/* What a foreign entry is and what to do about it, for error messages. */
char    *_fl_describe_foreign_reason (FlFileType        type,
                                      const char       *link_target);
char    *_fl_describe_foreign      (const char          *path,
                                    FlFileType           type);

/* fl_format_age() (fl-format.c), for libfl's own messages. */
char    *_fl_format_age            (gint64               age_us);
/* What another program's lock file is and what to do when it is stuck (fl-format.c), for
 * fl_snapshot_dup_other_explanation() and the error of a refused reclaim. */
const char *_fl_lock_format_get_explanation (FlLockFormat format);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlLockState, _fl_lock_state_clear)

G_END_DECLS
