/* original-peer.c: the Node.js module's lock algorithm, faithfully, in C
 *
 * No libfl and no kernel lock: this is what a service still running the original module
 * (@dogfood-lab/findings' lib/file-lock.js) does, flaws included (docs/protocol.md, section 8),
 * for the tests that cannot run node: the portable interop test (Windows) and the model's
 * steps. Elsewhere the tests run the module itself (tests/helpers/module-driver.mjs).
 *
 *   original-peer count TARGET COUNTER N   N critical sections on COUNTER (fl-test-counter.c)
 *   original-peer hold TARGET              acquire, print "held <pid>", wait for stdin to close,
 *                                          release
 *   original-peer acquire TARGET MS        try for MS milliseconds: print "acquired" (and
 *                                          release, exit 0) or "timeout" (exit 2)
 *   original-peer judge STALE_AFTER_MS FILE...
 *                                          for each FILE, what the module's tryAcquire() does
 *                                          with a lock of its content and mtime: "taken" or
 *                                          "held" (test-content-rule.c checks it against the
 *                                          module itself)
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fl-test-counter.h"
#endif

/* The module's defaults: a poll every 15 ms while the lock is held, staleAfterMs. */
#define POLL_MS 15
#define STALE_AFTER_MS 30000

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

/* uv_kill(pid, 0): OpenProcess; no such process (ERROR_INVALID_PARAMETER) or an exit code other
 * than STILL_ACTIVE is ESRCH; any other failure is another error, which the module calls
 * alive. */
static int
kill_not_esrch (int pid)
{
  HANDLE h;
  DWORD code = 0;
  int alive;

  h = OpenProcess (PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD) pid);
  if (h == NULL)
    return GetLastError () != ERROR_INVALID_PARAMETER;
  alive = !GetExitCodeProcess (h, &code) || code == STILL_ACTIVE;
  CloseHandle (h);
  return alive;
}

/* Date.now() and statSync().mtimeMs: milliseconds since 1970. */
#define FILETIME_1970 116444736000000000ULL

static double
wall_ms (void)
{
  FILETIME ft;
  ULARGE_INTEGER t;

  GetSystemTimeAsFileTime (&ft);
  t.LowPart = ft.dwLowDateTime;
  t.HighPart = ft.dwHighDateTime;
  return (double) (t.QuadPart - FILETIME_1970) / 10000.0;
}

