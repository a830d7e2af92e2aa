/* fl-platform-linux.c: fl-platform.h on Linux
 *
 * Directories are descriptors and every name is looked up with the *at() calls, so a directory
 * renamed or replaced under its path stays the one we opened. Kernel locks are flock(), which
 * belongs to the open file description: every handle on the file shares it, and the kernel
 * drops it when the last one closes. Processes come from kill(pid, 0) and /proc; waiting is
 * inotify on the directory plus a pidfd.
 *
 * Plain C and libc only, as fl-platform.h promises.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/auxv.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "platform/fl-platform.h"
#include "platform/fl-platform-linux.h"

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif


struct _FlDir
{
  int fd;
};

static int
fd_of (FlHandle file)
{
  return (int) file;
}

static int64_t
timespec_us (const struct timespec *ts)
{
  return (int64_t) ts->tv_sec * 1000000 + ts->tv_nsec / 1000;
}

static void
info_from_stat (const struct stat *st,
                FlFileInfo        *info)
{
  if (S_ISREG (st->st_mode))
    info->type = FL_FILE_REGULAR;
  else if (S_ISDIR (st->st_mode))
    info->type = FL_FILE_DIRECTORY;
  else if (S_ISLNK (st->st_mode))
    info->type = FL_FILE_SYMLINK;
  else if (S_ISFIFO (st->st_mode))
    info->type = FL_FILE_FIFO;
  else if (S_ISSOCK (st->st_mode))
    info->type = FL_FILE_SOCKET;
  else
    info->type = FL_FILE_DEVICE;
  info->id.dev = (uint64_t) st->st_dev;
  info->id.ino = (uint64_t) st->st_ino;
  info->size = (int64_t) st->st_size;
  info->mtime_ns = (int64_t) st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
  info->ctime_ns = (int64_t) st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
  info->uid = (int64_t) st->st_uid;
  info->mode = (uint32_t) (st->st_mode & 07777);
  info->nlink = (uint32_t) st->st_nlink;
}

/* Reads at most size - 1 bytes of a small system file and terminates them: -1 with errno set
 * when it cannot be opened. A bound keeps a hostile or odd file from costing more. */
static ssize_t
read_bounded (const char *path,
              char       *buf,
              size_t      size)
{
  size_t total = 0;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return -1;

  while (total < size - 1)
    {
      ssize_t n = read (fd, buf + total, size - 1 - total);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      total += (size_t) n;
    }
  close (fd);

  buf[total] = '\0';
  return (ssize_t) total;
}


/* Directories */

static int
open_directory (const char *path)
{
  return open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
}

/* mkdir -p, each level 0777 minus the umask, as g_mkdir_with_parents() does. */
static int
make_directories (const char *path)
{
  char buf[PATH_MAX];
  size_t len = strlen (path);

  if (len == 0 || len >= sizeof buf)
    return ENAMETOOLONG;
  memcpy (buf, path, len + 1);

  for (char *p = buf + 1; ; p++)
    {
      if (*p == '/' || *p == '\0')
        {
          char saved = *p;

          *p = '\0';
          if (mkdir (buf, 0777) < 0 && errno != EEXIST)
            return errno;
          *p = saved;
          if (saved == '\0')
            return 0;
        }
    }
}

/* Takes @fd: an FlDir on it, or ENOMEM with @fd closed. */
static int
dir_wrap (int     fd,
          FlDir **out)
{
  *out = malloc (sizeof **out);
  if (*out == NULL)
    {
      close (fd);
      return ENOMEM;
    }
  (*out)->fd = fd;
  return 0;
}

int
_fl_platform_dir_open (const char *path,
                       bool        create,
                       FlDir     **out)
{
  int fd = open_directory (path);

  *out = NULL;
  if (fd < 0 && errno == ENOENT && create)
    {
      int err = make_directories (path);

      if (err != 0)
        return err;
      fd = open_directory (path);
    }
  if (fd < 0)
    return errno;

  return dir_wrap (fd, out);
}

