/* fl-crash-shim.c: kill the process at a named step of the lock protocol
 *
 * Linked into fl-worker-crash with `-Wl,--wrap=` for the calls the protocol is made of, so every
 * call from libfl (linked statically) goes through here first. The library needs no hook of its
 * own, and the crash is real: SIGKILL, in the middle of the step.
 *
 *   FL_CRASH_AT   before-link        A2 done, before A3's link() to T.lock
 *                 after-link         A3's link() succeeded, before the temp is removed
 *                 after-gy-rename    T2's rename to a graveyard succeeded, before T3
 *                 after-lock-unlink  R2's unlink(T.lock) succeeded, before R3
 *   FL_CRASH_NTH  crash at the Nth call matching the step (default 1)
 *   FL_CRASH_LOG  file to which "crash STEP PID" is appended just before dying
 *
 * Only names ending in ".lock" (or containing ".lock.gy.") match, so the worker's own marker
 * files are never a crash point.
 *
 *   FL_TEST_CRASH_AT   a step docs/protocol.md names (A3, A4, T1, T2, T4, R2, C1, C2, C3): the
 *                      end of that step, exactly, the first time it is reached. The library calls
 *                      _fl_platform_step_done() there, which does nothing; this file replaces
 *                      it too (-Wl,--wrap), so all fault injection is here, none in libfl.
 *
 *   FL_TEST_PAUSE_AT   steps, comma-separated (A4 is the verdict "stale, ours to act on"):
 *                      at the end of each, "paused STEP" on stdout, then wait for a line on
 *                      stdin (or its end), so that a test can act between two steps.
 *
 *   FL_TEST_FSTATFS_FAIL  set: every fstatfs() fails with ENOENT, as a FUSE daemon that answers
 *                      it by the file's path does once the name is gone (bindfs, sshfs): the
 *                      moment test-fs-evidence.c's fs-unanswered tests stand for.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/fl-platform.h"

int __real_link (const char *oldpath, const char *newpath);
int __real_linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                   int flags);
int __real_rename (const char *oldpath, const char *newpath);
int __real_renameat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int __real_renameat2 (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                      unsigned int flags);
int __real_unlink (const char *path);
int __real_unlinkat (int dirfd, const char *path, int flags);
/* The buffer's type does not matter to the link, and <sys/statfs.h> would name two. */
int __real_fstatfs (int fd, void *buf);
int __real_fstatfs64 (int fd, void *buf);

int __wrap_link (const char *oldpath, const char *newpath);
int __wrap_linkat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                   int flags);
int __wrap_rename (const char *oldpath, const char *newpath);
int __wrap_renameat (int olddirfd, const char *oldpath, int newdirfd, const char *newpath);
int __wrap_renameat2 (int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                      unsigned int flags);
int __wrap_unlink (const char *path);
int __wrap_unlinkat (int dirfd, const char *path, int flags);
void __wrap__fl_platform_step_done (const char *step);
int __wrap_fstatfs (int fd, void *buf);
int __wrap_fstatfs64 (int fd, void *buf);

static long match_count;

static int
ends_with_lock (const char *path)
{
  size_t len = strlen (path);

  return len >= 5 && strcmp (path + len - 5, ".lock") == 0;
}

static int
is_graveyard (const char *path)
{
  return strstr (path, ".lock.gy.") != NULL;
}

