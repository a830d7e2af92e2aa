/* original-peer.c: the Node.js module's lock algorithm, faithfully, in C
 *
 * No libfl and no kernel lock: this is what a service still running the original module does,
 * flaws included (docs/protocol.md, section 8). The interop tests run it against libfl.
 *
 *   original-peer count TARGET COUNTER N   N critical sections on COUNTER (fl-test-counter.c)
 *   original-peer hold TARGET              acquire, print "held <pid>", wait for stdin to close,
 *                                          release
 *   original-peer acquire TARGET MS        try for MS milliseconds: print "acquired" (and
 *                                          release, exit 0) or "timeout" (exit 2)
 *   original-peer judge CONTENT            "alive" or "dead": the module's isAlive() of that
 *   original-peer judge-file FILE...       content (the second for bytes argv cannot carry,
 *                                          one line per FILE)
 *   original-peer sections TARGET COUNTER RECORD N
 *                                          N sections as test-exclusion.c's workers do them:
 *                                          counter + 1, the value written appended to RECORD
 *                                          (portable: the tests that also run on Windows)
 *
 * On Windows (mingw) it is the module as Node runs it there, through libuv: every file opened
 * with FILE_SHARE_READ|WRITE|DELETE, fs.linkSync = CreateHardLinkW, fs.renameSync = MoveFileExW
 * with MOVEFILE_REPLACE_EXISTING (it replaces), process.kill(pid, 0) = OpenProcess and the exit
 * code, as uv_kill() does. The OS calls sit in the few functions of the "Platform" section;
 * `count` needs fl-test-counter.c, which is Linux only, so Windows has `sections` instead.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <io.h>
#include <process.h>
#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
/* fl-test-counter.h's exit codes (that file is Linux only). */
#define FL_TEST_EXIT_OVERLAP 3
#define FL_TEST_EXIT_FAILED 4
#else
#include <signal.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "fl-test-counter.h"
#endif

/* The module polls at this fixed interval while the lock is held. */
#define POLL_MS 15

/* Platform: the module's fs and process calls, as Node makes them on each system */

#ifdef _WIN32

/* Paths come in the ANSI code page (the CRT's argv); the wide calls need UTF-16. */
static wchar_t *
wide (const char *path)
{
  int n = MultiByteToWideChar (CP_ACP, 0, path, -1, NULL, 0);
  wchar_t *w = n > 0 ? calloc ((size_t) n, sizeof *w) : NULL;

  if (w != NULL && MultiByteToWideChar (CP_ACP, 0, path, -1, w, n) <= 0)
    {
      free (w);
      w = NULL;
    }
  return w;
}

static int
errno_of (DWORD code)
{
  switch (code)
    {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
      return ENOENT;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
      return EEXIST;
    /* libuv's mapping. The module then throws (a link over a delete-pending name fails with
     * 5 on real Windows: the module's acquire dies there, and so does this peer's). */
    case ERROR_ACCESS_DENIED:
      return EPERM;
    case ERROR_SHARING_VIOLATION:
      return EBUSY;
    default:
      return EIO;
    }
}

/* libuv's fs calls share everything: a Node process never stops another from renaming. */
static HANDLE
open_shared (const char *path,
             DWORD       access,
             DWORD       disposition)
{
  wchar_t *w = wide (path);
  HANDLE h = INVALID_HANDLE_VALUE;

  if (w == NULL)
    errno = EINVAL;
  else
    {
      h = CreateFileW (w, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                       disposition, FILE_ATTRIBUTE_NORMAL, NULL);
      if (h == INVALID_HANDLE_VALUE)
        errno = errno_of (GetLastError ());
    }
  free (w);
  return h;
}

static long
now_ms (void)
{
  return (long) GetTickCount64 ();
}

static int
peer_pid (void)
{
  return (int) GetCurrentProcessId ();
}

static void
sleep_ms (long ms)
{
  Sleep ((DWORD) ms);
}

/* crypto.randomBytes(4) is only a tag: a mix of the PID and the clock is unique enough. */
static unsigned int
random_u32 (void)
{
  static unsigned long long state;
  LARGE_INTEGER t;

  QueryPerformanceCounter (&t);
  state ^= (unsigned long long) t.QuadPart ^ ((unsigned long long) peer_pid () << 32);
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned int) (state >> 32);
}

