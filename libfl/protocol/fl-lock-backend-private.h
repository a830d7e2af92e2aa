/* fl-lock-backend-private.h: the seam between libfl and the engines that hold locks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FlLock (protocol/fl-lock.c), fl_is_locked(), fl_snapshot_new_for_target(), the scan and the
 * reclaims ask fl-backends.c for the backend of a target once and call it; none of them asks
 * which backend it has. Every backend fills every slot, as GIO's GLocalFile fills the whole
 * GFileIface (docs/backends.md). The file protocol is built in (fl-file-lock.c and its
 * inspection, fl-file-backend.c); etcd (libfl/etcd/) is a module loaded when first used.
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
  /* Tells the state which object to report a loss to (_fl_lock_report_lost()). */
  void        (*bind)              (gpointer              state,
                                    FlLock               *lock);
  /* Releases once; later calls return TRUE and do nothing. FL_ERROR_LOST if it was not ours. */
  gboolean    (*release)           (gpointer              state,
                                    GError              **error);
  gboolean    (*is_held)           (gpointer              state);
  /* When is_held() turns FALSE by itself unless renewed meanwhile, on the boot clock
   * (_fl_platform_boottime_now()); G_MAXINT64 for never (a file lock). FlLock arms ::lost on
   * its own context at that time, so a stalled backend thread cannot delay the signal. */
  gint64      (*held_until)        (gpointer              state);
  /* release() that also says what is_held() said just before (the file backend looks at
   * this process's PID once instead of twice, a system call each). */
  gboolean    (*release_held)      (gpointer              state,
                                    gboolean             *was_held,
                                    GError              **error);
  /* 0 means no token (docs/etcd.md, "Fencing"). */
  guint64     (*get_fencing_token) (gpointer              state);
  const char *(*get_target)        (gpointer              state);
  const char *(*get_path)          (gpointer              state);
  /* A backend with no descriptor to share says so in @error (FL_ERROR_FAILED). */
  int         (*dup_fd)            (gpointer              state,
                                    GError              **error);
  /* Releases, ignoring errors, then frees. */
  void        (*free)              (gpointer              state);

  /* For the tests: the file the lock holds, FALSE for a backend whose locks are no files. */
  gboolean    (*get_inode)         (gpointer              state,
                                    guint64              *dev,
                                    guint64              *ino);

  /* fl_is_locked(). */
  gboolean    (*is_locked)         (const char           *target,
                                    const FlLockOptions  *options,
                                    GError              **error);

  /* Inspection. fl_snapshot_new_for_target(); G_IO_ERROR_NOT_FOUND when @target is not
   * locked. */
  FlSnapshot *(*snapshot_new)      (const char           *target,
                                    const FlLockOptions  *options,
                                    GError              **error);
  /* fl_scan_directory_full() of a root of this backend: its snapshots sorted by path. What
   * cannot be read below @root goes to @errors (nullable) when the backend can tell. */
  GPtrArray  *(*scan)              (const char           *root,
                                    gboolean              recursive,
                                    const FlLockOptions  *options,
                                    GCancellable         *cancellable,
                                    GPtrArray            *errors,
                                    GError              **error);
  /* fl_snapshot_reclaim() (@forced FALSE) and fl_snapshot_reclaim_unproven() of a snapshot
   * this backend made. */
  gboolean    (*reclaim)           (FlSnapshot           *snapshot,
                                    const FlLockOptions  *options,
                                    gboolean              forced,
                                    GCancellable         *cancellable,
                                    GError              **error);

  /* A root of this backend in a FlDirectoryModel. root_path(): the one spelling of @target as
   * a root, whatever spelling names it (a directory: canonical, symbolic links kept;
   * etcd://HOSTS/PREFIX: without a trailing slash). root_check(): FALSE, with an error that
   * says what to do, when @path (from root_path()) cannot be followed: no such directory, no
   * permission, the backend's module missing; TRUE where the first scan is the check. */
  char       *(*root_path)         (const char           *target);
  gboolean    (*root_check)        (const char           *path,
                                    const FlLockOptions  *options,
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

/* The backend of @target (fl-backends.c): a module's for the schemes registered there
 * (etcd://, etcds://), loaded on first use; when the module cannot be loaded, one whose every
 * operation fails with FL_ERROR_BACKEND_MISSING naming what to install. The file protocol's
 * for everything else. Never NULL. */
const FlLockBackend *_fl_lock_backend_for (const char *target);
/* The one question left outside the backends, asked once per root: FlDirectoryModel walks
 * and monitors a directory root itself, file by file, where another backend's root is
 * scanned whole and watched through watch_start (docs/backends.md). */
gboolean             _fl_lock_backend_is_file (const FlLockBackend *backend);
/* Where the modules are looked for: $FL_BACKEND_DIR (not in a privileged process), or
 * FL_BACKENDDIR, $libdir/libfl-1/backends. */
const char          *_fl_backends_dir     (void);

/* protocol/fl-file-lock.c */
extern const FlLockBackend _fl_lock_backend_file;

/* Called by a backend, from any thread, when a held lock is lost: FlLock emits ::lost on the
 * main context it was acquired in, and notifies ::held. */
void _fl_lock_report_lost (FlLock *lock);

G_END_DECLS