static void
maybe_crash (const char *step)
{
  const char *at = getenv ("FL_CRASH_AT");
  const char *nth = getenv ("FL_CRASH_NTH");
  const char *log = getenv ("FL_CRASH_LOG");
  char line[128];
  int len;

  if (at == NULL || strcmp (at, step) != 0)
    return;
  if (++match_count < (nth != NULL ? strtol (nth, NULL, 10) : 1))
    return;

  len = snprintf (line, sizeof line, "crash %s %d\n", step, (int) getpid ());
  if (log != NULL)
    {
      int fd = open (log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

      if (fd >= 0)
        {
          if (write (fd, line, len) < 0)
            {
              /* Nothing to do: the crash itself is what matters. */
            }
          close (fd);
        }
    }
  kill (getpid (), SIGKILL);
}

int
__wrap_link (const char *oldpath,
             const char *newpath)
{
  int ret;

  if (ends_with_lock (newpath))
    maybe_crash ("before-link");
  ret = __real_link (oldpath, newpath);
  if (ret == 0 && ends_with_lock (newpath))
    maybe_crash ("after-link");
  return ret;
}

int
__wrap_linkat (int         olddirfd,
               const char *oldpath,
               int         newdirfd,
               const char *newpath,
               int         flags)
{
  int ret;

  if (ends_with_lock (newpath))
    maybe_crash ("before-link");
  ret = __real_linkat (olddirfd, oldpath, newdirfd, newpath, flags);
  if (ret == 0 && ends_with_lock (newpath))
    maybe_crash ("after-link");
  return ret;
}

int
__wrap_rename (const char *oldpath,
               const char *newpath)
{
  int ret = __real_rename (oldpath, newpath);

  if (ret == 0 && is_graveyard (newpath))
    maybe_crash ("after-gy-rename");
  return ret;
}

int
__wrap_renameat (int         olddirfd,
                 const char *oldpath,
                 int         newdirfd,
                 const char *newpath)
{
  int ret = __real_renameat (olddirfd, oldpath, newdirfd, newpath);

  if (ret == 0 && is_graveyard (newpath))
    maybe_crash ("after-gy-rename");
  return ret;
}

int
__wrap_renameat2 (int           olddirfd,
                  const char   *oldpath,
                  int           newdirfd,
                  const char   *newpath,
                  unsigned int  flags)
{
  int ret = __real_renameat2 (olddirfd, oldpath, newdirfd, newpath, flags);

  if (ret == 0 && is_graveyard (newpath))
    maybe_crash ("after-gy-rename");
  return ret;
}

int
__wrap_unlink (const char *path)
{
  int ret = __real_unlink (path);

  if (ret == 0 && ends_with_lock (path))
    maybe_crash ("after-lock-unlink");
  return ret;
}

int
__wrap_unlinkat (int         dirfd,
                 const char *path,
                 int         flags)
{
  int ret = __real_unlinkat (dirfd, path, flags);

  if (ret == 0 && ends_with_lock (path))
    maybe_crash ("after-lock-unlink");
  return ret;
}

/* Whether @step is one of the comma-separated @steps. */
static int
step_listed (const char *steps,
             const char *step)
{
  size_t len = strlen (step);
  const char *p = steps;

  for (;;)
    {
      if (strncmp (p, step, len) == 0 && (p[len] == ',' || p[len] == '\0'))
        return 1;
      p = strchr (p, ',');
      if (p == NULL)
        return 0;
      p++;
    }
}

static void
pause_at (const char *step)
{
  const char *at = getenv ("FL_TEST_PAUSE_AT");
  char c;

  if (at == NULL || !step_listed (at, step))
    return;
  printf ("paused %s\n", step);
  fflush (stdout);
  while (read (STDIN_FILENO, &c, 1) == 1 && c != '\n')
    ;
}

void
__wrap__fl_platform_step_done (const char *step)
{
  const char *at = getenv ("FL_TEST_CRASH_AT");

  if (at != NULL && strcmp (at, step) == 0)
    _fl_platform_die_now ();
  pause_at (step);
}

static int
fstatfs_fails (void)
{
  if (getenv ("FL_TEST_FSTATFS_FAIL") == NULL)
    return 0;
  errno = ENOENT;
  return 1;
}

int
__wrap_fstatfs (int   fd,
                void *buf)
{
  return fstatfs_fails () ? -1 : __real_fstatfs (fd, buf);
}

int
__wrap_fstatfs64 (int   fd,
                  void *buf)
{
  return fstatfs_fails () ? -1 : __real_fstatfs64 (fd, buf);
}
