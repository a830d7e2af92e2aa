/* bench-baselines.c: the four locks libfl is measured against
 *
 * - flock(2) with the descriptor held: the kernel's own lock, the fastest handoff there is.
 * - bare O_EXCL: create + write PID + close, unlink to release. The least a lock that is a name
 *   can cost; it cannot tell a dead holder from a live one, so it never recovers. A waiter
 *   retries every 15 ms, as the original does.
 * - O_EXCL + inotify: the same lock, but a waiter sleeps on an inotify watch of the directory and
 *   retries when a name is removed, as libfl's waiters do. Its handoff is the least a lock that
 *   is a name and wakes on that name's removal can take: the floor under libfl's, where
 *   flock(2)'s is the kernel handing over a lock it keeps itself.
 * - the original Node module's protocol, in plain C: temp file, link(), a PID probe with
 *   kill(pid, 0), a rename() takeover that puts the file back with rename(), and a 15 ms poll.
 *   It is written here, not shared with tests/helpers, so the benchmark measures exactly what it
 *   says and changes to the test helper cannot move the figures.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define ORIG_STALE_AFTER_S 30

BenchLocker *
bench_locker_new (const BenchMethod  *method,
                  const char         *dir,
                  const char         *target_name,
                  GError            **error)
{
  BenchLocker *self = g_new0 (BenchLocker, 1);

  self->method = method;
  self->fd = -1;
  self->pid = (int) getpid ();
  self->target = g_build_filename (dir, target_name, NULL);
  self->lock_name = g_strconcat (target_name, ".lock", NULL);
  self->dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (self->dirfd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      bench_locker_free (self);
      return NULL;
    }
  return self;
}

void
bench_locker_free (BenchLocker *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  if (self->dirfd >= 0)
    close (self->dirfd);
  g_free (self->target);
  g_free (self->lock_name);
  g_free (self);
}

void
bench_locker_cycle (BenchLocker *self)
{
  g_autoptr(GError) error = NULL;

  if (!self->method->acquire (self, &error) || !self->method->release (self, &error))
    bench_die ("%s: %s", self->method->name, error->message);
}

BenchLocker *
bench_locker_open_or_die (const BenchMethod *method,
                          const char        *dir,
                          const char        *target_name)
{
  g_autoptr(GError) error = NULL;
  BenchLocker *locker = method->open (dir, target_name, &error);

  if (locker == NULL)
    bench_die ("%s: %s", method->name, error->message);
  return locker;
}

void
bench_locker_acquire_or_die (BenchLocker *self)
{
  g_autoptr(GError) error = NULL;

  if (!self->method->acquire (self, &error))
    bench_die ("%s: %s", self->method->name, error->message);
}

void
bench_locker_release_or_die (BenchLocker *self)
{
  g_autoptr(GError) error = NULL;

  if (!self->method->release (self, &error))
    bench_die ("%s: %s", self->method->name, error->message);
}

static gboolean
set_errno_error (GError     **error,
                 int          saved,
                 const char  *what,
                 const char  *name)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s(%s): %s", what, name,
               g_strerror (saved));
  return FALSE;
}

/* Writes our PID in decimal, nothing else: the format every one of these locks shares. */
static gboolean
write_pid_file (BenchLocker  *self,
                const char   *name,
                GError      **error)
{
  char buf[24];
  int len = g_snprintf (buf, sizeof buf, "%d", self->pid);
  int dirfd = self->dirfd;
  int fd = openat (dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

  if (fd < 0)
    return FALSE; /* errno tells the caller whether it is EEXIST */
  if (write (fd, buf, (size_t) len) != len)
    {
      int saved = errno;

      close (fd);
      unlinkat (dirfd, name, 0);
      errno = saved;
      return set_errno_error (error, saved, "write", name);
    }
  close (fd);
  return TRUE;
}

/* flock(2), descriptor held */

static BenchLocker *
flock_open (const char  *dir,
            const char  *target_name,
            GError     **error)
{
  BenchLocker *self = bench_locker_new (&bench_method_flock, dir, target_name, error);

  if (self == NULL)
    return NULL;
  self->fd = openat (self->dirfd, self->lock_name,
                     O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (self->fd < 0)
    {
      set_errno_error (error, errno, "open", self->lock_name);
      bench_locker_free (self);
      return NULL;
    }
  return self;
}

static gboolean
flock_acquire (BenchLocker  *self,
               GError      **error)
{
  while (flock (self->fd, LOCK_EX) < 0)
    if (errno != EINTR)
      return set_errno_error (error, errno, "flock", self->lock_name);
  return TRUE;
}

static gboolean
flock_release (BenchLocker  *self,
               GError      **error)
{
  if (flock (self->fd, LOCK_UN) < 0)
    return set_errno_error (error, errno, "flock", self->lock_name);
  return TRUE;
}

/* bare O_EXCL */

static BenchLocker *
excl_open (const char  *dir,
           const char  *target_name,
           GError     **error)
{
  return bench_locker_new (&bench_method_excl, dir, target_name, error);
}

/* One try at creating the lock: TRUE with *held saying whether it was ours, FALSE on an error
 * other than EEXIST. */
static gboolean
excl_try (BenchLocker  *self,
          gboolean     *held,
          GError      **error)
{
  g_autoptr(GError) local = NULL;

  *held = write_pid_file (self, self->lock_name, &local);
  if (*held)
    return TRUE;
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (errno != EEXIST)
    return set_errno_error (error, errno, "open", self->lock_name);
  return TRUE;
}

static gboolean
excl_acquire (BenchLocker  *self,
              GError      **error)
{
  for (;;)
    {
      gboolean held;

      if (!excl_try (self, &held, error))
        return FALSE;
      if (held)
        return TRUE;
      bench_sleep_ns (BENCH_POLL_NS);
    }
}

static gboolean
unlink_lock (BenchLocker  *self,
             GError      **error)
{
  if (unlinkat (self->dirfd, self->lock_name, 0) < 0)
    return set_errno_error (error, errno, "unlink", self->lock_name);
  return TRUE;
}

/* O_EXCL + inotify */

static BenchLocker *
excl_wake_open (const char  *dir,
                const char  *target_name,
                GError     **error)
{
  BenchLocker *self = bench_locker_new (&bench_method_excl_wake, dir, target_name, error);

  if (self == NULL)
    return NULL;
  /* One instance and one watch for the locker's life, as cheap as a waiter can be: libfl keeps
   * an instance per thread but arms a watch per wait. */
  self->fd = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
  if (self->fd < 0 || inotify_add_watch (self->fd, dir, IN_DELETE | IN_MOVED_FROM) < 0)
    {
      set_errno_error (error, errno, "inotify", dir);
      bench_locker_free (self);
      return NULL;
    }
  return self;
}

/* Reads every queued event away; TRUE if there was one. */
static gboolean
excl_wake_drain (BenchLocker *self)
{
  char buf[4096] __attribute__ ((aligned (__alignof__ (struct inotify_event))));
  gboolean any = FALSE;

  while (read (self->fd, buf, sizeof buf) > 0)
    any = TRUE;
  return any;
}

static gboolean
excl_wake_acquire (BenchLocker  *self,
                   GError      **error)
{
  for (;;)
    {
      struct pollfd pfd = { self->fd, POLLIN, 0 };
      gboolean held;

      if (!excl_try (self, &held, error))
        return FALSE;
      if (held)
        return TRUE;
      /* Held. The watch is armed for the locker's life, so a removal since that try is queued:
       * sleep until one comes. Queued events (our own releases, other names) could be old:
       * read them away and try once more first, which costs an uncontended cycle nothing. */
      if (!excl_wake_drain (self) && poll (&pfd, 1, -1) < 0 && errno != EINTR)
        return set_errno_error (error, errno, "poll", self->lock_name);
    }
}

/* The original protocol */

/* The PID a lock file names, or 0 if it names none: decimal digits only, as the module parses. */
static int
read_pid_at (int          dirfd,
             const char  *name,
             struct stat *st)
{
  char buf[65];
  gssize n;
  char *end;
  long pid;
  int fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  if (st != NULL && fstat (fd, st) < 0)
    memset (st, 0, sizeof *st);
  close (fd);
  if (n <= 0)
    return 0;
  buf[n] = '\0';
  if (buf[0] < '0' || buf[0] > '9')
    return 0;
  pid = strtol (buf, &end, 10);
  if (*end != '\0' || pid <= 0 || pid > 4194304)
    return 0;
  return (int) pid;
}

static gboolean
orig_is_stale (BenchLocker *self,
               int         *judged_pid)
{
  struct stat st;
  int pid = read_pid_at (self->dirfd, self->lock_name, &st);

  *judged_pid = pid;
  if (pid < 0)
    return FALSE; /* gone: just retry the link */
  if (pid == 0)
    return g_get_real_time () / G_USEC_PER_SEC - st.st_mtime > ORIG_STALE_AFTER_S;
  /* A zombie still answers: the module waits for its reap. */
  return kill (pid, 0) < 0 && errno == ESRCH;
}

/* Not atomic, like the module's: rename aside, check it was the file judged, else put it back
 * with rename(). docs/protocol.md section 8 shows what that costs a mixed deployment. */
static void
orig_take_over (BenchLocker *self,
                int          judged_pid)
{
  char gy[NAME_MAX + 1];

  g_snprintf (gy, sizeof gy, "%s.gy.%d.%08x", self->lock_name, self->pid,
              g_random_int ());
  if (renameat (self->dirfd, self->lock_name, self->dirfd, gy) < 0)
    return;
  if (read_pid_at (self->dirfd, gy, NULL) == judged_pid)
    unlinkat (self->dirfd, gy, 0);
  else
    renameat (self->dirfd, gy, self->dirfd, self->lock_name);
}

static BenchLocker *
orig_open (const char  *dir,
           const char  *target_name,
           GError     **error)
{
  return bench_locker_new (&bench_method_orig, dir, target_name, error);
}

static gboolean
orig_acquire (BenchLocker  *self,
              GError      **error)
{
  char tmp[NAME_MAX + 1];

  for (;;)
    {
      g_autoptr(GError) local = NULL;
      int judged_pid;
      int r, saved;

      g_snprintf (tmp, sizeof tmp, "%s.%d.%08x.tmp", self->lock_name, self->pid,
                  g_random_int ());
      if (!write_pid_file (self, tmp, &local))
        {
          if (local != NULL)
            g_propagate_error (error, g_steal_pointer (&local));
          else
            set_errno_error (error, errno, "open", tmp);
          return FALSE;
        }
      r = linkat (self->dirfd, tmp, self->dirfd, self->lock_name, 0);
      saved = errno;
      unlinkat (self->dirfd, tmp, 0);
      if (r == 0)
        return TRUE;
      if (saved != EEXIST)
        return set_errno_error (error, saved, "link", self->lock_name);

      if (orig_is_stale (self, &judged_pid))
        orig_take_over (self, judged_pid);
      else
        bench_sleep_ns (BENCH_POLL_NS);
    }
}

const BenchMethod bench_method_flock = {
  BENCH_FLOCK, "flock", "flock(2) fd held", TRUE,
  flock_open, flock_acquire, flock_release, bench_locker_free,
};

const BenchMethod bench_method_excl = {
  BENCH_EXCL, "excl", "bare O_EXCL", FALSE,
  excl_open, excl_acquire, unlink_lock, bench_locker_free,
};

const BenchMethod bench_method_excl_wake = {
  BENCH_EXCL_WAKE, "inotify", "O_EXCL + inotify", FALSE,
  excl_wake_open, excl_wake_acquire, unlink_lock, bench_locker_free,
};

const BenchMethod bench_method_orig = {
  BENCH_ORIG, "orig", "original (C)", TRUE,
  orig_open, orig_acquire, unlink_lock, bench_locker_free,
};

const BenchMethod *
bench_method_get (BenchMethodId id)
{
  static const BenchMethod *const methods[BENCH_N_METHODS] = {
    &bench_method_flock, &bench_method_excl, &bench_method_excl_wake, &bench_method_orig,
    &bench_method_node, &bench_method_libfl,
  };

  g_assert ((guint) id < BENCH_N_METHODS);
  return methods[id];
}

const BenchMethod *
bench_method_lookup (const char *name)
{
  for (guint i = 0; i < BENCH_N_METHODS; i++)
    if (g_strcmp0 (bench_method_get ((BenchMethodId) i)->name, name) == 0)
      return bench_method_get ((BenchMethodId) i);
  return NULL;
}
