/* fl-process-linux.c: process liveness, start time and identity from /proc
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "fl-names-private.h"
#include "fl-process-private.h"

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif

/* Reads at most size - 1 bytes and terminates them. /proc files are small; a bound keeps a
 * hostile or odd file from costing more. */
static gssize
read_bounded (const char *path,
              char       *buf,
              gsize       size)
{
  gsize total = 0;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return -1;

  while (total < size - 1)
    {
      gssize n = read (fd, buf + total, size - 1 - total);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      total += (gsize) n;
    }
  close (fd);

  buf[total] = '\0';
  return (gssize) total;
}

/* A process names itself (prctl, argv): never let it put escape sequences in an operator's
 * terminal or control characters in a label. */
static void
strip_controls (char *text)
{
  for (guchar *p = (guchar *) text; *p; p++)
    if (*p < 0x20 || *p == 0x7f)
      *p = '?';
}

gboolean
_fl_parse_proc_stat (const char  *buf,
                     gsize        len,
                     char       **comm,
                     char        *state,
                     guint64     *start_ticks)
{
  const char *open_paren, *close_paren, *p, *end = buf + len;
  guint field = 3;

  open_paren = memchr (buf, '(', len);
  if (open_paren == NULL)
    return FALSE;

  /* comm may itself contain ") ": the real end is the last ')'. */
  close_paren = NULL;
  for (p = end; p > open_paren; p--)
    if (p[-1] == ')')
      {
        close_paren = p - 1;
        break;
      }
  if (close_paren == NULL || close_paren + 2 >= end || close_paren[1] != ' ')
    return FALSE;

  p = close_paren + 2;
  *state = *p;

  /* Walk to field 22, starttime. */
  while (p < end && field < 22)
    {
      if (*p == ' ')
        field++;
      p++;
    }
  if (field != 22 || p >= end || !g_ascii_isdigit (*p))
    return FALSE;

  {
    guint64 value = 0;
    for (; p < end && g_ascii_isdigit (*p); p++)
      {
        guint64 digit = (guint64) (*p - '0');

        /* Exact: value * 10 + digit fits exactly when value <= (MAX - digit) / 10. */
        if (value > (G_MAXUINT64 - digit) / 10)
          return FALSE;
        value = value * 10 + digit;
      }
    *start_ticks = value;
  }

  if (comm != NULL)
    {
      *comm = g_utf8_make_valid (open_paren + 1, close_paren - open_paren - 1);
      strip_controls (*comm);
    }

  return TRUE;
}

gint64
_fl_process_boottime_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_BOOTTIME, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static long clock_ticks_per_second;

static void
init_clock_ticks (void)
{
  long value = sysconf (_SC_CLK_TCK);

  clock_ticks_per_second = value > 0 ? value : 100;
}

static gint64
ticks_to_us (guint64 ticks)
{
  /* Once, safely: the directory model judges files from several threads. pthread_once()
   * rather than g_once_init_enter(): ThreadSanitizer sees the former's ordering. */
  static pthread_once_t once = PTHREAD_ONCE_INIT;

  pthread_once (&once, init_clock_ticks);
  return (gint64) (ticks * (G_USEC_PER_SEC / (guint64) clock_ticks_per_second));
}

/* Whether /proc shows this process's own PID namespace. After `unshare --pid --fork` without a
 * new /proc mount it shows the parent's, where /proc/<pid> is another process than our <pid>. */
gboolean
_fl_process_proc_is_ours (void)
{
  char link[32];
  gssize n;
  gint64 pid;
  char *end;

  n = readlink ("/proc/self", link, sizeof link - 1);
  if (n <= 0)
    return FALSE;
  link[n] = '\0';
  pid = g_ascii_strtoll (link, &end, 10);
  return *end == '\0' && pid == (gint64) getpid ();
}

/* A thread group whose leader called pthread_exit() shows the leader as a zombie while its
 * other threads run: only a group with no other thread left has exited. */
static gboolean
zombie_group_has_threads (int pid)
{
  char path[64];
  char buf[2048];
  const char *line;

  g_snprintf (path, sizeof path, "/proc/%d/status", pid);
  if (read_bounded (path, buf, sizeof buf) <= 0)
    return TRUE;  /* cannot tell: a live holder must not be called dead */
  line = strstr (buf, "\nThreads:");
  if (line == NULL)
    return TRUE;
  return g_ascii_strtoll (line + strlen ("\nThreads:"), NULL, 10) > 1;
}

