/* fl-lock-backend-private.h: the seam between FlLock and the engines that hold locks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FlLock (protocol/fl-lock.c) is the public object; it picks a backend from the target once
 * and keeps the backend's state behind a pointer. The file protocol is one backend, in
 * fl-file-lock.c; etcd (libfl/etcd/) is the other, built when libsoup 3 and json-glib are
 * found.
 */
#pragma once

#include "fl-lock.h"
#include "fl-snapshot.h"

G_BEGIN_DECLS

typedef struct _FlLockBackend FlLockBackend;

struct _FlLockBackend
{
  const char *name;

  /* Blocking. @wait FALSE is try_acquire: never wait for a live holder (FL_ERROR_BUSY). The
   * deadline comes from @options (timeout_ms). Returns the backend's state of a held lock. */
  gpointer    (*acquire)           (const char           *target,
                                    const FlLockOptions  *options,
                                    gboolean              wait,
                                    GCancellable         *cancellable,
                                    GError              **error);
  /* The lock's one name in this process, whatever spelling of @target names it (fl-held.c),
   * or NULL if @target names no lock (acquire() then says why). */
  char       *(*dup_held_key)      (const char           *target);
  /* Nullable. Tells the state which object to report a loss to (_fl_lock_report_lost()). */
  void        (*bind)              (gpointer              state,
                                    FlLock               *lock);
  /* Releases once; later calls return TRUE and do nothing. FL_ERROR_LOST if it was not ours. */
  gboolean    (*release)           (gpointer              state,
                                    GError              **error);
  gboolean    (*is_held)           (gpointer              state);
  /* Nullable: release() that also says what is_held() said just before, with one look at
   * this process's PID instead of two (a system call each). */
  gboolean    (*release_held)      (gpointer              state,
                                    gboolean             *was_held,
                                    GError              **error);
  /* 0 means no token (docs/etcd.md, "Fencing"). */
  guint64     (*get_fencing_token) (gpointer              state);
  const char *(*get_target)        (gpointer              state);
  const char *(*get_path)          (gpointer              state);
  /* Nullable: the backend has no descriptor to share. */
  int         (*dup_fd)            (gpointer              state,
                                    GError              **error);
  /* Releases, ignoring errors, then frees. */
  void        (*free)              (gpointer              state);

  /* Nullable (the file backend's is in fl-lock-convenience.c): fl_is_locked(). */
  gboolean    (*is_locked)         (const char           *target,
                                    const FlLockOptions  *options,
                                    GError              **error);

  /* Inspection; nullable (the file backend's is protocol/fl-snapshot-build.c and
   * model/fl-scan.c). fl_snapshot_new_for_target(); G_IO_ERROR_NOT_FOUND when @target is not
   * locked. */
  FlSnapshot *(*snapshot_new)      (const char           *target,
                                    const FlLockOptions  *options,
                                    GError              **error);
  /* fl_scan_directory() of a root of this backend: one snapshot per lock name, by path. */
  GPtrArray  *(*scan)              (const char           *root,
                                    const FlLockOptions  *options,
                                    GCancellable         *cancellable,
                                    GError              **error);
  /* fl_snapshot_reclaim() (@forced FALSE) and fl_snapshot_reclaim_unproven() of a snapshot
   * this backend made. */
  gboolean    (*reclaim)           (FlSnapshot           *snapshot,
                                    gboolean              forced,
                                    GError              **error);

  /* Nullable: a root of this backend followed live (FlDirectoryModel). @changed runs on the
   * caller's thread-default main context whenever something under @root may have changed,
   * never after watch_stop (called on that context); @destroy frees @data after the stop. */
  gpointer    (*watch_start)       (const char           *root,
                                    const FlLockOptions  *options,
                                    void                (*changed) (gpointer data),
                                    gpointer              data,
                                    GDestroyNotify        destroy,
                                    GError              **error);
  void        (*watch_stop)        (gpointer              watch);
};

/* The backend of @target: etcd for etcd:// and etcds:// (one that only says how to build
 * libfl with it, when it was built without), files for everything else. */
const FlLockBackend *_fl_lock_backend_for (const char *target);

/* protocol/fl-file-lock.c */
extern const FlLockBackend _fl_lock_backend_file;
/* _fl_lock_get_inode() of the file backend's @state. */
gboolean _fl_file_lock_get_inode (gpointer  state,
                                  guint64  *dev,
                                  guint64  *ino);

#ifdef FL_HAVE_ETCD
/* libfl/etcd/fl-etcd-lock.c */
extern const FlLockBackend _fl_lock_backend_etcd;
#endif

/* Called by a backend, from any thread, when a held lock is lost: FlLock emits ::lost on the
 * main context it was acquired in, and notifies ::held. */
void _fl_lock_report_lost (FlLock *lock);

G_END_DECLS