static double
mtime_ms (const char *path)
{
  WIN32_FILE_ATTRIBUTE_DATA data;
  wchar_t *w = wide (path);
  ULARGE_INTEGER t;
  BOOL ok = w != NULL && GetFileAttributesExW (w, GetFileExInfoStandard, &data);

  free (w);
  if (!ok)
    return NAN;
  t.LowPart = data.ftLastWriteTime.dwLowDateTime;
  t.HighPart = data.ftLastWriteTime.dwHighDateTime;
  return (double) ((long long) t.QuadPart - (long long) FILETIME_1970) / 10000.0;
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

/* process.kill(pid, 0): only ESRCH makes the module call the holder dead. */
static int
kill_not_esrch (int pid)
{
  return kill ((pid_t) pid, 0) == 0 || errno != ESRCH;
}

static double
wall_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static double
mtime_ms (const char *path)
{
  struct stat st;

  if (stat (path, &st) != 0)
    return NAN;
  return st.st_mtim.tv_sec * 1000.0 + st.st_mtim.tv_nsec / 1e6;
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

/* The module's readFileSync(path, 'utf8').trim(), as code points; Number() of it. */
typedef struct
{
  int           read;   /* 0: the read failed (pidRaw stays null) */
  size_t        len;
  unsigned int *cps;    /* len code points, trimmed */
} Text;

static void
text_clear (Text *text)
{
  free (text->cps);
  memset (text, 0, sizeof *text);
}

static void
read_text (const char *path,
           Text       *text)
{
  static unsigned char buf[READ_MAX];
  size_t total, n = 0, start, end;
  unsigned int *cps;
  long got;

  memset (text, 0, sizeof *text);
  got = read_bounded (path, buf, sizeof buf);
  if (got < 0)
    return;
  total = (size_t) got;
  cps = malloc ((total + 1) * sizeof *cps);
  if (cps == NULL)
    return;
  for (size_t i = 0, used; i < total; i += used)
    cps[n++] = decode_utf8 (buf + i, total - i, &used);
  for (start = 0; start < n && is_js_space (cps[start]); start++)
    ;
  for (end = n; end > start && is_js_space (cps[end - 1]); end--)
    ;
  memmove (cps, cps + start, (end - start) * sizeof *cps);
  text->read = 1;
  text->len = end - start;
  text->cps = cps;
}

static int
text_equal (const Text *a,
            const Text *b)
{
  return a->len == b->len && (a->len == 0 || memcmp (a->cps, b->cps, a->len * sizeof *a->cps) == 0);
}

/* Number() of trimmed text: NaN for anything but ASCII. */
static double
text_number (const Text *text)
{
  static char ascii[READ_MAX + 1];

  for (size_t i = 0; i < text->len; i++)
    {
      if (text->cps[i] == 0 || text->cps[i] >= 0x80)
        return NAN;
      ascii[i] = (char) text->cps[i];
    }
  ascii[text->len] = '\0';
  return js_number (ascii);
}

/* isProcessAlive(): not finite or <= 0 is dead; else process.kill(n, 0), where Node throws
 * ERR_INVALID_ARG_TYPE unless n == (n | 0), and every error but ESRCH is alive. */
static int
is_alive (double pid)
{
  if (!isfinite (pid) || pid <= 0)
    return 0;
  if (pid > INT_MAX || pid != (double) (int) pid)
    return 1;
  return kill_not_esrch ((int) pid);
}

/* tryAcquire()'s decision on an existing lock: whether it is to be taken over (a dead PID at
 * once; empty or unreadable content once its mtime is older than stale_after_ms; a failed
 * stat never). *text is what was read, the graveyard's expected content. */
static int
is_stale (const char *lock,
          long        stale_after_ms,
          Text       *text)
{
  double mtime;

  read_text (lock, text);
  mtime = mtime_ms (lock);
  if (text->read && text->len > 0)
    return !is_alive (text_number (text));
  return isfinite (mtime) && wall_ms () - mtime > (double) stale_after_ms;
}

static int
write_temp (const char *temp)
{
  char text[32];
  int len = snprintf (text, sizeof text, "%d", peer_pid ());

  return write_new (temp, text, (size_t) len);
}

/* atomicCreateLock(): 1 linked, 0 EEXIST, -1 another error. */
static int
create_lock (const char *lock)
{
  char temp[PATH_MAX + 64];
  int ret;

  snprintf (temp, sizeof temp, "%s.%d.%08x.tmp", lock, peer_pid (), random_u32 ());
  if (write_temp (temp) < 0)
    {
      fprintf (stderr, "original-peer: cannot write %s: %s\n", temp, strerror (errno));
      return -1;
    }
  ret = link_file (temp, lock) == 0 ? 1 : errno == EEXIST ? 0 : -1;
  if (ret < 0)
    fprintf (stderr, "original-peer: cannot link %s: %s\n", lock, strerror (errno));
  remove_file (temp);
  return ret;
}

/* reclaimViaGraveyard(): not atomic, and it puts back with rename(), which can replace a lock
 * created meanwhile. Kept as is on purpose. */
static int
take_over (const char *lock,
           const Text *expected)
{
  char gy[PATH_MAX + 64];
  Text actual;

  snprintf (gy, sizeof gy, "%s.gy.%d.%08x", lock, peer_pid (), random_u32 ());
  if (rename_file (lock, gy) < 0)
    return 0;
  read_text (gy, &actual);
  if (actual.read && actual.len > 0 && !text_equal (&actual, expected))
    {
      if (rename_file (gy, lock) < 0)
        remove_file (gy);
      text_clear (&actual);
      return 0;
    }
  text_clear (&actual);
  remove_file (gy);
  return create_lock (lock);
}

/* withFileLock()'s loop: 0 once held, 1 on timeout (timeout_ms < 0: never), -1 on error. */
static int
acquire (const char *target,
         long        timeout_ms)
{
  char lock[PATH_MAX];
  double deadline = wall_ms () + (double) timeout_ms;

  snprintf (lock, sizeof lock, "%s.lock", target);
  while (timeout_ms < 0 || wall_ms () < deadline)
    {
      int ret = create_lock (lock);

      if (ret == 0)
        {
          Text text;

          if (is_stale (lock, STALE_AFTER_MS, &text))
            ret = take_over (lock, &text);
          text_clear (&text);
        }
      if (ret != 0)
        return ret > 0 ? 0 : -1;
      sleep_ms (POLL_MS);
    }
  return 1;
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

/* What the module's tryAcquire() would do with a lock of this content and mtime. */
static int
cmd_judge (const char *path,
           long        stale_after_ms)
{
  Text text;
  int stale = is_stale (path, stale_after_ms, &text);

  text_clear (&text);
  printf ("%s\n", stale ? "taken" : "held");
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
  if (argc >= 4 && strcmp (argv[1], "judge") == 0)
    {
      for (int i = 3; i < argc; i++)
        cmd_judge (argv[i], strtol (argv[2], NULL, 10));
      fflush (stdout);
      return 0;
    }
  fprintf (stderr, "usage: original-peer count TARGET COUNTER N | hold TARGET"
           " | acquire TARGET MS | judge STALE_AFTER_MS FILE..."
           " | sections TARGET COUNTER RECORD N\n");
  return 64;
}