/* At most max bytes of path; -1 with errno set (ENOENT: no such file). */
static long
read_bounded (const char    *path,
              unsigned char *buf,
              size_t         max)
{
  HANDLE h = open_shared (path, GENERIC_READ, OPEN_EXISTING);
  size_t total = 0;
  DWORD got;

  if (h == INVALID_HANDLE_VALUE)
    return -1;
  while (total < max && ReadFile (h, buf + total, (DWORD) (max - total), &got, NULL) && got > 0)
    total += got;
  CloseHandle (h);
  return (long) total;
}

/* fs.writeFileSync(temp, pid, { flag: 'wx' }): CREATE_NEW. */
static int
write_new (const char *path,
           const char *text,
           size_t      len)
{
  HANDLE h = open_shared (path, GENERIC_WRITE, CREATE_NEW);
  DWORD done = 0;
  BOOL ok;

  if (h == INVALID_HANDLE_VALUE)
    return -1;
  ok = WriteFile (h, text, (DWORD) len, &done, NULL) && done == len;
  if (!ok)
    errno = errno_of (GetLastError ());
  CloseHandle (h);
  return ok ? 0 : -1;
}

#define CHECK_W(call) \
  do { \
      BOOL ok_ = (call); \
      if (!ok_) \
        errno = errno_of (GetLastError ()); \
      free (wa); \
      free (wb); \
      return ok_ ? 0 : -1; \
  } while (0)

static int
link_file (const char *existing,
           const char *name)
{
  wchar_t *wa = wide (existing), *wb = wide (name);

  CHECK_W (wa != NULL && wb != NULL && CreateHardLinkW (wb, wa, NULL));
}

/* fs.renameSync: libuv's uv_fs_rename is MoveFileExW with MOVEFILE_REPLACE_EXISTING. */
static int
rename_file (const char *from,
             const char *to)
{
  wchar_t *wa = wide (from), *wb = wide (to);

  CHECK_W (wa != NULL && wb != NULL && MoveFileExW (wa, wb, MOVEFILE_REPLACE_EXISTING));
}

static int
remove_file (const char *path)
{
  wchar_t *wa = wide (path), *wb = NULL;

  CHECK_W (wa != NULL && DeleteFileW (wa));
}

/* uv_kill(pid, 0): OpenProcess; a process that cannot be opened for lack of rights exists
 * (EPERM); one that opens but has an exit code other than STILL_ACTIVE is gone (ESRCH). */
static int
pid_exists (int pid)
{
  HANDLE h;
  DWORD code = 0;
  int alive;

  h = OpenProcess (PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD) pid);
  if (h == NULL)
    return GetLastError () == ERROR_ACCESS_DENIED;
  alive = GetExitCodeProcess (h, &code) && code == STILL_ACTIVE;
  CloseHandle (h);
  return alive;
}

static void
wait_stdin_eof (void)
{
  char buf[256];

  while (_read (0, buf, sizeof buf) > 0)
    ;
}

#else /* POSIX */

static long
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int
peer_pid (void)
{
  return (int) getpid ();
}

static void
sleep_ms (long ms)
{
  usleep ((useconds_t) ms * 1000);
}

static unsigned int
random_u32 (void)
{
  unsigned int value = 0;

  if (getrandom (&value, sizeof value, 0) != sizeof value)
    value = (unsigned int) (getpid () ^ now_ms ());
  return value;
}

static long
read_bounded (const char    *path,
              unsigned char *buf,
              size_t         max)
{
  size_t total = 0;
  ssize_t got;
  int fd;

  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  while (total < max && (got = read (fd, buf + total, max - total)) > 0)
    total += (size_t) got;
  close (fd);
  return (long) total;
}

static int
write_new (const char *path,
           const char *text,
           size_t      len)
{
  int fd;

  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  if (write (fd, text, len) != (ssize_t) len)
    {
      close (fd);
      unlink (path);
      return -1;
    }
  return close (fd);
}

static int
link_file (const char *existing,
           const char *name)
{
  return link (existing, name);
}

static int
rename_file (const char *from,
             const char *to)
{
  return rename (from, to);
}

static int
remove_file (const char *path)
{
  return unlink (path);
}

static int
pid_exists (int pid)
{
  if (kill ((pid_t) pid, 0) == 0)
    return 1;
  return errno == EPERM;
}

