/* fl-platform.h: every operating-system call libfl makes, behind one small interface
 *
 * The protocol code (acquire, judge, takeover, release, reclaim, scan, the directory model)
 * calls only these functions; one file per platform implements them all:
 * fl-platform-linux.c today, fl-platform-win32.c next (docs/porting.md says which system call
 * implements each function on each platform, and what a new port must provide).
 *
 * Plain C on purpose: no GLib type or call crosses this line, so a platform file builds and is
 * tested with its system's compiler alone, and what it promises is visible in its types.
 *
 * Conventions:
 *  - Functions that can fail return 0 or an errno value (EEXIST, ENOENT, EWOULDBLOCK, ...),
 *    never -1, and never touch the global errno on purpose. A port maps its own error codes to
 *    these; docs/porting.md lists the mapping each function relies on.
 *  - Names are single components, looked up in an FlDir: never a path with separators, and
 *    never followed if they are symbolic links (or reparse points).
 *  - Every handle is close-on-exec (not inherited by spawned programs), and no open blocks:
 *    a FIFO where a lock file belongs is never waited on. Every handle the platform returns is
 *    closed with _fl_platform_close() (the Win32 file keeps state per handle).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one errno value of this interface that not every C library has (mingw-w64 lacks it); past
 * every value mingw-w64 defines (the last is 140). */
#ifndef ESTALE
# define ESTALE 1116
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The largest PID the system hands out: Linux's PID_MAX_LIMIT; on Windows any DWORD, of which
 * the Node module (process.kill() takes an int32) can only name the int32 ones. A PID above it
 * names no process, so a lock holding it is stale without asking the system. */
#ifdef _WIN32
# define FL_PLATFORM_PID_MAX INT32_MAX
#else
# define FL_PLATFORM_PID_MAX 4194304
#endif

/* An open file: a descriptor on POSIX, a HANDLE on Windows. Both fit; -1 is "none" on both
 * (INVALID_HANDLE_VALUE is (HANDLE) -1). */
typedef intptr_t FlHandle;
#define FL_HANDLE_NONE ((FlHandle) -1)

/* An open directory that names are looked up in. On Linux it stays the same directory if its
 * path is renamed or replaced meanwhile; the Win32 file joins names to the path it opened, so
 * there a swap is only detected (by file identity, docs/protocol.md section 3a), not followed. */
typedef struct _FlDir FlDir;

typedef enum
{
  FL_FILE_UNKNOWN,    /* a listing that could not tell (d_type DT_UNKNOWN) */
  FL_FILE_REGULAR,
  FL_FILE_DIRECTORY,
  FL_FILE_SYMLINK,    /* or any reparse point on Windows */
  FL_FILE_FIFO,
  FL_FILE_SOCKET,
  FL_FILE_DEVICE,
} FlFileType;

/* What makes two names the same file: device + inode; volume serial + file index. */
typedef struct
{
  uint64_t dev;
  uint64_t ino;
} FlFileId;

typedef struct
{
  FlFileType type;
  FlFileId   id;
  int64_t    size;
  int64_t    mtime_ns;   /* wall clock; anyone who can write the file can set it */
  int64_t    ctime_ns;   /* status change (POSIX), which no utime() moves back; where a
                          * platform has none, its change or creation time */
  int64_t    uid;        /* owner, -1 where the platform has no numeric owner */
  uint32_t   mode;       /* POSIX permission and sticky bits; 0 where none */
  uint32_t   nlink;
} FlFileInfo;

static inline bool
fl_file_id_equal (const FlFileId *a,
                  const FlFileId *b)
{
  return a->dev == b->dev && a->ino == b->ino;
}


/* Directories */

/* Opens the directory at @path (following links in the path, as any open of a path does).
 * With @create, missing directories are made first. ENOENT, ENOTDIR as usual. */
int         _fl_platform_dir_open       (const char      *path,
                                         bool             create,
                                         FlDir          **out);
/* Opens @name in @dir if it is a directory and not a link: ENOTDIR or ELOOP otherwise. */
int         _fl_platform_dir_open_at    (FlDir           *dir,
                                         const char      *name,
                                         FlDir          **out);
