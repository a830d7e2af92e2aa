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
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "fl-test-counter.h"

/* The module polls at this fixed interval while the lock is held. */
#define POLL_MS 15

static long
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static unsigned int
random_u32 (void)
{
  unsigned int value = 0;

  if (getrandom (&value, sizeof value, 0) != sizeof value)
    value = (unsigned int) (getpid () ^ now_ms ());
  return value;
}

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
  size_t total = 0, n = 0, start, end, a = 0;
  ssize_t got;
  int fd;

  *missing = 0;
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      *missing = errno == ENOENT;
      return NAN;
    }
  while (total < sizeof buf && (got = read (fd, buf + total, sizeof buf - total)) > 0)
    total += (size_t) got;
  close (fd);

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
  if (kill ((pid_t) (int) pid, 0) == 0)
    return 1;
  return errno == EPERM;
}

static int
write_temp (const char *temp)
{
  char text[32];
  int len;
  int fd;

  fd = open (temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  len = snprintf (text, sizeof text, "%d", (int) getpid ());
  if (write (fd, text, len) != len)
    {
      close (fd);
      unlink (temp);
      return -1;
    }
  return close (fd);
}

/* The module's takeover: not atomic, and it puts back with rename(), which can replace a lock
 * created meanwhile. Kept as is on purpose. */
static void
take_over (const char *lock,
           double      judged)
{
  char gy[PATH_MAX + 64];
  int missing;

  snprintf (gy, sizeof gy, "%s.gy.%d.%08x", lock, (int) getpid (), random_u32 ());
  if (rename (lock, gy) < 0)
    return;
  if (read_pid (gy, &missing) != judged)
    rename (gy, lock);
  else
    unlink (gy);
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

      snprintf (temp, sizeof temp, "%s.%d.%08x.tmp", lock, (int) getpid (), random_u32 ());
      if (write_temp (temp) < 0)
        {
          fprintf (stderr, "original-peer: cannot write %s: %s\n", temp, strerror (errno));
          return -1;
        }
      if (link (temp, lock) == 0)
        {
          unlink (temp);
          return 0;
        }
      if (errno != EEXIST)
        {
          fprintf (stderr, "original-peer: cannot link %s: %s\n", lock, strerror (errno));
          unlink (temp);
          return -1;
        }
      unlink (temp);

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
      usleep (POLL_MS * 1000);
    }
}

static void
release (const char *target)
{
  char lock[PATH_MAX];

  snprintf (lock, sizeof lock, "%s.lock", target);
  unlink (lock);
}

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

static int
cmd_hold (const char *target)
{
  char buf[256];

  if (acquire (target, -1) != 0)
    return FL_TEST_EXIT_FAILED;
  printf ("held %d\n", (int) getpid ());
  fflush (stdout);
  while (read (STDIN_FILENO, buf, sizeof buf) > 0)
    ;
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
  if (argc == 5 && strcmp (argv[1], "count") == 0)
    return cmd_count (argv[2], argv[3], strtol (argv[4], NULL, 10));
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
      char path[] = "/tmp/original-peer-judge-XXXXXX";
      int fd = mkstemp (path);
      int ret;

      if (fd < 0 || write (fd, argv[2], strlen (argv[2])) != (ssize_t) strlen (argv[2]))
        return FL_TEST_EXIT_FAILED;
      close (fd);
      ret = cmd_judge (path);
      unlink (path);
      return ret;
    }
  fprintf (stderr, "usage: original-peer count TARGET COUNTER N | hold TARGET"
           " | acquire TARGET MS | judge CONTENT | judge-file FILE...\n");
  return 64;
}