static void
wait_stdin_eof (void)
{
  char buf[256];

  while (read (STDIN_FILENO, buf, sizeof buf) > 0)
    ;
}

#endif

/* The protocol, the same on every system */

/* The module reads the whole file; a bound keeps a hostile one from costing more. */
#define READ_MAX (1024 * 1024)

/* What String.prototype.trim() removes. */
static int
is_js_space (unsigned int c)
{
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
         c == 0x205f || c == 0x3000 || c == 0xfeff;
}

/* One UTF-8 character at p (n bytes left): its code point, U+FFFD for an invalid sequence
 * (one byte consumed), as Buffer.toString('utf8') decodes. */
static unsigned int
decode_utf8 (const unsigned char *p,
             size_t               n,
             size_t              *used)
{
  unsigned int c, min;
  size_t len;

  *used = 1;
  if (p[0] < 0x80)
    return p[0];
  if ((p[0] & 0xe0) == 0xc0)
    len = 2, c = p[0] & 0x1f, min = 0x80;
  else if ((p[0] & 0xf0) == 0xe0)
    len = 3, c = p[0] & 0x0f, min = 0x800;
  else if ((p[0] & 0xf8) == 0xf0)
    len = 4, c = p[0] & 0x07, min = 0x10000;
  else
    return 0xfffd;
  if (len > n)
    return 0xfffd;
  for (size_t i = 1; i < len; i++)
    {
      if ((p[i] & 0xc0) != 0x80)
        return 0xfffd;
      c = (c << 6) | (p[i] & 0x3f);
    }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
    return 0xfffd;
  *used = len;
  return c;
}

/* Number() of an ASCII string already trimmed: decimal with fraction and exponent, Infinity,
 * or 0x/0o/0b; "" is 0; anything else NaN. */
static double
js_number (const char *s)
{
  size_t n = strlen (s), i = 0, digits = 0;
  char *end;

  if (n == 0)
    return 0;
  if (n > 2 && s[0] == '0' && strchr ("xXoObB", s[1]) != NULL)
    {
      int base = strchr ("xX", s[1]) ? 16 : strchr ("oO", s[1]) ? 8 : 2;
      double v = 0;

      for (i = 2; i < n; i++)
        {
          int d = isdigit ((unsigned char) s[i]) ? s[i] - '0'
                  : isxdigit ((unsigned char) s[i]) ? tolower ((unsigned char) s[i]) - 'a' + 10
                  : 99;
          if (d >= base)
            return NAN;
          v = v * base + d;
        }
      return v;
    }
  if (s[i] == '+' || s[i] == '-')
    i++;
  if (strcmp (s + i, "Infinity") == 0)
    return s[0] == '-' ? -INFINITY : INFINITY;
  for (; isdigit ((unsigned char) s[i]); i++)
    digits++;
  if (s[i] == '.')
    for (i++; isdigit ((unsigned char) s[i]); i++)
      digits++;
  if (digits == 0)
    return NAN;
  if (s[i] == 'e' || s[i] == 'E')
    {
      size_t exp_digits = 0;

      i++;
      if (s[i] == '+' || s[i] == '-')
        i++;
      for (; isdigit ((unsigned char) s[i]); i++)
        exp_digits++;
      if (exp_digits == 0)
        return NAN;
    }
  if (i != n)
    return NAN;
  return strtod (s, &end);
}

/* The module's readFileSync(path, 'utf8').trim() and Number(): NaN when the text is no number.
 * *missing is set when there is no such file. */
static double
read_pid (const char *path,
          int        *missing)
{
  static unsigned char buf[READ_MAX];
  static unsigned int cps[READ_MAX];
  static char ascii[READ_MAX + 1];
  size_t total, n = 0, start, end, a = 0;
  long got;

  *missing = 0;
  got = read_bounded (path, buf, sizeof buf);
  if (got < 0)
    {
      *missing = errno == ENOENT;
      return NAN;
    }
  total = (size_t) got;

  for (size_t i = 0, used; i < total; i += used)
    cps[n++] = decode_utf8 (buf + i, total - i, &used);
  for (start = 0; start < n && is_js_space (cps[start]); start++)
    ;
  for (end = n; end > start && is_js_space (cps[end - 1]); end--)
    ;
  for (size_t i = start; i < end; i++)
    {
      if (cps[i] == 0 || cps[i] >= 0x80)
        return NAN;
      ascii[a++] = (char) cps[i];
    }
  ascii[a] = '\0';
  return js_number (ascii);
}