void        _fl_platform_dir_close      (FlDir           *dir);
/* Whether a lock directory may stay open between a release and the next acquire. Linux: yes
 * (an open directory stops nobody from renaming or removing it; it keeps its filesystem busy
 * for umount). Windows: no, an open directory handle gets in the way of its deletion. */
bool        _fl_platform_dir_keep_open  (void);
/* The directory's own information (sticky bit and owner, for permission messages). */
int         _fl_platform_dir_info       (FlDir           *dir,
                                         FlFileInfo      *info);

/* Listing: the names in @dir except "." and "..", each once, in no order. @type is the
 * listing's own idea of the entry (FL_FILE_UNKNOWN where it has none): a hint, never trusted
 * for a decision. */
typedef struct _FlDirList FlDirList;

int         _fl_platform_dir_list_open  (FlDir           *dir,
                                         FlDirList      **out);
/* NULL at the end. The name stays valid until the next call. */
const char *_fl_platform_dir_list_next  (FlDirList       *list,
                                         FlFileType      *type);
void        _fl_platform_dir_list_close (FlDirList       *list);


/* Files by name */

/* Information about @name itself, a link never followed. */
int         _fl_platform_stat_at        (FlDir           *dir,
                                         const char      *name,
                                         FlFileInfo      *info);
/* The same for a whole path: links in the directories are followed, the last component never. */
int         _fl_platform_stat_path      (const char      *path,
                                         FlFileInfo      *info);

/* Opens @name for reading without following a link (ELOOP) and without blocking. */
int         _fl_platform_open_read      (FlDir           *dir,
                                         const char      *name,
                                         FlHandle        *out);
/* Creates @name, which must not exist (EEXIST), for reading and writing, readable by every
 * user whatever the creator's umask (mode 0644 on Linux). */
int         _fl_platform_create_excl    (FlDir           *dir,
                                         const char      *name,
                                         FlHandle        *out);
/* Creates a file in @dir with no name yet (Linux O_TMPFILE), readable as create_excl's:
 * EOPNOTSUPP where none exists. */
int         _fl_platform_create_unnamed (FlDir           *dir,
                                         FlHandle        *out);

/* Makes @to a second name of @from; never replaces @to (EEXIST). EPERM, EOPNOTSUPP or EMLINK:
 * the filesystem has no hard links. EBUSY: something holds the name briefly (an indexer or
 * antivirus on Windows): the caller may retry. */
int         _fl_platform_link_noreplace (FlDir           *dir,
                                         const char      *from,
                                         const char      *to);
/* Gives the unnamed file @file the name @to (EEXIST as above). ENOENT: the file went away or
 * the platform cannot name it after all; make a named one. */
int         _fl_platform_link_unnamed   (FlDir           *dir,
                                         FlHandle         file,
                                         const char      *to);
/* Renames @from to @to without replacing @to (EEXIST). Where the filesystem cannot refuse to
 * replace, a plain rename is done: callers only rename to fresh random names. */
int         _fl_platform_rename_noreplace (FlDir         *dir,
                                           const char    *from,
                                           const char    *to);
int         _fl_platform_unlink         (FlDir           *dir,
                                         const char      *name);
/* Removes @name only while it is still the file @held is open on (release, step R2): ESTALE
 * when the name is another file now, ENOENT when it is gone. The caller holds the file's
 * kernel lock, so no libfl process can swap the name in between. @held_id, when not NULL, is
 * @held's own identity as _fl_platform_file_info() gave it (an open file's never changes), so
 * that it is not asked again. */
int         _fl_platform_unlink_held    (FlDir           *dir,
                                         const char      *name,
                                         FlHandle         held,
                                         const FlFileId  *held_id);


/* Open files */

void        _fl_platform_close          (FlHandle         file);
int         _fl_platform_file_info      (FlHandle         file,
                                         FlFileInfo      *info);
/* Reads at most @size bytes from offset 0: the content of a lock file is bounded. */
int         _fl_platform_read_head      (FlHandle         file,
                                         char            *buf,
                                         size_t           size,
                                         size_t          *n_read);
int         _fl_platform_write_all      (FlHandle         file,
                                         const char      *buf,
                                         size_t           len);
/* What a free kernel lock on a file of this filesystem proves (docs/protocol.md, section 2,
 * "Filesystems"). Decided by the filesystem's type, never by what one open shows. */
