/* fl-test-util-win32.c: the Windows side of what fl-test-util-unix.c gives on Unix: a kernel
 * lock probed as libfl's Win32 platform file holds it, files read as libfl shares them, times
 * set by hand, a PID nothing runs under
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-util.h"

#include <windows.h>

/* Where libfl/platform/fl-platform-win32.c holds its kernel lock: one byte at offset 2^32,
 * beyond any end of file, since LockFileEx() locks are mandatory and a byte of the content
 * would make a peer's read of the PID fail (docs/windows.md). */
#define KERNEL_LOCK_OFFSET_HIGH 1

static HANDLE
open_shared (const char *path,
             DWORD       access)
{
  g_autofree gunichar2 *wpath = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);

  g_assert_nonnull (wpath);
  return CreateFileW (wpath, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                      NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
}

/* As g_file_get_contents(), but sharing read, write and delete as libfl does: GLib's open does
 * not share delete, so it cannot read a lock libfl holds (GLib issue #539). */
char *
fl_test_read (const char *path,
              gsize      *len)
{
  HANDLE h = open_shared (path, GENERIC_READ);
  GString *contents = g_string_new (NULL);
  char buf[4096];
  DWORD n;

  if (h == INVALID_HANDLE_VALUE)
    g_error ("cannot open %s: error %lu", path, GetLastError ());
  while (ReadFile (h, buf, sizeof buf, &n, NULL) && n > 0)
    g_string_append_len (contents, buf, n);
  CloseHandle (h);
  if (len != NULL)
    *len = contents->len;
  return g_string_free (contents, FALSE);
}

void
fl_test_set_mtime_us (const char *path,
                      gint64      mtime_us)
{
  HANDLE h = open_shared (path, FILE_WRITE_ATTRIBUTES);
  gint64 ticks = mtime_us * 10 + G_GINT64_CONSTANT (116444736000000000);
  FILETIME when = { (DWORD) ticks, (DWORD) (ticks >> 32) };

  g_assert_true (h != INVALID_HANDLE_VALUE);
  g_assert_true (SetFileTime (h, NULL, &when, &when));
  CloseHandle (h);
}

/* FILETIME's 100 ns ticks since 1601 in Unix microseconds. */
static gint64
unix_us (LARGE_INTEGER ticks)
{
  return (ticks.QuadPart - G_GINT64_CONSTANT (116444736000000000)) / 10;
}

gint64
fl_test_changed_us (const char *path)
{
  HANDLE h = open_shared (path, FILE_READ_ATTRIBUTES);
  FILE_BASIC_INFO basic;

  g_assert_true (h != INVALID_HANDLE_VALUE);
  g_assert_true (GetFileInformationByHandleEx (h, FileBasicInfo, &basic, sizeof basic));
  CloseHandle (h);
  return MAX (unix_us (basic.ChangeTime), unix_us (basic.LastWriteTime));
}

guint64
fl_test_file_id (const char *path)
{
  HANDLE h = open_shared (path, FILE_READ_ATTRIBUTES);
  BY_HANDLE_FILE_INFORMATION bhfi;

  g_assert_true (h != INVALID_HANDLE_VALUE);
  g_assert_true (GetFileInformationByHandle (h, &bhfi));
  CloseHandle (h);
  return ((guint64) bhfi.nFileIndexHigh << 32) | bhfi.nFileIndexLow;
}

/* A shared probe from a handle of our own fails while anyone (this process included) holds the
 * byte exclusively through another handle, as LOCK_SH | LOCK_NB does on Unix. */
gboolean
fl_test_kernel_lock_held (const char *path)
{
  HANDLE h = open_shared (path, GENERIC_READ);
  OVERLAPPED at = { 0 };
  gboolean held;

  g_assert_true (h != INVALID_HANDLE_VALUE);
  at.OffsetHigh = KERNEL_LOCK_OFFSET_HIGH;
  if (LockFileEx (h, LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at))
    {
      UnlockFileEx (h, 0, 1, 0, &at);
      held = FALSE;
    }
  else
    {
      g_assert_cmpuint (GetLastError (), ==, ERROR_LOCK_VIOLATION);
      held = TRUE;
    }
  CloseHandle (h);
  return held;
}

/* The PID of a process that has exited. Windows reuses a PID only once every handle to its
 * process is closed (docs/windows.md, "Start time / PID reuse"), so the handle is kept open
 * for the rest of the test program's life: nothing runs under that PID while the test does. */
int
fl_test_dead_pid (void)
{
  g_autofree char *worker = fl_test_helper_path ("FL_WORKER", "fl-worker");
  const char *argv[] = { worker, NULL };  /* no command: it exits at once, saying its usage */
  GPid handle;

  _fl_test_spawn_win32 (argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                        &handle, NULL, NULL);
  g_assert_cmpuint (WaitForSingleObject (handle, 30000 * (DWORD) fl_test_time_scale ()), ==,
                    WAIT_OBJECT_0);
  return (int) GetProcessId (handle);
}

gboolean
fl_test_is_root (void)
{
  return FALSE;  /* no test here runs as another user on Windows */
}