/* The common idiom: try { process.kill(pid, 0); return true }
 * catch (e) { return e.code === 'EPERM' }. Node's kill throws (dead) unless pid == (pid | 0);
 * a value <= 0 then probes a process group, as the module does (signal 0 sends nothing). */
static int
is_alive (double pid)
{
  if (!(pid >= INT_MIN && pid <= INT_MAX) || pid != (double) (int) pid)
    return 0;
#ifdef _WIN32
  /* uv_kill() on Windows: PID 0 is the caller itself, and no PID is negative. */
  if (pid == 0)
    return 1;
  if (pid < 0)
    return 0;
#endif
  return pid_exists ((int) pid);
}

static int
write_temp (const char *temp)
{
  char text[32];
  int len = snprintf (text, sizeof text, "%d", peer_pid ());

  return write_new (temp, text, (size_t) len);
}

/* The module's takeover: not atomic, and it puts back with rename(), which can replace a lock
 * created meanwhile. Kept as is on purpose. */
static void
take_over (const char *lock,
           double      judged)
{
  char gy[PATH_MAX + 64];
  int missing;

  snprintf (gy, sizeof gy, "%s.gy.%d.%08x", lock, peer_pid (), random_u32 ());
  if (rename_file (lock, gy) < 0)
    return;
  if (read_pid (gy, &missing) != judged)
    rename_file (gy, lock);
  else
    remove_file (gy);
}

/* Returns 0 once held, 1 on timeout (timeout_ms < 0: never), -1 on error. */
static int
acquire (const char *target,
         long        timeout_ms)
{
  char lock[PATH_MAX];
  char temp[PATH_MAX + 64];
  long deadline = timeout_ms < 0 ? -1 : now_ms () + timeout_ms;

  snprintf (lock, sizeof lock, "%s.lock", target);
  for (;;)
    {
      double pid;
      int missing;

      snprintf (temp, sizeof temp, "%s.%d.%08x.tmp", lock, peer_pid (), random_u32 ());
      if (write_temp (temp) < 0)
        {
          fprintf (stderr, "original-peer: cannot write %s: %s\n", temp, strerror (errno));
          return -1;
        }
      if (link_file (temp, lock) == 0)
        {
          remove_file (temp);
          return 0;
        }
      if (errno != EEXIST)
        {
          fprintf (stderr, "original-peer: cannot link %s: %s\n", lock, strerror (errno));
          remove_file (temp);
          return -1;
        }
      remove_file (temp);

      pid = read_pid (lock, &missing);
      if (missing)
        continue;
      if (!is_alive (pid))
        {
          take_over (lock, pid);
          continue;
        }
      if (deadline >= 0 && now_ms () >= deadline)
        return 1;
      sleep_ms (POLL_MS);
    }
}

static void
release (const char *target)
{
  char lock[PATH_MAX];

  snprintf (lock, sizeof lock, "%s.lock", target);
  remove_file (lock);
}

#ifndef _WIN32
static int
cmd_count (const char *target,
           const char *counter,
           long        n)
{
  for (long i = 0; i < n; i++)
    {
      int ret;

      if (acquire (target, -1) != 0)
        return FL_TEST_EXIT_FAILED;
      ret = fl_test_critical_section (counter, FL_TEST_MARKER_STRICT);
      release (target);
      if (ret != 0)
        return ret;
    }
  return 0;
}
#endif

/* test-exclusion.c's section in plain stdio: read, write + 1 in place, record the value. A
 * second holder inside would write a value twice; a half-written counter is an overlap too. */
static int
section (const char *counter,
         FILE       *record)
{
  char text[32] = "";
  char *end;
  long value;
  size_t n;
  FILE *f;

  f = fopen (counter, "rb");
  if (f == NULL)
    return FL_TEST_EXIT_FAILED;
  n = fread (text, 1, sizeof text - 1, f);
  fclose (f);
  text[n] = '\0';
  value = strtol (text, &end, 10);
  if (n == 0 || *end != '\0')
    {
      fprintf (stderr, "original-peer: the counter is unreadable inside the lock\n");
      return FL_TEST_EXIT_OVERLAP;
    }
  f = fopen (counter, "wb");
  if (f == NULL)
    return FL_TEST_EXIT_FAILED;
  n = (size_t) snprintf (text, sizeof text, "%ld", value + 1);
  if (fwrite (text, 1, n, f) != n || fclose (f) != 0)
    return FL_TEST_EXIT_FAILED;
  fprintf (record, "%s\n", text);
  return fflush (record) == 0 ? 0 : FL_TEST_EXIT_FAILED;
}