typedef enum
{
  /* Local disk and memory filesystems: a kernel lock belongs to the one inode that every name
   * of the file and every opener reaches, so a free one means nobody holds it. */
  FL_FS_LOCKS_CARRIED,
  /* Not known either way: a holder checks after the link that its lock is seen through the
   * lock's name (step A3b), and says so in its identity. */
  FL_FS_LOCKS_UNPROVEN,
  /* FUSE, overlayfs, network and cluster filesystems: a hard link or another mount of the same
   * file may be another kernel inode, so a free kernel lock proves nothing. */
  FL_FS_LOCKS_UNTRUSTED,
} FlFsLocks;

/* The file's filesystem: what a free kernel lock on it proves (@locks), and whether its PIDs
 * may be another machine's (@remote: a network or FUSE filesystem). 0, or an errno where the
 * filesystem does not say (a FUSE daemon that answers by path, once the name is gone): then
 * @locks is FL_FS_LOCKS_UNTRUSTED and @remote true, the answers that make nothing stale, and
 * the caller must not remember them for the filesystem. */
int         _fl_platform_file_fs        (FlHandle         file,
                                         FlFsLocks       *locks,
                                         bool            *remote);
/* A mark on the inode @file is open on, which another handle can look for (step A3b): whether
 * a name reaches the very inode a lock was taken on, asked of the kernel rather than of inode
 * numbers (a FUSE hard link may be another kernel inode with the same number). Nobody else
 * takes it: libfl's own probes are flock()s. EOPNOTSUPP where there is none. */
int         _fl_platform_inode_mark     (FlHandle         file,
                                         bool             set);
/* *@seen: whether the inode @file is open on carries a mark set through another handle. */
int         _fl_platform_inode_marked   (FlHandle         file,
                                         bool            *seen);
/* A second handle on the same open file (sharing its kernel lock), close-on-exec, >= 3. */
int         _fl_platform_dup            (FlHandle         file,
                                         FlHandle        *out);

/* The holder identity stored beside the content (docs/protocol.md, "identity"): a user xattr
 * on Linux. ENOTSUP where the filesystem keeps none: the kernel lock still decides. */
int         _fl_platform_identity_set   (FlHandle         file,
                                         const char      *buf,
                                         size_t           len);
/* ENODATA when the file has none. */
int         _fl_platform_identity_get   (FlHandle         file,
                                         char            *buf,
                                         size_t           size,
                                         size_t          *len);


/* The kernel lock: advisory, tied to the open file (not the process), dropped by the kernel
 * when the last handle on it closes, however the process ends. */
typedef enum
{
  FL_KERNEL_SHARED,
  FL_KERNEL_EXCLUSIVE,
} FlKernelMode;

/* Never waits: EWOULDBLOCK when another open file holds a conflicting lock; ENOLCK,
 * EOPNOTSUPP or EINVAL when the filesystem has no kernel locks; EINTR may be retried.
 * Taking EXCLUSIVE over our own SHARED converts it; after a refused conversion what the handle
 * holds is unspecified (flock drops it, Windows keeps it): ask anew. Not for a handle from
 * _fl_platform_dup(), which shares the lock of the handle it copies. */
int         _fl_platform_kernel_lock    (FlHandle         file,
                                         FlKernelMode     mode);

/* For messages only: the PIDs of processes that hold the kernel lock on @id, shared or
 * exclusive ones, this process left out, at most @max of them. Returns false when nobody can
 * tell (no /proc/locks, another platform). */
bool        _fl_platform_kernel_lock_holders (const FlFileId *id,
                                              FlKernelMode    mode,
                                              int            *pids,
                                              size_t          max,
                                              size_t         *n_pids);
/* For messages only: the PIDs of processes that have the file @id open (and so share the kernel
 * lock of a descriptor they inherited), at most @max of them, this process left out. Returns
 * false when some processes could not be looked into (another user's, without privileges) or
 * nobody can tell (another platform): the list may then miss one. */
bool        _fl_platform_file_keepers   (const FlFileId *id,
                                         int            *pids,
                                         size_t          max,
                                         size_t         *n_pids);