void
_fl_process_probe (int            pid,
                   gboolean       details,
                   FlProcessInfo *info)
{
  char path[64];
  char buf[1024];
  gssize len;
  char state = '?';
  struct stat st;

  memset (info, 0, sizeof *info);
  info->uid = -1;

  /* Never let a PID <= 0 reach kill(): 0 and -1 mean "my group" and "everyone". */
  if (pid <= 0 || pid > FL_PID_MAX)
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

  if (!_fl_process_proc_is_ours ())
    return;

  g_snprintf (path, sizeof path, "/proc/%d/stat", pid);
  len = read_bounded (path, buf, sizeof buf);
  if (len < 0)
    {
      /* Exited between kill() and open(), or hidden from us (hidepid=invisible says ENOENT
       * too): ask kill() again, which tells the two apart. */
      if ((errno == ENOENT || errno == ESRCH) && kill (pid, 0) < 0 && errno == ESRCH)
        info->state = FL_PROCESS_GONE;
      return;
    }

  if (_fl_parse_proc_stat (buf, (gsize) len, &info->name, &state, &info->start_ticks))
    {
      gint64 now_boot = _fl_process_boottime_now ();

      if ((state == 'Z' || state == 'X') && !zombie_group_has_threads (pid))
        info->state = FL_PROCESS_ZOMBIE;
      info->start_boot_us = ticks_to_us (info->start_ticks);
      info->start_real_us = g_get_real_time () - (now_boot - info->start_boot_us);
    }

  g_snprintf (path, sizeof path, "/proc/%d", pid);
  if (stat (path, &st) == 0)
    info->uid = st.st_uid;

  if (details)
    {
      char cmd[4096];

      g_snprintf (path, sizeof path, "/proc/%d/cmdline", pid);
      len = read_bounded (path, cmd, sizeof cmd);
      if (len > 0)
        {
          for (gssize i = 0; i < len; i++)
            if (cmd[i] == '\0')
              cmd[i] = ' ';
          while (len > 0 && cmd[len - 1] == ' ')
            cmd[--len] = '\0';
          info->cmdline = g_utf8_make_valid (cmd, len);
          strip_controls (info->cmdline);
        }
    }
}

static gint cache_epoch;

void
_fl_process_cache_invalidate (void)
{
  g_atomic_int_inc (&cache_epoch);
}

typedef struct
{
  int            pid;
  int            epoch;
  gint64         at;
  FlProcessInfo  info;       /* name points into name_buf; never freed */
  char           name_buf[64];
} CachedProcess;

void
_fl_process_probe_cached (int            pid,
                          FlProcessInfo *info)
{
  /* Direct-mapped, per thread, no heap: nothing to free when the thread ends. */
  static _Thread_local CachedProcess cache[64];
  CachedProcess *slot = &cache[(guint) pid % G_N_ELEMENTS (cache)];
  gint64 now = g_get_monotonic_time ();
  int epoch = g_atomic_int_get (&cache_epoch);

  if (pid <= 0 || slot->pid != pid || slot->epoch != epoch ||
      now - slot->at > FL_PROCESS_CACHE_US)
    {
      FlProcessInfo fresh;

      _fl_process_probe (pid, FALSE, &fresh);
      slot->pid = pid;
      slot->epoch = epoch;
      slot->at = now;
      slot->info = fresh;
      slot->info.name = NULL;
      slot->info.cmdline = NULL;
      if (fresh.name != NULL)
        {
          g_strlcpy (slot->name_buf, fresh.name, sizeof slot->name_buf);
          slot->info.name = slot->name_buf;
        }
      _fl_process_info_clear (&fresh);
    }

  *info = slot->info;
  info->name = g_strdup (slot->info.name);
}

void
_fl_process_info_clear (FlProcessInfo *info)
{
  g_clear_pointer (&info->name, g_free);
  g_clear_pointer (&info->cmdline, g_free);
}

/* Not cached: a child made without atfork handlers (glibc's _Fork(), a raw clone()) would keep
 * its parent's answer, and ownership at release would follow it (issue 19). getpid() costs
 * about 0.1 us against an acquire+release cycle of about 30 us. */
int
_fl_process_self_pid (void)
{
  return (int) getpid ();
}

/* A pthread mutex rather than a GMutex: GLib's is built on futexes, which ThreadSanitizer
 * cannot see, and the multi-threaded tests run under it. */
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER;
static FlIdentity self_identity;
static char self_xattr[FL_IDENTITY_MAX];  /* formatted once per process, kernel lock taken */
static gsize self_xattr_len;

