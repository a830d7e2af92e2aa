/* fl-test-dir-win32.c: what a directory listing means on Windows: a name whose file is
 * delete-pending is gone
 *
 * A file deleted the classic way keeps its name until its last handle closes, and wine has no
 * POSIX delete (docs/windows.md, wine gaps 1 and 10): a lock's temp, unlinked once the lock
 * was linked, stays listed for as long as the lock is held. Windows 10 and later remove such a
 * name at once; in both, the name is as good as gone, so a listing leaves it out, saying so.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-dir.h"

#include <windows.h>

static gboolean
under_wine (void)
{
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");

  return ntdll != NULL && GetProcAddress (ntdll, "wine_get_version") != NULL;
}

gboolean
_fl_test_dir_entry_is_gone (const char *path)
{
  g_autofree gunichar2 *wpath = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  FILE_STANDARD_INFO info;
  gboolean pending;
  HANDLE h;

  if (wpath == NULL)
    return FALSE;
  h = CreateFileW (wpath, FILE_READ_ATTRIBUTES,
                   FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                   FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (h == INVALID_HANDLE_VALUE)
    return GetLastError () == ERROR_ACCESS_DENIED;  /* Windows refuses to open one (5) */
  pending = GetFileInformationByHandleEx (h, FileStandardInfo, &info, sizeof info) &&
            info.DeletePending;
  /* Wine never says DeletePending. There, a temp whose file still has another name is the
   * lock's own temp, unlinked once linked and kept until the lock's handle closes: gone too.
   * (A temp libfl forgot to remove is still caught on Linux, where no name lingers.) */
  if (!pending && under_wine () && g_str_has_suffix (path, ".tmp"))
    {
      BY_HANDLE_FILE_INFORMATION bhfi;

      pending = GetFileInformationByHandle (h, &bhfi) && bhfi.nNumberOfLinks > 1;
    }
  CloseHandle (h);
  return pending;
}