static int
cmd_sections (const char *target,
              const char *counter,
              const char *record_path,
              long        n)
{
  FILE *record = fopen (record_path, "a");

  if (record == NULL)
    return FL_TEST_EXIT_FAILED;
  for (long i = 0; i < n; i++)
    {
      int ret;

      if (acquire (target, -1) != 0)
        return FL_TEST_EXIT_FAILED;
      ret = section (counter, record);
      release (target);
      if (ret != 0)
        return ret;
    }
  if (fclose (record) != 0)
    return FL_TEST_EXIT_FAILED;
  /* Alive until told: see test-interop-portable.c, "no worker exits while others work". */
  printf ("done\n");
  fflush (stdout);
  wait_stdin_eof ();
  return 0;
}

static int
cmd_hold (const char *target)
{
  if (acquire (target, -1) != 0)
    return FL_TEST_EXIT_FAILED;
  printf ("held %d\n", peer_pid ());
  fflush (stdout);
  wait_stdin_eof ();
  release (target);
  return 0;
}

static int
cmd_acquire (const char *target,
             long        timeout_ms)
{
  int ret = acquire (target, timeout_ms);

  if (ret < 0)
    return FL_TEST_EXIT_FAILED;
  printf ("%s\n", ret == 0 ? "acquired" : "timeout");
  fflush (stdout);
  if (ret == 0)
    release (target);
  return ret == 0 ? 0 : 2;
}

static int
cmd_judge (const char *path)
{
  int missing;
  double pid = read_pid (path, &missing);

  if (missing)
    {
      fprintf (stderr, "original-peer: no such file %s\n", path);
      return FL_TEST_EXIT_FAILED;
    }
  printf ("%s\n", is_alive (pid) ? "alive" : "dead");
  return 0;
}

int
main (int   argc,
      char *argv[])
{
#ifndef _WIN32
  if (argc == 5 && strcmp (argv[1], "count") == 0)
    return cmd_count (argv[2], argv[3], strtol (argv[4], NULL, 10));
#endif
  if (argc == 6 && strcmp (argv[1], "sections") == 0)
    return cmd_sections (argv[2], argv[3], argv[4], strtol (argv[5], NULL, 10));
  if (argc == 3 && strcmp (argv[1], "hold") == 0)
    return cmd_hold (argv[2]);
  if (argc == 4 && strcmp (argv[1], "acquire") == 0)
    return cmd_acquire (argv[2], strtol (argv[3], NULL, 10));
  if (argc >= 3 && strcmp (argv[1], "judge-file") == 0)
    {
      for (int i = 2; i < argc; i++)
        if (cmd_judge (argv[i]) != 0)
          return FL_TEST_EXIT_FAILED;
      fflush (stdout);
      return 0;
    }
  if (argc == 3 && strcmp (argv[1], "judge") == 0)
    {
#ifdef _WIN32
      char path[MAX_PATH + 64];
      DWORD len = GetTempPathA (MAX_PATH, path);
      int ret;

      if (len == 0 || len > MAX_PATH)
        return FL_TEST_EXIT_FAILED;
      snprintf (path + len, sizeof path - len, "original-peer-judge-%d-%08x", peer_pid (),
                random_u32 ());
      if (write_new (path, argv[2], strlen (argv[2])) < 0)
        return FL_TEST_EXIT_FAILED;
#else
      char path[] = "/tmp/original-peer-judge-XXXXXX";
      int fd = mkstemp (path);
      int ret;

      if (fd < 0 || write (fd, argv[2], strlen (argv[2])) != (ssize_t) strlen (argv[2]))
        return FL_TEST_EXIT_FAILED;
      close (fd);
#endif
      ret = cmd_judge (path);
      remove_file (path);
      return ret;
    }
  fprintf (stderr, "usage: original-peer count TARGET COUNTER N | hold TARGET"
           " | acquire TARGET MS | judge CONTENT | judge-file FILE..."
           " | sections TARGET COUNTER RECORD N\n");
  return 64;
}