int
_fl_platform_dir_open_at (FlDir      *dir,
                          const char *name,
                          FlDir     **out)
{
  int fd = openat (dir->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

  *out = NULL;
  if (fd < 0)
    return errno;
  return dir_wrap (fd, out);
}

bool
_fl_platform_dir_keep_open (void)
{
  return true;
}

void
_fl_platform_dir_close (FlDir *dir)
{
  if (dir == NULL)
    return;
  close (dir->fd);
  free (dir);
}

int
_fl_platform_dir_info (FlDir      *dir,
                       FlFileInfo *info)
{
  struct stat st;

  if (fstat (dir->fd, &st) < 0)
    return errno;
  info_from_stat (&st, info);
  return 0;
}

struct _FlDirList
{
  DIR *dir;
};

int
_fl_platform_dir_list_open (FlDir      *dir,
                            FlDirList **out)
{
  /* A description of its own: fdopendir() takes the descriptor, and a dup() would share its
   * offset with any other listing of the same directory. */
  int fd = openat (dir->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
  DIR *d;

  *out = NULL;
  if (fd < 0)
    return errno;
  d = fdopendir (fd);
  if (d == NULL)
    {
      int err = errno;
      close (fd);
      return err;
    }
  *out = malloc (sizeof **out);
  if (*out == NULL)
    {
      closedir (d);
      return ENOMEM;
    }
  (*out)->dir = d;
  return 0;
}

const char *
_fl_platform_dir_list_next (FlDirList  *list,
                            FlFileType *type)
{
  struct dirent *de;

  while ((de = readdir (list->dir)) != NULL)
    {
      const char *n = de->d_name;

      if (n[0] == '.' && (n[1] == '\0' || (n[1] == '.' && n[2] == '\0')))
        continue;
      switch (de->d_type)
        {
        case DT_REG:  *type = FL_FILE_REGULAR; break;
        case DT_DIR:  *type = FL_FILE_DIRECTORY; break;
        case DT_LNK:  *type = FL_FILE_SYMLINK; break;
        case DT_FIFO: *type = FL_FILE_FIFO; break;
        case DT_SOCK: *type = FL_FILE_SOCKET; break;
        case DT_CHR:
        case DT_BLK:  *type = FL_FILE_DEVICE; break;
        default:      *type = FL_FILE_UNKNOWN; break;
        }
      return n;
    }
  return NULL;
}

void
_fl_platform_dir_list_close (FlDirList *list)
{
  if (list == NULL)
    return;
  closedir (list->dir);
  free (list);
}


/* Files by name */

int
_fl_platform_stat_at (FlDir      *dir,
                      const char *name,
                      FlFileInfo *info)
{
  struct stat st;

  if (fstatat (dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno;
  info_from_stat (&st, info);
  return 0;
}

int
_fl_platform_stat_path (const char *path,
                        FlFileInfo *info)
{
  struct stat st;

  if (fstatat (AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return errno;
  info_from_stat (&st, info);
  return 0;
}

int
_fl_platform_open_read (FlDir      *dir,
                        const char *name,
                        FlHandle   *out)
{
  int fd = openat (dir->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

  *out = fd;
  return fd < 0 ? errno : 0;
}

/* Exactly 0644 whatever the umask (docs/protocol.md, section 1): a peer of another user (the
 * Node module) that cannot read the PID falls back to its mtime rule and takes over a live
 * lock. Best effort: where the filesystem has no modes (vfat, some FUSE mounts) fchmod() fails
 * and the mount's options decide, as they do for every file there. */
static void
readable_by_all (int fd)
{
  (void) fchmod (fd, 0644);
}

int
_fl_platform_create_excl (FlDir      *dir,
                          const char *name,
                          FlHandle   *out)
{
  int fd = openat (dir->fd, name,
                   O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);

  *out = fd;
  if (fd < 0)
    return errno;
  readable_by_all (fd);
  return 0;
}

int
_fl_platform_create_unnamed (FlDir    *dir,
                             FlHandle *out)
{
  int fd = openat (dir->fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);

  *out = fd;
  if (fd >= 0)
    {
      readable_by_all (fd);
      return 0;
    }
  /* Old kernels and filesystems without O_TMPFILE say one of these: no unnamed files here. */
  if (errno == EISDIR || errno == EINVAL || errno == ENOENT)
    return EOPNOTSUPP;
  return errno;
}

int
_fl_platform_link_noreplace (FlDir      *dir,
                             const char *from,
                             const char *to)
{
  return linkat (dir->fd, from, dir->fd, to, 0) < 0 ? errno : 0;
}

int
_fl_platform_link_unnamed (FlDir      *dir,
                           FlHandle    file,
                           const char *to)
{
  /* 1: AT_EMPTY_PATH names our own O_TMPFILE (Linux 6.10 allows it for the credentials that
   * opened the file; before, only with CAP_DAC_READ_SEARCH); 0: it did not, use /proc. */
  static int empty_path_works = 1;
  char proc_path[64];
  int err;

  /* Straight from the descriptor: no path, and no walk through /proc (1.5-2 us of a cycle). */
  if (__atomic_load_n (&empty_path_works, __ATOMIC_RELAXED))
    {
      if (linkat (fd_of (file), "", dir->fd, to, AT_EMPTY_PATH) == 0)
        return 0;
      if (errno != ENOENT && errno != EPERM)
        return errno;
    }

  /* Through /proc, which any user may do. Without /proc this says ENOENT, and the caller makes
   * a named temp instead. */
  snprintf (proc_path, sizeof proc_path, "/proc/self/fd/%d", fd_of (file));
  err = linkat (AT_FDCWD, proc_path, dir->fd, to, AT_SYMLINK_FOLLOW) < 0 ? errno : 0;
  if (err == 0)
    __atomic_store_n (&empty_path_works, 0, __ATOMIC_RELAXED);  /* refused where /proc is not */
  return err;
}

int
_fl_platform_rename_noreplace (FlDir      *dir,
                               const char *from,
                               const char *to)
{
  if (renameat2 (dir->fd, from, dir->fd, to, RENAME_NOREPLACE) == 0)
    return 0;
  /* Some filesystems lack the flag; callers rename only to fresh random names. */
  if (errno == EINVAL || errno == ENOSYS)
    return renameat (dir->fd, from, dir->fd, to) < 0 ? errno : 0;
  return errno;
}

int
_fl_platform_unlink (FlDir      *dir,
                     const char *name)
{
  return unlinkat (dir->fd, name, 0) < 0 ? errno : 0;
}

int
_fl_platform_unlink_held (FlDir          *dir,
                          const char     *name,
                          FlHandle        held,
                          const FlFileId *held_id)
{
  struct stat st, named;
  FlFileId ours;

  if (held_id != NULL)
    ours = *held_id;
  else if (fstat (fd_of (held), &st) < 0)
    return errno;
  else
    ours = (FlFileId) { (uint64_t) st.st_dev, (uint64_t) st.st_ino };
  if (fstatat (dir->fd, name, &named, AT_SYMLINK_NOFOLLOW) < 0)
    return errno;
  if ((uint64_t) named.st_dev != ours.dev || (uint64_t) named.st_ino != ours.ino)
    return ESTALE;
  return unlinkat (dir->fd, name, 0) < 0 ? errno : 0;
}


/* Open files */

void
_fl_platform_close (FlHandle file)
{
  if (file >= 0)
    close (fd_of (file));
}

int
_fl_platform_file_info (FlHandle    file,
                        FlFileInfo *info)
{
  struct stat st;

  if (fstat (fd_of (file), &st) < 0)
    return errno;
  info_from_stat (&st, info);
  return 0;
}

int
_fl_platform_read_head (FlHandle  file,
                        char     *buf,
                        size_t    size,
                        size_t   *n_read)
{
  ssize_t n;

  do
    n = pread (fd_of (file), buf, size, 0);
  while (n < 0 && errno == EINTR);

  *n_read = n > 0 ? (size_t) n : 0;
  return n < 0 ? errno : 0;
}

int
_fl_platform_write_all (FlHandle    file,
                        const char *buf,
                        size_t      len)
{
  while (len > 0)
    {
      ssize_t n = write (fd_of (file), buf, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      if (n == 0)
        return ENOSPC;
      buf += n;
      len -= (size_t) n;
    }
  return 0;
}

/* Whether PIDs in a file of this type may be another machine's. */
static bool
fs_type_is_remote (unsigned long type)
{
  switch (type)
    {
    case 0x6969:      /* NFS */
    case 0xFF534D42:  /* CIFS */
    case 0xFE534D42:  /* SMB2 */
    case 0x517B:      /* SMB */
    case 0x65735546:  /* FUSE */
    case 0x564c:      /* NCP */
    case 0x6B414653:  /* AFS */
    case 0x01021997:  /* 9P */
    case 0x00C36400:  /* CEPH */
      return true;
    default:
      return false;
    }
}

/* The types are those of <linux/magic.h> (some are out of tree: ZFS, Lustre, AuFS). What each
 * class means and how it was measured: docs/protocol.md, section 2, "Filesystems". */
static FlFsLocks
fs_type_locks (unsigned long type)
{
  switch (type)
    {
    case 0xEF53:      /* ext2, ext3, ext4 */
    case 0x58465342:  /* XFS */
    case 0x9123683E:  /* Btrfs */
    case 0x01021994:  /* tmpfs */
    case 0x858458F6:  /* ramfs */
    case 0xF2F52010:  /* F2FS */
    case 0x3153464A:  /* JFS */
    case 0x52654973:  /* ReiserFS */
    case 0xCA451A4E:  /* bcachefs */
    case 0x2FC12FC1:  /* ZFS */
      return FL_FS_LOCKS_CARRIED;

    case 0x65735546:  /* FUSE (sshfs, bindfs, rclone, s3fs, virtiofs...) */
    case 0x794C7630:  /* overlayfs */
    case 0x61756673:  /* AuFS */
    case 0xF15F:      /* eCryptfs */
    case 0x6969:      /* NFS */
    case 0xFF534D42:  /* CIFS */
    case 0xFE534D42:  /* SMB2 */
    case 0x517B:      /* SMB */
    case 0x564C:      /* NCP */
    case 0x6B414653:  /* AFS */
    case 0x5346414F:  /* kAFS */
    case 0x01021997:  /* 9P */
    case 0x00C36400:  /* Ceph */
    case 0x01161970:  /* GFS2 */
    case 0x7461636F:  /* OCFS2 */
    case 0x20030528:  /* OrangeFS */
    case 0x0BD00BD0:  /* Lustre */
    case 0x73757245:  /* Coda */
      return FL_FS_LOCKS_UNTRUSTED;

    default:
      return FL_FS_LOCKS_UNPROVEN;
    }
}

/* A high-level FUSE daemon (bindfs, sshfs) answers fstatfs() by the file's path, so it fails
 * once the name is gone, however open the file is: that is no type, and no reason to trust a
 * free kernel lock (the caller gets the cautious answers and must not remember them). */
int
_fl_platform_file_fs (FlHandle   file,
                      FlFsLocks *locks,
                      bool      *remote)
{
  struct statfs sfs;

  if (fstatfs (fd_of (file), &sfs) < 0)
    {
      *locks = FL_FS_LOCKS_UNTRUSTED;
      *remote = true;
      return errno;
    }
  *locks = fs_type_locks ((unsigned long) sfs.f_type);
  *remote = fs_type_is_remote ((unsigned long) sfs.f_type);
  return 0;
}

/* An OFD lock on the last byte a file can have: no content is ever there, flock() never meets
 * it, and the lock belongs to the kernel inode, whatever its number says. */
static struct flock
inode_mark (short type)
{
  struct flock mark = { 0 };

  mark.l_type = type;
  mark.l_whence = SEEK_SET;
  mark.l_start = INT64_MAX - 1;
  mark.l_len = 1;
  return mark;
}

int
_fl_platform_inode_mark (FlHandle file,
                         bool     set)
{
  struct flock mark = inode_mark (set ? F_WRLCK : F_UNLCK);

  return fcntl (fd_of (file), F_OFD_SETLK, &mark) < 0 ? errno : 0;
}

int
_fl_platform_inode_marked (FlHandle  file,
                           bool     *seen)
{
  struct flock mark = inode_mark (F_RDLCK);

  *seen = false;
  if (fcntl (fd_of (file), F_OFD_GETLK, &mark) < 0)
    return errno;
  *seen = mark.l_type != F_UNLCK;
  return 0;
}

int
_fl_platform_dup (FlHandle  file,
                  FlHandle *out)
{
  int fd = fcntl (fd_of (file), F_DUPFD_CLOEXEC, 3);

  *out = fd;
  return fd < 0 ? errno : 0;
}

int
_fl_platform_identity_set (FlHandle    file,
                           const char *buf,
                           size_t      len)
{
  return fsetxattr (fd_of (file), FL_IDENTITY_XATTR, buf, len, 0) < 0 ? errno : 0;
}

int
_fl_platform_identity_get (FlHandle  file,
                           char     *buf,
                           size_t    size,
                           size_t   *len)
{
  ssize_t n = fgetxattr (fd_of (file), FL_IDENTITY_XATTR, buf, size);

  *len = n > 0 ? (size_t) n : 0;
  return n < 0 ? errno : 0;
}


/* The kernel lock */

int
_fl_platform_kernel_lock (FlHandle     file,
                          FlKernelMode mode)
{
  int op = (mode == FL_KERNEL_EXCLUSIVE ? LOCK_EX : LOCK_SH) | LOCK_NB;

  return flock (fd_of (file), op) < 0 ? errno : 0;
}

int
_fl_platform_readlink_at (FlDir      *dir,
                          const char *name,
                          char       *buf,
                          size_t      size,
                          size_t     *len)
{
  ssize_t n;

  *len = 0;
  if (size < 2)
    return EINVAL;
  n = readlinkat (dir->fd, name, buf, size);
  if (n < 0)
    return errno;
  if ((size_t) n >= size)
    return ENAMETOOLONG;
  buf[n] = '\0';
  *len = (size_t) n;
  return 0;
}

int
_fl_platform_record_lock_holder (FlHandle  file,
                                 int      *pid)
{
  /* F_GETLK, not F_OFD_GETLK: it reports both kinds, and the PID of a POSIX holder. */
  struct flock query = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

  *pid = 0;
  if (fcntl (fd_of (file), F_GETLK, &query) < 0)
    return errno;
  if (query.l_type != F_UNLCK)
    *pid = query.l_pid > 0 ? query.l_pid : -1;
  return 0;
}

/* /proc/locks, one line per lock: "1: FLOCK  ADVISORY  READ  1234 08:01:5678 0 EOF"; a process
 * blocked waiting for a lock gets a line that starts "1: -> FLOCK". The device is printed as
 * major:minor in hex; an OFD lock's PID is -1 (it belongs to an open file, not a process). The
 * file lists every lock of the system, so it is read in chunks, a line at a time, up to a
 * bound; a line longer than the buffer is skipped. /proc/PID/fdinfo/FD repeats the lines of
 * the locks on that open file after "lock:\t", which is how an OFD lock's holder is found. */
#define PROC_LOCKS_MAX (8 * 1024 * 1024)
#define SYSTEM_LOCKS_MAX 65536
#define PROCESSES_MAX 65536
#define PROCESS_FDS_MAX 65536

/* False for a line that cannot be read or names no file ("<none>"). */
static bool
parse_locks_line (const char   *line,
                  FlSystemLock *lock)
{
  static const char *const types[] = {
    [FL_SYSTEM_LOCK_FLOCK] = "FLOCK", [FL_SYSTEM_LOCK_POSIX] = "POSIX",
    [FL_SYSTEM_LOCK_OFD] = "OFDLCK", [FL_SYSTEM_LOCK_LEASE] = "LEASE",
    [FL_SYSTEM_LOCK_DELEG] = "DELEG",
  };
  const char *p = strchr (line, ':');
  char type[16], kind[16], mode[16], end[24];
  unsigned int major_, minor_;
  unsigned long long ino;
  long long start;
  int pid;

  if (p == NULL)
    return false;
  p += strspn (p + 1, " ") + 1;
  memset (lock, 0, sizeof *lock);
  lock->blocked = strncmp (p, "->", 2) == 0;
  if (lock->blocked)
    p += 2;
  if (sscanf (p, " %15s %15s %15s %d %x:%x:%llu %lld %23s", type, kind, mode, &pid, &major_,
              &minor_, &ino, &start, end) != 9)
    return false;

  lock->type = FL_SYSTEM_LOCK_OTHER;
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if (strcmp (type, types[i]) == 0)
      lock->type = (FlSystemLockType) i;
  lock->mode = strcmp (mode, "WRITE") == 0 ? FL_SYSTEM_LOCK_WRITE
               : strcmp (mode, "READ") == 0 ? FL_SYSTEM_LOCK_READ : FL_SYSTEM_LOCK_NONE;
  /* Newer kernels may show the PID that took an OFD lock; older ones -1. */
  lock->pid = pid > 0 ? pid : 0;
  lock->id.dev = (uint64_t) makedev (major_, minor_);
  lock->id.ino = ino;
  lock->start = start;
  lock->end = strcmp (end, "EOF") == 0 ? -1 : strtoll (end, NULL, 10);
  return true;
}

/* Calls @func for every lock /proc/locks lists, until it returns false. */
static int
read_proc_locks (bool  (*func) (const FlSystemLock *lock,
                                void               *data),
                 void   *data)
{
  char buf[4096];
  size_t have = 0, total = 0;
  bool skipping = false, more = true;
  int fd;

  fd = open ("/proc/locks", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return errno;

  while (more && total < PROC_LOCKS_MAX)
    {
      ssize_t n = read (fd, buf + have, sizeof buf - 1 - have);
      char *line, *nl;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      total += (size_t) n;
      have += (size_t) n;
      buf[have] = '\0';

      line = buf;
      while (more && (nl = strchr (line, '\n')) != NULL)
        {
          FlSystemLock lock;

          *nl = '\0';
          if (!skipping && parse_locks_line (line, &lock))
            more = func (&lock, data);
          skipping = false;
          line = nl + 1;
        }
      have = (size_t) (buf + have - line);
      memmove (buf, line, have);
      if (have == sizeof buf - 1)
        {
          have = 0;
          skipping = true;
        }
    }

  close (fd);
  return 0;
}

typedef struct
{
  FlFileId      id;
  bool          shared;
  int           self;
  int          *pids;
  size_t        max;
  size_t       *n_pids;
} HoldersQuery;

static bool
add_holder (const FlSystemLock *lock,
            void               *data)
{
  HoldersQuery *q = data;

  if (lock->blocked || lock->type != FL_SYSTEM_LOCK_FLOCK || !fl_file_id_equal (&lock->id, &q->id)
      || lock->mode != (q->shared ? FL_SYSTEM_LOCK_READ : FL_SYSTEM_LOCK_WRITE))
    return true;
  if (lock->pid <= 0 || lock->pid == q->self)
    return true;
  for (size_t i = 0; i < *q->n_pids; i++)
    if (q->pids[i] == lock->pid)
      return true;
  q->pids[(*q->n_pids)++] = lock->pid;
  return *q->n_pids < q->max;
}

bool
_fl_platform_kernel_lock_holders (const FlFileId *id,
                                  FlKernelMode    mode,
                                  int            *pids,
                                  size_t          max,
                                  size_t         *n_pids)
{
  HoldersQuery q = { *id, mode == FL_KERNEL_SHARED, (int) getpid (), pids, max, n_pids };

  *n_pids = 0;
  if (max == 0)
    return true;
  return read_proc_locks (add_holder, &q) == 0;
}

typedef struct
{
  FlSystemLock *locks;
  size_t        n, allocated;
  int           error;
} SystemLocks;

static bool
add_system_lock (const FlSystemLock *lock,
                 void               *data)
{
  SystemLocks *all = data;

  if (all->n == all->allocated)
    {
      size_t allocated = all->allocated == 0 ? 64 : all->allocated * 2;
      FlSystemLock *locks = realloc (all->locks, allocated * sizeof *locks);

      if (locks == NULL)
        {
          all->error = ENOMEM;
          return false;
        }
      all->locks = locks;
      all->allocated = allocated;
    }
  all->locks[all->n++] = *lock;
  return all->n < SYSTEM_LOCKS_MAX;
}

/* Orders locks by everything /proc/locks says of them, so that equal lines are neighbours. */
static int
compare_system_locks (const void *a,
                      const void *b)
{
  const FlSystemLock *x = a, *y = b;

#define CMP(field) if (x->field != y->field) return x->field < y->field ? -1 : 1
  CMP (id.dev);
  CMP (id.ino);
  CMP (type);
  CMP (mode);
  CMP (pid);
  CMP (start);
  CMP (end);
  CMP (blocked);
#undef CMP
  return 0;
}

/* /proc/locks is read a page at a time, and the kernel lists from a position: a lock taken
 * between two reads (the list is kept newest first) moves every line down by one, and the line
 * at the page's edge comes twice. Two equal lines are such a repeat, or two locks nobody could
 * tell apart (the same process's shared flock through two open files): listed once either way.
 * A lock released between two reads moves every line up by one, and the line at the edge is
 * missed: so the table is read twice and the union kept (_fl_platform_system_locks()); a lock
 * held throughout is missed only if both reads miss it, where the next listing has it. */
static void
drop_repeated_locks (FlSystemLock *locks,
                     size_t       *n)
{
  size_t kept = 0;

  if (*n < 2)
    return;
  qsort (locks, *n, sizeof *locks, compare_system_locks);
  for (size_t i = 0; i < *n; i++)
    if (kept == 0 || compare_system_locks (&locks[kept - 1], &locks[i]) != 0)
      locks[kept++] = locks[i];
  *n = kept;
}

/* Whether the open file @fd of @pid holds @lock: its fdinfo lists it. */
static bool
fd_holds_lock (int                 pid,
               const char         *fd,
               const FlSystemLock *lock)
{
  char path[64], buf[4096];
  const char *line;

  snprintf (path, sizeof path, "/proc/%d/fdinfo/%s", pid, fd);
  if (read_bounded (path, buf, sizeof buf) < 0)
    return false;
  for (line = strstr (buf, "lock:"); line != NULL; line = strstr (line + 1, "lock:"))
    {
      FlSystemLock found;

      if (parse_locks_line (line + 5, &found) && found.type == lock->type
          && found.mode == lock->mode && fl_file_id_equal (&found.id, &lock->id))
        return true;
    }
  return false;
}

static char *
read_link_at (int         dir_fd,
              const char *name)
{
  char target[PATH_MAX];
  ssize_t n = readlinkat (dir_fd, name, target, sizeof target - 1);

  if (n <= 0)
    return NULL;
  target[n] = '\0';
  return strdup (target);
}

/* The open files of @pid, /proc/PID/fd, to read with readdir() and fstatat (dirfd ()); NULL
 * with errno set when it is gone (ENOENT) or closed to us. */
static DIR *
open_process_fds (int pid)
{
  char path[64];
  DIR *dir;
  int dir_fd;

  snprintf (path, sizeof path, "/proc/%d/fd", pid);
  dir_fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dir_fd < 0)
    return NULL;
  dir = fdopendir (dir_fd);
  if (dir == NULL)
    {
      int saved = errno;

      close (dir_fd);
      errno = saved;
    }
  return dir;
}

/* Finds the paths of @locks among the open files of @pid, as lslocks does: the locks @pid
 * holds, or (@unknown) the locks of no known process that one of its open files holds. A
 * process that is gone or hides its files (EACCES) leaves them unknown. */
static void
match_process_files (int           pid,
                     FlSystemLock *locks,
                     size_t        n,
                     bool          unknown)
{
  struct dirent *entry;
  size_t seen = 0;
  DIR *dir = open_process_fds (pid);
  int dir_fd;

  if (dir == NULL)
    return;
  dir_fd = dirfd (dir);
  while ((entry = readdir (dir)) != NULL && seen++ < PROCESS_FDS_MAX)
    {
      struct stat st;

      /* stat() of the link reads the open file's inode; it opens nothing. */
      if (entry->d_name[0] == '.' || fstatat (dir_fd, entry->d_name, &st, 0) < 0)
        continue;
      for (size_t i = 0; i < n; i++)
        {
          FlSystemLock *lock = &locks[i];

          if (lock->path != NULL || lock->id.ino != (uint64_t) st.st_ino
              || lock->id.dev != (uint64_t) st.st_dev)
            continue;
          if (unknown ? lock->pid != 0 || !fd_holds_lock (pid, entry->d_name, lock)
                      : lock->pid != pid)
            continue;
          lock->path = read_link_at (dir_fd, entry->d_name);
          lock->pid = pid;
        }
    }
  closedir (dir);
}

/* Holders without a PID (OFD locks) are looked for in every process. */
static void
match_unknown_holders (FlSystemLock *locks,
                       size_t        n)
{
  struct dirent *entry;
  size_t seen = 0;
  DIR *proc;

  proc = opendir ("/proc");
  if (proc == NULL)
    return;
  while ((entry = readdir (proc)) != NULL && seen < PROCESSES_MAX)
    {
      char *end;
      long pid = strtol (entry->d_name, &end, 10);

      if (*end != '\0' || pid <= 0 || pid > FL_PLATFORM_PID_MAX)
        continue;
      seen++;
      match_process_files ((int) pid, locks, n, true);
    }
  closedir (proc);
}

/* Whether @pid has the file @id open; -1 when its open files are closed to us. */
static int
process_has_file (int             pid,
                  const FlFileId *id)
{
  struct dirent *entry;
  size_t seen = 0;
  int found = 0;
  DIR *dir = open_process_fds (pid);
  int dir_fd;

  if (dir == NULL)
    return errno == ENOENT ? 0 : -1;
  dir_fd = dirfd (dir);
  while (found == 0 && (entry = readdir (dir)) != NULL && seen++ < PROCESS_FDS_MAX)
    {
      struct stat st;

      if (entry->d_name[0] != '.' && fstatat (dir_fd, entry->d_name, &st, 0) == 0
          && id->ino == (uint64_t) st.st_ino && id->dev == (uint64_t) st.st_dev)
        found = 1;
    }
  closedir (dir);
  return found;
}

bool
_fl_platform_file_keepers (const FlFileId *id,
                           int            *pids,
                           size_t          max,
                           size_t         *n_pids)
{
  struct dirent *entry;
  size_t seen = 0;
  bool complete = true;
  int self = (int) getpid ();
  DIR *proc;

  *n_pids = 0;
  proc = opendir ("/proc");
  if (proc == NULL)
    return false;
  while ((entry = readdir (proc)) != NULL && seen < PROCESSES_MAX && *n_pids < max)
    {
      char *end;
      long pid = strtol (entry->d_name, &end, 10);
      int has;

      if (*end != '\0' || pid <= 0 || pid > FL_PLATFORM_PID_MAX || pid == self)
        continue;
      seen++;
      has = process_has_file ((int) pid, id);
      if (has < 0)
        complete = false;
      else if (has > 0)
        pids[(*n_pids)++] = (int) pid;
    }
  closedir (proc);
  return complete;
}

int
_fl_platform_system_locks (FlSystemLock **out,
                           size_t        *n_out)
{
  SystemLocks all = { NULL, 0, 0, 0 };
  bool *done;
  bool unknown = false;
  int err;

  *out = NULL;
  *n_out = 0;
  err = read_proc_locks (add_system_lock, &all);
  if (err == 0 && all.error == 0)
    err = read_proc_locks (add_system_lock, &all);  /* the union: drop_repeated_locks() */
  if (err == 0)
    err = all.error;
  if (err != 0 || all.n == 0)
    {
      free (all.locks);
      return err;
    }
  drop_repeated_locks (all.locks, &all.n);

  done = calloc (all.n, sizeof *done);
  if (done == NULL)
    {
      free (all.locks);
      return ENOMEM;
    }
  /* Each holder's open files once, for all of its locks. */
  for (size_t i = 0; i < all.n; i++)
    {
      int pid = all.locks[i].pid;

      unknown |= pid == 0;
      if (pid == 0 || done[i])
        continue;
      match_process_files (pid, all.locks, all.n, false);
      for (size_t j = i; j < all.n; j++)
        done[j] |= all.locks[j].pid == pid;
    }
  free (done);
  if (unknown)
    match_unknown_holders (all.locks, all.n);

  *out = all.locks;
  *n_out = all.n;
  return 0;
}

void
_fl_platform_system_locks_free (FlSystemLock *locks,
                                size_t        n)
{
  for (size_t i = 0; i < n; i++)
    free (locks[i].path);
  free (locks);
}


/* Processes */

bool
_fl_parse_proc_stat (const char  *buf,
                     size_t       len,
                     char       **comm,
                     char        *state,
                     uint32_t    *flags,
                     uint64_t    *start_ticks)
{
  const char *open_paren, *close_paren, *p, *end = buf + len;
  unsigned int field = 3;
  uint64_t value = 0;
  unsigned long long task_flags = 0;

  open_paren = memchr (buf, '(', len);
  if (open_paren == NULL)
    return false;

  /* comm may itself contain ") ": the real end is the last ')'. */
  close_paren = NULL;
  for (p = end; p > open_paren; p--)
    if (p[-1] == ')')
      {
        close_paren = p - 1;
        break;
      }
  if (close_paren == NULL || close_paren + 2 >= end || close_paren[1] != ' ')
    return false;

  p = close_paren + 2;
  *state = *p;

  /* Walk to field 22, starttime, reading field 9 (the task's flags) on the way. */
  while (p < end && field < 22)
    {
      if (*p == ' ')
        {
          field++;
          if (field == 9)
            task_flags = strtoull (p + 1, NULL, 10);
        }
      p++;
    }
  if (field != 22 || p >= end || *p < '0' || *p > '9')
    return false;

  for (; p < end && *p >= '0' && *p <= '9'; p++)
    {
      uint64_t digit = (uint64_t) (*p - '0');

      /* Exact: value * 10 + digit fits exactly when value <= (MAX - digit) / 10. */
      if (value > (UINT64_MAX - digit) / 10)
        return false;
      value = value * 10 + digit;
    }
  *start_ticks = value;
  if (flags != NULL)
    *flags = (uint32_t) task_flags;

  if (comm != NULL)
    *comm = strndup (open_paren + 1, (size_t) (close_paren - open_paren - 1));

  return true;
}

int64_t
_fl_platform_boottime_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_BOOTTIME, &ts);
  return timespec_us (&ts);
}

static int64_t
realtime_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  return timespec_us (&ts);
}

static long clock_ticks_per_second;

static void
init_clock_ticks (void)
{
  long value = sysconf (_SC_CLK_TCK);

  clock_ticks_per_second = value > 0 ? value : 100;
}

static int64_t
ticks_to_us (uint64_t ticks)
{
  /* Once, safely: the directory model judges files from several threads. pthread_once() rather
   * than anything GLib's: ThreadSanitizer sees its ordering. */
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once (&once, init_clock_ticks);
  return (int64_t) (ticks * (1000000 / (uint64_t) clock_ticks_per_second));
}

/* After `unshare --pid --fork` without a new /proc mount, /proc shows the parent's namespace,
 * where /proc/<pid> is another process than our <pid>. */
bool
_fl_platform_processes_visible (void)
{
  char link[32];
  ssize_t n;
  long long pid;
  char *end;

  n = readlink ("/proc/self", link, sizeof link - 1);
  if (n <= 0)
    return false;
  link[n] = '\0';
  pid = strtoll (link, &end, 10);
  return *end == '\0' && pid == (long long) getpid ();
}

/* include/linux/sched.h: the task is in do_exit() (a stable part of the /proc ABI; ps reads
 * the same flags). */
#define PF_EXITING 0x00000004u

/* A thread group whose leader called pthread_exit() shows the leader as a zombie while its
 * other threads run: only a group with no other thread left has exited. */
static bool
zombie_group_has_threads (int pid)
{
  char path[64];
  char buf[2048];
  const char *line;

  snprintf (path, sizeof path, "/proc/%d/status", pid);
  if (read_bounded (path, buf, sizeof buf) <= 0)
    return true;  /* cannot tell: a live holder must not be called dead */
  line = strstr (buf, "\nThreads:");
  if (line == NULL)
    return true;
  return strtoll (line + strlen ("\nThreads:"), NULL, 10) > 1;
}

void
_fl_platform_process_probe (int            pid,
                            bool           details,
                            FlProcessInfo *info)
{
  char path[64];
  char buf[1024];
  ssize_t len;
  char state = '?';
  uint32_t flags = 0;
  struct stat st;

  memset (info, 0, sizeof *info);
  info->uid = -1;

  /* Never let a PID <= 0 reach kill(): 0 and -1 mean "my group" and "everyone". */
  if (pid <= 0 || pid > FL_PLATFORM_PID_MAX)
    {
      info->state = FL_PROCESS_UNKNOWN;
      return;
    }

  if (kill (pid, 0) < 0 && errno == ESRCH)
    {
      info->state = FL_PROCESS_GONE;
      return;
    }

  /* From here the process exists: only ESRCH is gone (docs/protocol.md, "evidence"). What
   * /proc cannot show (hidepid, no /proc, another namespace's) leaves it running with its
   * start time unknown. */
  info->state = FL_PROCESS_RUNNING;

  if (!_fl_platform_processes_visible ())
    return;

  snprintf (path, sizeof path, "/proc/%d/stat", pid);
  len = read_bounded (path, buf, sizeof buf);
  if (len < 0)
    {
      /* Exited between kill() and open(), or hidden from us (hidepid=invisible says ENOENT
       * too): ask kill() again, which tells the two apart. */
      if ((errno == ENOENT || errno == ESRCH) && kill (pid, 0) < 0 && errno == ESRCH)
        info->state = FL_PROCESS_GONE;
      return;
    }

  if (_fl_parse_proc_stat (buf, (size_t) len, &info->name, &state, &flags, &info->start_ticks))
    {
      int64_t now_boot = _fl_platform_boottime_now ();

      /* A process inside exit() (PF_EXITING) has closed its files, kernel locks with them, and
       * will never run its own code again: it is gone, as its zombie will be a moment later.
       * Without this, a holder killed by a signal reads "alive" beside its free kernel lock
       * for the few milliseconds its exit takes. */
      if ((state == 'Z' || state == 'X' || (flags & PF_EXITING) != 0)
          && !zombie_group_has_threads (pid))
        info->state = FL_PROCESS_ZOMBIE;
      info->stopped = state == 'T';
      info->start_boot_us = ticks_to_us (info->start_ticks);
      info->start_real_us = realtime_now () - (now_boot - info->start_boot_us);
    }

  snprintf (path, sizeof path, "/proc/%d", pid);
  if (stat (path, &st) == 0)
    info->uid = st.st_uid;

  if (details)
    {
      char cmd[4096];

      snprintf (path, sizeof path, "/proc/%d/cmdline", pid);
      len = read_bounded (path, cmd, sizeof cmd);
      if (len > 0)
        {
          for (ssize_t i = 0; i < len; i++)
            if (cmd[i] == '\0')
              cmd[i] = ' ';
          while (len > 0 && cmd[len - 1] == ' ')
            cmd[--len] = '\0';
          info->cmdline = strndup (cmd, (size_t) len);
        }
    }
}

void
_fl_platform_process_info_clear (FlProcessInfo *info)
{
  free (info->name);
  info->name = NULL;
  free (info->cmdline);
  info->cmdline = NULL;
}

int
_fl_platform_self_pid (void)
{
  return (int) getpid ();
}

int64_t
_fl_platform_self_uid (void)
{
  return (int64_t) geteuid ();
}

bool
_fl_platform_is_privileged (void)
{
  /* AT_SECURE covers setuid, setgid and file capabilities; the IDs, a process that changed
   * them itself after starting. */
  return getauxval (AT_SECURE) != 0 || getuid () != geteuid () || getgid () != getegid ();
}

/* PROC_TIME_INIT_INO of the kernel's include/linux/proc_ns.h: the initial time namespace. */
#define INIT_TIME_NS_INO 0xEFFFFFFAu

void
_fl_platform_self (FlPlatformSelf *self)
{
  char stat_buf[1024];
  char buf[64];
  struct stat st;

  memset (self, 0, sizeof *self);

  /* /proc/self, not /proc/<pid>: in a PID namespace without its own /proc mount, the latter is
   * another process. */
  if (read_bounded ("/proc/self/stat", stat_buf, sizeof stat_buf) > 0)
    {
      char state;

      if (!_fl_parse_proc_stat (stat_buf, strlen (stat_buf), NULL, &state, NULL,
                                &self->start_ticks))
        self->start_ticks = 0;
    }

  if (read_bounded ("/proc/sys/kernel/random/boot_id", buf, sizeof buf) > 0)
    {
      size_t n = 0;

      for (const char *p = buf; *p && n < sizeof self->boot_id - 1; p++)
        if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))
          self->boot_id[n++] = *p;
        else if (*p >= 'A' && *p <= 'F')
          self->boot_id[n++] = (char) (*p - 'A' + 'a');
      self->boot_id[n] = '\0';
    }

  if (stat ("/proc/self/ns/pid", &st) == 0)
    {
      self->pidns = st.st_ino;
      /* /proc/PID/stat's start time is counted in the reader's time namespace. A kernel
       * without time namespaces (before 5.6) has one clock for all: the initial one's. */
      if (stat ("/proc/self/ns/time", &st) == 0)
        self->timens = st.st_ino;
      else if (errno == ENOENT)
        self->timens = INIT_TIME_NS_INO;
    }

  if (gethostname (self->host_name, sizeof self->host_name) != 0)
    self->host_name[0] = '\0';
  self->host_name[sizeof self->host_name - 1] = '\0';
}

size_t
_fl_platform_max_handles (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    return (size_t) limit.rlim_cur;
  return 0;
}

int
_fl_platform_process_watch (int       pid,
                            FlHandle *out)
{
  int fd;

  *out = FL_HANDLE_NONE;
  if (pid <= 0 || pid > FL_PLATFORM_PID_MAX)
    return EINVAL;
  /* pidfds are close-on-exec by definition. */
  fd = (int) syscall (SYS_pidfd_open, (pid_t) pid, 0u);
  if (fd < 0)
    return errno;
  *out = fd;
  return 0;
}


/* Waiting */

struct _FlWatch
{
  int   inotify_fd;  /* -1: no directory events */
  int   wd;
  int   file_wd;     /* the judged lock file's watch, -1: none */
  int   pidfd;       /* -1: no process watched */
  bool  pid_fired;   /* pidfd said the process exited: no longer polled */
  bool  own_fd;      /* inotify_fd is this watch's own, not the thread's */
  char *name;
};

/* Closing an inotify instance that had a watch costs milliseconds (the kernel waits for an
 * SRCU grace period), and an acquirer that waited would pay it while holding the lock. So each
 * thread keeps one instance and only adds and removes watches on it.
 *
 * An acquirer that was woken should also do as little as it can between the wake and its
 * acquire returning (docs/performance.md, "Handoff"). So a watch put away removes its
 * directory watch (one call: a watch kept after the wait would queue every removal in the
 * directory for as long as the thread holds the lock or does other things) but neither reads
 * the IN_IGNORED that this queues nor closes the pidfd: the thread's next wait does both,
 * before its first link, when they cost nobody a handoff. */
typedef struct
{
  int  fd;        /* the thread's inotify instance, -1 if none yet */
  int  pid;       /* a forked child must not share its parent's */
  int  pidfd;     /* the last wait's, closed by the next one */
  bool stale;     /* the queue may hold events of an earlier wait */
  bool busy;      /* an FlWatch of this thread uses the instance */
} ThreadWatch;

static __thread ThreadWatch thread_watch = { -1, 0, -1, false, false };
static pthread_key_t thread_watch_key;
static pthread_once_t thread_watch_once = PTHREAD_ONCE_INIT;

static void
thread_watch_free (void *data)
{
  ThreadWatch *t = data;

  if (t->pid != getpid ())
    return;  /* inherited through fork(): closed by whoever made them */
  if (t->fd >= 0)
    close (t->fd);
  if (t->pidfd >= 0)
    close (t->pidfd);
  t->fd = t->pidfd = -1;
}

static void
thread_watch_init (void)
{
  pthread_key_create (&thread_watch_key, thread_watch_free);
}

/* The calling thread's, with what its last wait left put away. */
static ThreadWatch *
thread_watch_get (void)
{
  ThreadWatch *t = &thread_watch;
  int pid = getpid ();

  if (t->pid != pid)
    {
      /* The parent's, inherited through fork(): only our references go. */
      if (t->fd >= 0)
        close (t->fd);
      if (t->pidfd >= 0)
        close (t->pidfd);
      t->fd = t->pidfd = -1;
      t->stale = t->busy = false;
      t->pid = pid;
      pthread_once (&thread_watch_once, thread_watch_init);
      pthread_setspecific (thread_watch_key, t);  /* closes them when the thread exits */
    }
  if (t->pidfd >= 0)
    {
      close (t->pidfd);
      t->pidfd = -1;
    }
  return t;
}

/* Reads the queue empty; true if any event concerns our name or the directory itself. With
 * @first_only, stops at the first read that had one: what came after wakes a later wait at
 * worst, which re-checks. */
static bool
read_inotify (FlWatch *watch,
              bool     first_only)
{
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  bool relevant = false;

  for (;;)
    {
      ssize_t len = read (watch->inotify_fd, buf, sizeof buf);

      if (len < 0 && errno == EINTR)
        continue;
      if (len <= 0)
        break;

      for (char *p = buf; p < buf + len;)
        {
          const struct inotify_event *ev = (const struct inotify_event *) p;

          if (ev->mask & IN_Q_OVERFLOW)
            relevant = true;
          else if (ev->wd == watch->file_wd)
            {
              if (ev->mask & IN_CLOSE_WRITE)
                relevant = true;
              if (ev->mask & IN_IGNORED)
                watch->file_wd = -1;  /* fired (IN_ONESHOT), or the file is gone */
            }
          else if (ev->wd != watch->wd)
            ;  /* an earlier file's, or an earlier wait's watch going away (IN_IGNORED) */
          else if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))
            relevant = true;
          else if (ev->len > 0 && strcmp (ev->name, watch->name) == 0)
            relevant = true;

          p += sizeof (struct inotify_event) + ev->len;
        }
      if (relevant && first_only)
        break;
    }

  return relevant;
}

FlWatch *
_fl_platform_watch_new (FlDir      *dir,
                        const char *name)
{
  FlWatch *watch = calloc (1, sizeof *watch);
  ThreadWatch *t = thread_watch_get ();
  char path[64];

  if (watch == NULL)
    abort ();  /* as g_malloc() does: there is no sensible way on */
  watch->pidfd = -1;
  watch->file_wd = -1;
  watch->name = strdup (name);
  if (watch->name == NULL)
    abort ();

  if (t->busy)
    {
      /* A second wait in this thread at once: one of its own, closed with it. */
      watch->inotify_fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
      watch->own_fd = true;
    }
  else
    {
      if (t->fd < 0)
        t->fd = inotify_init1 (IN_NONBLOCK | IN_CLOEXEC);
      watch->inotify_fd = t->fd;
    }
  if (watch->inotify_fd < 0)
    return watch;

  /* Through /proc/self/fd: the very directory we hold open, even if it was renamed. */
  snprintf (path, sizeof path, "/proc/self/fd/%d", dir->fd);
  watch->wd = inotify_add_watch (watch->inotify_fd, path,
                                 IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF |
                                 IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK);
  if (watch->wd < 0)
    {
      /* No watches left, or no /proc: the caller backs off instead. */
      if (watch->own_fd)
        close (watch->inotify_fd);
      watch->inotify_fd = -1;
      return watch;
    }
  if (!watch->own_fd)
    {
      t->busy = true;
      /* What an earlier wait left (its IN_IGNORED, late events) must not wake this one. The
       * watch exists already, and the caller links only after this: no release is missed. */
      if (t->stale)
        read_inotify (watch, false);
      t->stale = false;
    }
  return watch;
}

void
_fl_platform_watch_free (FlWatch *watch)
{
  ThreadWatch *t = &thread_watch;

  if (watch == NULL)
    return;
  if (watch->own_fd)
    {
      close (watch->inotify_fd);  /* rare: see _fl_platform_watch_new() */
      if (watch->pidfd >= 0)
        close (watch->pidfd);
    }
  else
    {
      if (watch->inotify_fd >= 0)
        {
          inotify_rm_watch (watch->inotify_fd, watch->wd);
          t->busy = false;
          t->stale = true;
        }
      /* Put away lazily (above); thread_watch_get() closed the last one before this wait. */
      if (watch->pidfd >= 0)
        t->pidfd = watch->pidfd;
    }
  free (watch->name);
  free (watch);
}

bool
_fl_platform_watch_has_events (FlWatch *watch)
{
  return watch->inotify_fd >= 0;
}

bool
_fl_platform_watch_process (FlWatch *watch,
                            int      pid)
{
  FlHandle pidfd = FL_HANDLE_NONE;

  if (watch->pidfd >= 0)
    close (watch->pidfd);
  if (pid > 0)
    _fl_platform_process_watch (pid, &pidfd);
  watch->pidfd = (int) pidfd;
  watch->pid_fired = false;
  return watch->pidfd >= 0;
}

/* IN_CLOSE_WRITE comes when the last descriptor of an open file that could write is closed:
 * for a lock file, its holder's (no reader ever opens one for writing), and with it the
 * holder's kernel lock goes, at exit or when a child that inherited it exits. The event comes
 * a moment before the kernel drops the lock (__fput() notifies, then removes the locks), so
 * the waiter may find it still held and sleep again: an early wake at most, never the one
 * that decides (the pidfd or the caller's re-check still comes). IN_ONESHOT: the watch goes by itself once it fired, and
 * when the file goes; one on another file is never removed, its events no longer match. */
bool
_fl_platform_watch_file (FlWatch  *watch,
                         FlHandle  file)
{
  char path[64];

  watch->file_wd = -1;
  if (watch->inotify_fd < 0 || file == FL_HANDLE_NONE)
    return false;
  /* Through /proc/self/fd: the very inode that was judged, whatever its name is now. */
  snprintf (path, sizeof path, "/proc/self/fd/%d", fd_of (file));
  watch->file_wd = inotify_add_watch (watch->inotify_fd, path, IN_CLOSE_WRITE | IN_ONESHOT);
  if (watch->file_wd == watch->wd)
    watch->file_wd = -1;  /* cannot be: a directory's */
  return watch->file_wd >= 0;
}

int
_fl_platform_watch_deferred (void)
{
  ThreadWatch *t = &thread_watch;

  if (t->pid != getpid ())
    return 0;
  return (t->pidfd >= 0) + t->stale;
}

static int64_t
monotonic_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

FlWatchResult
_fl_platform_watch_wait (FlWatch  *watch,
                         int       timeout_ms,
                         FlHandle  cancel)
{
  int64_t until = timeout_ms >= 0 ? monotonic_ms () + timeout_ms : -1;

  for (;;)
    {
      struct pollfd fds[3];
      nfds_t nfds = 0;
      int inotify_slot = -1, pid_slot = -1, cancel_slot = -1;
      int left = -1, r;

      if (until >= 0)
        {
          int64_t now = monotonic_ms ();

          if (now >= until)
            return FL_WATCH_TIMEOUT;
          left = (int) (until - now < INT_MAX ? until - now : INT_MAX);
        }

      if (watch->inotify_fd >= 0)
        {
          inotify_slot = (int) nfds;
          fds[nfds++] = (struct pollfd) { watch->inotify_fd, POLLIN, 0 };
        }
      if (watch->pidfd >= 0 && !watch->pid_fired)
        {
          pid_slot = (int) nfds;
          fds[nfds++] = (struct pollfd) { watch->pidfd, POLLIN, 0 };
        }
      if (cancel >= 0)
        {
          cancel_slot = (int) nfds;
          fds[nfds++] = (struct pollfd) { fd_of (cancel), POLLIN, 0 };
        }

      r = poll (fds, nfds, left);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return FL_WATCH_ERROR;
      if (r == 0)
        continue;  /* the deadline check above says so */

      if (cancel_slot >= 0 && fds[cancel_slot].revents)
        return FL_WATCH_CANCELLED;

      if (pid_slot >= 0 && fds[pid_slot].revents)
        {
          /* Closed later, when nobody waits for us to act (_fl_platform_watch_free()). */
          watch->pid_fired = true;
          return FL_WATCH_PROCESS;
        }

      if (inotify_slot >= 0 && fds[inotify_slot].revents && read_inotify (watch, true))
        return FL_WATCH_NAME;
    }
}


void
_fl_platform_die_now (void)
{
  kill (getpid (), SIGKILL);
}

void
_fl_platform_step_done (const char *step)
{
}