/* Every kernel lock of the system, as lslocks shows them (what /proc/locks lists on Linux). */
typedef enum
{
  FL_SYSTEM_LOCK_FLOCK,
  FL_SYSTEM_LOCK_POSIX,
  FL_SYSTEM_LOCK_OFD,    /* open file description lock (F_OFD_SETLK) */
  FL_SYSTEM_LOCK_LEASE,
  FL_SYSTEM_LOCK_DELEG,  /* an NFS server's delegation */
  FL_SYSTEM_LOCK_OTHER,
} FlSystemLockType;

typedef enum
{
  FL_SYSTEM_LOCK_READ,
  FL_SYSTEM_LOCK_WRITE,
  FL_SYSTEM_LOCK_NONE,   /* a lease being broken */
} FlSystemLockMode;

typedef struct
{
  FlSystemLockType type;
  FlSystemLockMode mode;
  int              pid;      /* 0 when unknown (an OFD lock no process shows any more) */
  FlFileId         id;       /* dev as stat() gives it */
  int64_t          start;
  int64_t          end;      /* -1: to the end of the file */
  bool             blocked;  /* a process waiting for this lock, not holding it */
  char            *path;     /* malloc; NULL when no open file of the holder shows it. Linux
                              * appends " (deleted)" to a name that was removed */
} FlSystemLock;

/* Lists them in a new array (free with _fl_platform_system_locks_free()), holders' paths
 * looked up among their open files. ENOSYS where the system keeps no such table (Windows). A
 * process that hides its files or exits meanwhile only leaves a path or a PID unknown. */
int         _fl_platform_system_locks   (FlSystemLock   **out,
                                         size_t          *n_out);
void        _fl_platform_system_locks_free (FlSystemLock  *locks,
                                            size_t         n);


/* Other programs' lock files (docs/other-lock-files.md): read, never changed. */

/* The target of the symbolic link @name in @dir, which is never followed: NUL-terminated in
 * @buf, *len bytes. ENAMETOOLONG when it does not fit in @size - 1 bytes, EINVAL when @name is
 * not a link, ENOSYS where links are not read (Windows). */
int         _fl_platform_readlink_at    (FlDir           *dir,
                                         const char      *name,
                                         char            *buf,
                                         size_t           size,
                                         size_t          *len);

/* Who holds a record lock (POSIX fcntl or OFD) on any byte of @file, asked as F_GETLK does
 * for a write lock, so a reader or writer answers, and nothing is taken: *pid is the holder's
 * PID, -1 for an OFD lock (it belongs to no single process), 0 when nobody holds one. Locks of
 * this process are not seen. ENOSYS where record locks cannot be asked (Windows). */
int         _fl_platform_record_lock_holder (FlHandle     file,
                                             int         *pid);


/* Processes */

typedef enum
{
  FL_PROCESS_UNKNOWN,  /* not probed: PID out of range */
  FL_PROCESS_GONE,     /* the system says no such process (ESRCH) */
  FL_PROCESS_ZOMBIE,   /* exited, not yet reaped, where the system shows it (never Windows) */
  FL_PROCESS_RUNNING,  /* exists; its start time is known when the system shows it */
} FlProcessState;

typedef struct
{
  FlProcessState state;
  uint64_t       start_ticks;    /* in the system's own unit since boot, 0 when unknown */
  int64_t        start_boot_us;  /* start time on the boot clock, 0 when unknown */
  int64_t        start_real_us;  /* start time on the wall clock, 0 when unknown */
  int64_t        uid;            /* -1 when unknown */
  char          *name;           /* raw bytes as the system gives them (malloc), NULL if unknown */
  char          *cmdline;        /* arguments joined by spaces (malloc); only with details */
  bool           stopped;        /* stopped by a signal (SIGSTOP, SIGTSTP): runs no code */
} FlProcessInfo;

/* Never signals or probes a PID <= 0 (0 and -1 mean "my group" and "everyone" to kill()). */
void        _fl_platform_process_probe  (int              pid,
                                         bool             details,
                                         FlProcessInfo   *info);
void        _fl_platform_process_info_clear (FlProcessInfo *info);

/* This process's PID, asked anew each time: right in a child however it was made. */
int         _fl_platform_self_pid       (void);
int64_t     _fl_platform_self_uid       (void);
/* Whether this process runs with privileges its caller does not have (setuid, setgid, file
 * capabilities: Linux's AT_SECURE): then libfl takes no directory of code from the
 * environment (fl-backends.c), as GLib ignores GIO_MODULE_DIR there. */