void
_fl_process_self_identity (FlIdentity *identity)
{
  int pid = _fl_process_self_pid ();

  pthread_mutex_lock (&self_lock);

  /* Cached per PID: a forked child computes its own. */
  if (self_identity.pid != pid)
    {
      char stat_buf[1024];
      char buf[64];
      struct stat st;

      memset (&self_identity, 0, sizeof self_identity);
      self_identity.pid = pid;

      /* /proc/self, not /proc/<pid>: in a PID namespace without its own /proc mount, the
       * latter is another process. */
      if (read_bounded ("/proc/self/stat", stat_buf, sizeof stat_buf) > 0)
        {
          char state;

          if (!_fl_parse_proc_stat (stat_buf, strlen (stat_buf), NULL, &state,
                                    &self_identity.start_ticks))
            self_identity.start_ticks = 0;
        }

      if (read_bounded ("/proc/sys/kernel/random/boot_id", buf, sizeof buf) > 0)
        {
          /* 64 bits of a random UUID tell boots apart; see _fl_identity_format(). */
          guint n = 0;
          for (const char *p = buf; *p && n < 16; p++)
            if (g_ascii_isxdigit (*p))
              self_identity.boot_id[n++] = g_ascii_tolower (*p);
          self_identity.boot_id[n] = '\0';
        }

      if (stat ("/proc/self/ns/pid", &st) == 0)
        self_identity.pidns = st.st_ino;

      if (gethostname (buf, sizeof buf) == 0)
        {
          guint32 hash = 2166136261u;  /* FNV-1a: only ever compared for equality */

          buf[sizeof buf - 1] = '\0';
          for (const char *p = buf; *p; p++)
            hash = (hash ^ (guchar) *p) * 16777619u;
          g_snprintf (self_identity.host, sizeof self_identity.host, "%08x", hash);
        }

      self_identity.kernel_lock = TRUE;
      self_xattr_len = _fl_identity_format (&self_identity, self_xattr, sizeof self_xattr);
      self_identity.kernel_lock = FALSE;
    }

  *identity = self_identity;

  pthread_mutex_unlock (&self_lock);
}

gsize
_fl_process_self_identity_xattr (char  *buf,
                                 gsize  size)
{
  FlIdentity identity;
  gsize len;

  _fl_process_self_identity (&identity);  /* fills the cache for this PID */

  pthread_mutex_lock (&self_lock);
  len = self_xattr_len < size ? self_xattr_len : 0;
  memcpy (buf, self_xattr, len);
  pthread_mutex_unlock (&self_lock);

  return len;
}

int
_fl_process_open_pidfd (int pid)
{
  if (pid <= 0 || pid > FL_PID_MAX)
    return -1;

  /* pidfds are close-on-exec by definition. */
  return (int) syscall (SYS_pidfd_open, (pid_t) pid, 0);
}

gboolean
_fl_process_fd_is_remote (int fd)
{
  struct statfs sfs;

  if (fstatfs (fd, &sfs) < 0)
    return FALSE;

  switch ((unsigned long) sfs.f_type)
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
      return TRUE;
    default:
      return FALSE;
    }
}

/* /proc/locks, one line per lock: "1: FLOCK  ADVISORY  READ  1234 08:01:5678 0 EOF"; a process
 * blocked waiting for a lock gets a line that starts "1: -> FLOCK". The device is printed as
 * major:minor in hex. The file lists every lock of the system, so it is read in chunks, a
 * line at a time, up to a bound; a line longer than the buffer is skipped. */
#define PROC_LOCKS_MAX (8 * 1024 * 1024)

static void
parse_locks_line (char       *line,
                  guint       want_major,
                  guint       want_minor,
                  guint64     want_ino,
                  gboolean    shared,
                  GArray     *pids)
{
  char *colon = strchr (line, ':');
  char type[16], kind[16], mode[16];
  unsigned int major_, minor_;
  unsigned long long ino;
  int pid;

  if (colon == NULL || strstr (colon, "->") != NULL)
    return;
  if (sscanf (colon + 1, " %15s %15s %15s %d %x:%x:%llu", type, kind, mode, &pid, &major_,
              &minor_, &ino) != 7)
    return;
  if (strcmp (type, "FLOCK") != 0 || strcmp (mode, shared ? "READ" : "WRITE") != 0)
    return;
  if (major_ != want_major || minor_ != want_minor || ino != want_ino)
    return;
  if (pid <= 0 || pid == _fl_process_self_pid () || pids->len >= FL_FLOCK_HOLDERS_MAX)
    return;
  for (guint i = 0; i < pids->len; i++)
    if (g_array_index (pids, int, i) == pid)
      return;
  g_array_append_val (pids, pid);
}

gboolean
_fl_process_list_flock_holders (guint64   dev,
                                guint64   ino,
                                gboolean  shared,
                                GArray   *pids)
{
  char buf[4096];
  gsize have = 0, total = 0;
  gboolean skipping = FALSE;
  int fd;

  fd = open ("/proc/locks", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return FALSE;

  while (total < PROC_LOCKS_MAX)
    {
      gssize n = read (fd, buf + have, sizeof buf - 1 - have);
      char *line, *nl;

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      total += n;
      have += n;
      buf[have] = '\0';

      line = buf;
      while ((nl = strchr (line, '\n')) != NULL)
        {
          *nl = '\0';
          if (!skipping)
            parse_locks_line (line, major ((dev_t) dev), minor ((dev_t) dev), ino, shared, pids);
          skipping = FALSE;
          line = nl + 1;
        }
      have = buf + have - line;
      memmove (buf, line, have);
      if (have == sizeof buf - 1)
        {
          have = 0;
          skipping = TRUE;
        }
    }

  close (fd);
  return TRUE;
}
