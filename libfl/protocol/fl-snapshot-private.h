/* fl-snapshot-private.h: a snapshot's fields, and building snapshots fast, for scans and the
 * directory model
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-snapshot.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* What the backend that made a snapshot says of it, for those that keep or show snapshots (the
 * directory model, the summary): data the backend put there, so that nobody outside a backend
 * asks which backend made it (docs/backends.md). A file's snapshot has none. */
typedef enum
{
  /* Its key in a directory model is its target, unique across every root (an etcd lock's
   * path, PREFIX/ESCAPED-NAME, is unique only within one cluster). */
  FL_SNAPSHOT_KEYED_BY_TARGET = 1 << 0,
  /* Its backend judged its holder (a lease): its PID may be of another machine, and no
   * probe or pidfd of this one applies. */
  FL_SNAPSHOT_JUDGED_BY_BACKEND = 1 << 1,
  /* Its waiters are in the snapshot (fl_snapshot_get_waiters()): no temp or graveyard files
   * lie beside it. */
  FL_SNAPSHOT_WAITERS_INSIDE = 1 << 2,
  /* Held by a lease: its state is the lease's (held or waiting while it lives). */
  FL_SNAPSHOT_LEASED = 1 << 3,
  /* Judged by its backend, but its holder's process was proven to run on this machine (the
   * same boot and PID namespace): a pidfd may watch it, and its exit is a reason to read the
   * lock again (the backend hears nothing of it until the lease ends). */
  FL_SNAPSHOT_HOLDER_HERE = 1 << 4,
} FlSnapshotTraits;

/* The fields, for the files that make up the object (fl-snapshot.c, fl-snapshot-build.c,
 * fl-snapshot-reclaim.c, fl-snapshot-state.c); everyone else reads a snapshot through its
 * getters. */
struct _FlSnapshot
{
  GObject       parent_instance;

  char         *path;
  char         *name;
  char         *directory;
  char         *target;
  FlEntryKind   kind;
  int           pid;
  char         *process_name;
  char         *process_cmdline;
  gint64        process_uid;
  gint64        process_start_time;
  gint64        file_uid;
  FlLiveness    liveness;
  FlKernelLock  kernel_lock;
  gboolean      stale;
  FlReclaimable reclaimable;
  char         *reason;
  char         *content;      /* printable: other bytes as \xNN */
  char         *content_raw;  /* byte for byte, for the reclaim's comparison */
  gsize         content_len;
  gint64        mtime;
  gint64        captured_at;
  gint64        stale_at;     /* when the age rule makes it stale; 0 if no age rule applies */

  /* What a reclaim compares: the very file the snapshot saw. */
  guint64       dev;
  guint64       ino;
  gint64        mtime_ns;
  guint         mode;

  /* An etcd lock (docs/etcd.md, "Inspection"); 0, -1 or NULL for a file. */
  char         *host;
  gint64        lease;
  gint64        lease_ttl;    /* seconds left, 0 expired, -1 not known */
  guint64       token;        /* the key's create_revision */
  gint64        revision;     /* etcd's revision when it was read */
  gboolean      waiting;
  GPtrArray    *waiters;      /* of FlSnapshot, oldest first; NULL for a file */

  /* Another program's lock file (docs/other-lock-files.md); its host is in host. */
  FlLockFormat  format;
  FlEntryState  other_state;
  char         *owner_user;
  char         *owner_name;
  gint64        owner_since;

  FlSnapshotTraits traits;

  /* Evidence for people about a held lock's holder (fl_snapshot_get_holder_exited()...). */
  gboolean      holder_exited;
  gboolean      holder_stopped;
  int           keeper_pid;
  char         *keeper_name;
};

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

/* A lock file that the kernel said was created (and then removed) between two reads, so
 * that nobody judged it: its name is all that is known. Its holder, liveness and kernel lock
 * are unknown; kind from the name. */
FlSnapshot *_fl_snapshot_new_unseen (const char          *path,
                                     gint64               now_us);

/* st_mode of the file as seen, to tell what a foreign entry is. */
guint       _fl_snapshot_get_mode (FlSnapshot          *self);
/* When the judge's age rule turns this not-yet-stale lock stale (its clock, counted from the
 * later of mtime and ctime); 0 when no age rule applies (a PID, an empty file, a process
 * group, FL_STALE_NEVER) or it is stale already. What the model's deadlines must use: a
 * deadline of its own could pass while the judge still says "not stale", and spin. */
gint64      _fl_snapshot_get_stale_at (FlSnapshot        *self);

/* An etcd lock's holder or waiter, as libfl/etcd/fl-etcd-inspect.c read it. */
typedef struct
{
  const char *target;        /* etcd://HOSTS/PREFIX/NAME */
  const char *path;          /* PREFIX/ESCAPED-NAME, as fl_lock_get_path() says */
  const char *name;          /* ESCAPED-NAME */
  const char *host;          /* nullable: from the metadata key */
  int         pid;           /* 0: not known */
  const char *process_name;  /* nullable */
  gint64      since_us;      /* 0: not known */
  const char *metadata;      /* the metadata key's value as read (nullable), for the content */
  gsize       metadata_len;
  const char *reason;
  gint64      lease;
  gint64      lease_ttl;     /* seconds left, 0 expired, -1 not asked */
  guint64     token;
  gint64      revision;
  gboolean    waiting;
  gboolean    holder_exited; /* a holder on this machine is gone; its lease still runs */
  gboolean    holder_here;   /* a holder proven to run on this machine */
  gint64      captured_at;
} FlSnapshotEtcd;

/* A snapshot of an etcd key: keyed by its target, judged by etcd, its waiters inside it, and
 * (with a lease) the lease's. */

FlSnapshot *_fl_snapshot_new_etcd   (const FlSnapshotEtcd *fields);
/* Whether the backend that made @self said all of @traits of it. */
static inline gboolean
_fl_snapshot_has_traits (FlSnapshot       *self,
                         FlSnapshotTraits  traits)
{
  return (self->traits & traits) == traits;
}
/* What names the entry in a directory model, unique across every root: a file's path, an
 * etcd lock's target (etcd://HOSTS/PREFIX/NAME; its path, PREFIX/ESCAPED-NAME, is unique
 * only within one cluster). */
const char *_fl_snapshot_get_key    (FlSnapshot           *self);
/* Takes @waiter. */
void        _fl_snapshot_add_waiter (FlSnapshot           *self,
                                     FlSnapshot           *waiter);

G_END_DECLS