bool        _fl_platform_is_privileged  (void);

/* What tells this process apart from another with the same PID (docs/protocol.md,
 * "identity"); fields the platform cannot tell stay 0 or empty. */
typedef struct
{
  uint64_t start_ticks;    /* as FlProcessInfo.start_ticks */
  char     boot_id[40];    /* this boot of this machine, lowercase hex */
  uint64_t pidns;          /* PID namespace */
  uint64_t timens;         /* the clock namespace start_ticks are counted in; the same value
                            * for every process whose start ticks can be compared */
  char     host_name[72];  /* for other programs' lock files that record one */
} FlPlatformSelf;

void        _fl_platform_self           (FlPlatformSelf  *self);

/* Whether this process sees its own PID namespace's processes (Linux: /proc is ours). */
bool        _fl_platform_processes_visible (void);

/* How many handles this process may have open at once; 0 when there is no known limit. */
size_t      _fl_platform_max_handles    (void);

/* Microseconds on the boot clock process start times count on. */
int64_t     _fl_platform_boottime_now   (void);

/* A handle that polls readable (POSIX) or is signalled (Windows) once @pid has exited. ESRCH
 * when @pid is gone already; another error (ENOSYS, EMFILE) when it cannot be watched. */
int         _fl_platform_process_watch  (int              pid,
                                         FlHandle        *out);


/* Waiting (docs/protocol.md, section 5): a watch on one name in a directory, and on at most
 * one process, with a timeout and a cancellation handle. The backoff policy is the caller's. */
typedef struct _FlWatch FlWatch;

typedef enum
{
  FL_WATCH_NAME,       /* @name was removed or renamed away, the directory was moved, or the
                        * watched file's holder closed it */
  FL_WATCH_PROCESS,    /* the watched process exited; it is no longer watched */
  FL_WATCH_TIMEOUT,
  FL_WATCH_CANCELLED,  /* @cancel became readable / signalled */
  FL_WATCH_ERROR,      /* the wait itself failed: re-check */
} FlWatchResult;

/* Never NULL. Without directory events (none left, or none on this filesystem)
 * _fl_platform_watch_has_events() is false and only the process and the timeout wake. */
FlWatch    *_fl_platform_watch_new      (FlDir           *dir,
                                         const char      *name);
void        _fl_platform_watch_free     (FlWatch         *watch);
bool        _fl_platform_watch_has_events (FlWatch       *watch);
/* Replaces the watched process. False when nothing is watched now: @pid is 0 (none), gone, or
 * cannot be watched; the caller then re-checks with backoff. */
bool        _fl_platform_watch_process  (FlWatch         *watch,
                                         int              pid);
/* Also FL_WATCH_NAME once the holder's descriptor of @file, a lock file open for reading, is
 * closed (Linux: IN_CLOSE_WRITE), which may come a moment before its kernel lock is dropped.
 * Replaces the watched file; FL_HANDLE_NONE watches none. False when nothing is watched. */
bool        _fl_platform_watch_file     (FlWatch         *watch,
                                         FlHandle         file);
/* @timeout_ms < 0 waits without limit; @cancel may be FL_HANDLE_NONE. */
FlWatchResult _fl_platform_watch_wait   (FlWatch         *watch,
                                         int              timeout_ms,
                                         FlHandle         cancel);
/* For tests: how many things the calling thread's last watch left to put away at its next
 * wait (Linux: the pidfd, the queue's last events), so that an acquirer woken from a wait
 * returns without putting them away first (docs/performance.md, "Handoff"); 0 where a watch
 * leaves nothing. */
int         _fl_platform_watch_deferred (void);


/* For the crash-point tests only: the process dies at once, as from SIGKILL, running nothing. */
void        _fl_platform_die_now        (void);

/* The protocol reached the end of a step that docs/protocol.md names ("A3", "T2", "C1", "R2").
 * Does nothing, on every platform. It is the one place where a test injects a fault at a step:
 * tests/helpers/fl-crash-shim.c replaces it at link time (-Wl,--wrap, as it replaces the
 * system calls) in the worker that the crash tests kill at a named step, so the library holds
 * no test code. Defined apart from its callers, so that no compiler folds it into them. */
void        _fl_platform_step_done      (const char      *step);

#ifdef __cplusplus
}
#endif
