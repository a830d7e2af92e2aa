/* fl-platform-win32.c: fl-platform.h with Win32 calls
 *
 * Plain C and <windows.h> only, so it builds with mingw-w64 alone. What each function calls
 * and which Windows error becomes which errno value: docs/windows.md. The rules that shape it
 * (docs/windows.md, "Rules"):
 *  - every CreateFileW shares read, write and delete, so no handle of ours ever stops another
 *    process (libfl or Node) from renaming or deleting a lock file;
 *  - names are never followed: FILE_FLAG_OPEN_REPARSE_POINT on every open of a name, and a
 *    reparse point found there is ELOOP;
 *  - the kernel lock is one byte at 2^32, far beyond any lock file's end: Windows byte-range
 *    locks are mandatory, and a lock on byte 0 would make other readers' ReadFile of the PID
 *    fail;
 *  - antivirus scanners and indexers open files without FILE_SHARE_DELETE for a few ms, so
 *    links, renames and deletes that fail with ERROR_ACCESS_DENIED or ERROR_SHARING_VIOLATION
 *    are retried with backoff for FL_BUSY_RETRY_MS (1500 by default) before EBUSY is returned;
 *  - no handle is inheritable (that is close-on-exec on Windows).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/fl-platform.h"

/* mingw-w64 10 hides FileDispositionInfoEx below _WIN32_WINNT 0x0A000002: use its number. */
#define FL_FILE_DISPOSITION_INFO_EX_CLASS ((FILE_INFO_BY_HANDLE_CLASS) 21)
#define FL_DISPOSITION_DELETE 0x1
#define FL_DISPOSITION_POSIX_SEMANTICS 0x2
#define FL_DISPOSITION_IGNORE_READONLY 0x10

/* The default of FL_BUSY_RETRY_MS: what SQLite, Qt and Go spend on the same retries. */
#define RETRY_BUDGET_DEFAULT_MS 1500
#define RETRY_BUDGET_LIMIT_MS   60000
#define KERNEL_LOCK_OFFSET_HIGH 1 /* offset 2^32 */

/* 100 ns ticks between 1601-01-01 (FILETIME) and 1970-01-01 (Unix). */
#define FILETIME_UNIX_EPOCH 116444736000000000ULL

struct _FlDir
{
  wchar_t *path;    /* \\?\ form, no trailing separator */
  HANDLE   handle;  /* FILE_FLAG_BACKUP_SEMANTICS; keeps the directory from being removed */
  FlFileId id;
};

struct _FlDirList
{
  HANDLE           find;
  bool             first;
  WIN32_FIND_DATAW data;
  char             name[MAX_PATH * 3 + 1];
};

struct _FlWatch
{
  HANDLE     dir;         /* overlapped directory handle, or INVALID_HANDLE_VALUE */
  OVERLAPPED overlapped;  /* its hEvent is ours */
  bool       pending;     /* a ReadDirectoryChangesW is outstanding */
  wchar_t   *name;
  HANDLE     process;     /* NULL: none */
  DWORD      buf[16384];  /* 64 KiB of FILE_NOTIFY_INFORMATION, DWORD-aligned */
};


/* Errors */

/* The one mapping from Windows error codes to errno values (docs/windows.md, "Errors").
 * Callers that give a code a meaning of their own (5 and 32 as "busy, retry", 183 as "held")
 * decide before they get here. */
static int
map_error (DWORD code)
{
  switch (code)
    {
    case ERROR_SUCCESS:
      return 0;
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_BAD_PATHNAME:
    case ERROR_INVALID_NAME:
      return ENOENT;
    case ERROR_DIRECTORY:
      return ENOTDIR;
    case ERROR_ACCESS_DENIED:
    case ERROR_PRIVILEGE_NOT_HELD:
      return EACCES;
    case ERROR_SHARING_VIOLATION:
    case ERROR_DELETE_PENDING:
    case ERROR_BUSY:
      return EBUSY;
    case ERROR_LOCK_VIOLATION:
    case ERROR_LOCK_FAILED:
    case ERROR_NOT_LOCKED:
      return EWOULDBLOCK;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
      return EEXIST;
    case ERROR_INVALID_FUNCTION:
    case ERROR_NOT_SUPPORTED:
    case ERROR_CALL_NOT_IMPLEMENTED:
      return EOPNOTSUPP;
    case ERROR_INVALID_PARAMETER:
      return EINVAL;
    case ERROR_INVALID_HANDLE:
      return EBADF;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
      return ENOMEM;
    case ERROR_TOO_MANY_OPEN_FILES:
      return EMFILE;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
      return ENOSPC;
    case ERROR_WRITE_PROTECT:
      return EROFS;
    case ERROR_NOT_SAME_DEVICE:
      return EXDEV;
    case ERROR_DIR_NOT_EMPTY:
      return ENOTEMPTY;
    case ERROR_TOO_MANY_LINKS:
      return EMLINK;
    case ERROR_CANT_RESOLVE_FILENAME:
    case 681: /* ERROR_STOPPED_ON_SYMLINK, missing from mingw-w64 10 */
      return ELOOP;
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_BUFFER_OVERFLOW:
      return ENAMETOOLONG;
    case ERROR_NO_UNICODE_TRANSLATION:
      return EILSEQ;
    case ERROR_OPERATION_ABORTED:
      return ECANCELED;
    default:
      return EIO;
    }
}

static int
last_error (void)
{
  return map_error (GetLastError ());
}

/* Antivirus, indexers and delete-pending names: worth a short wait (docs/windows.md). */
static bool
is_transient (DWORD code)
{
  return code == ERROR_ACCESS_DENIED || code == ERROR_SHARING_VIOLATION ||
         code == ERROR_DELETE_PENDING;
}

/* How long one call retries: FL_BUSY_RETRY_MS (0 to 60000) from the environment, read once,
 * else RETRY_BUDGET_DEFAULT_MS. A racing first read computes the same value twice. */
static DWORD
retry_budget_ms (void)
{
  static volatile LONG budget = -1;
  LONG value = InterlockedCompareExchange (&budget, -1, -1);

  if (value < 0)
    {
      const char *text = getenv ("FL_BUSY_RETRY_MS");
      char *end = NULL;
      long parsed = text != NULL ? strtol (text, &end, 10) : -1;

      value = text != NULL && end != text && *end == '\0' && parsed >= 0
              ? (LONG) (parsed < RETRY_BUDGET_LIMIT_MS ? parsed : RETRY_BUDGET_LIMIT_MS)
              : RETRY_BUDGET_DEFAULT_MS;
      InterlockedExchange (&budget, value);
    }
  return (DWORD) value;
}

/* Sleeps 1, 2, 4 ... 64 ms; false once the retry budget has passed since @start. */
static bool
retry_backoff (ULONGLONG start,
               DWORD    *delay_ms)
{
  if (GetTickCount64 () - start >= retry_budget_ms ())
    return false;
  Sleep (*delay_ms);
  if (*delay_ms < 64)
    *delay_ms *= 2;
  return true;
}


/* Names and paths */

static wchar_t *
utf8_to_wide (const char *s)
{
  int n = MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
  wchar_t *w;

  if (n <= 0)
    return NULL;
  w = malloc ((size_t) n * sizeof *w);
  if (w != NULL && MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n)
    {
      free (w);
      w = NULL;
    }
  return w;
}

/* Into @out (@size bytes); false when it does not fit or is not valid UTF-16. */
static bool
wide_to_utf8 (const wchar_t *w,
              char          *out,
              int            size)
{
  int n = WideCharToMultiByte (CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, out, size, NULL, NULL);

  return n > 0;
}

/* A single component: no separator, no drive or stream (":"), not "." or "..". */
static bool
name_ok (const char *name)
{
  return name[0] != '\0' && strpbrk (name, "/\\:") == NULL && strcmp (name, ".") != 0 &&
         strcmp (name, "..") != 0;
}

/* @dir's path + "\" + @name, malloc'ed; sets *@err on failure. */
static wchar_t *
join (FlDir      *dir,
      const char *name,
      int        *err)
{
  wchar_t *wname, *full;
  size_t dlen, nlen;

  if (!name_ok (name))
    {
      *err = EINVAL;
      return NULL;
    }
  wname = utf8_to_wide (name);
  if (wname == NULL)
    {
      *err = EILSEQ;
      return NULL;
    }
  dlen = wcslen (dir->path);
  nlen = wcslen (wname);
  full = malloc ((dlen + 1 + nlen + 1) * sizeof *full);
  if (full == NULL)
    {
      free (wname);
      *err = ENOMEM;
      return NULL;
    }
  memcpy (full, dir->path, dlen * sizeof *full);
  full[dlen] = L'\\';
  memcpy (full + dlen + 1, wname, (nlen + 1) * sizeof *full);
  free (wname);
  return full;
}

/* The absolute \\?\ form of @path (so no MAX_PATH limit), no trailing separator. */
static wchar_t *
absolute_path (const char *path,
               int        *err)
{
  wchar_t *wpath = utf8_to_wide (path), *full, *out;
  DWORD n;
  size_t len;

  if (wpath == NULL)
    {
      *err = EILSEQ;
      return NULL;
    }
  n = GetFullPathNameW (wpath, 0, NULL, NULL);
  full = n ? malloc ((n + 1) * sizeof *full) : NULL;
  if (full == NULL || GetFullPathNameW (wpath, n + 1, full, NULL) == 0)
    {
      *err = full == NULL ? ENOMEM : last_error ();
      free (full);
      free (wpath);
      return NULL;
    }
  free (wpath);
  len = wcslen (full);
  while (len > 3 && (full[len - 1] == L'\\' || full[len - 1] == L'/'))
    full[--len] = 0;

  out = malloc ((len + 9) * sizeof *out);
  if (out == NULL)
    {
      free (full);
      *err = ENOMEM;
      return NULL;
    }
  if (wcsncmp (full, L"\\\\?\\", 4) == 0)
    wcscpy (out, full);
  else if (wcsncmp (full, L"\\\\", 2) == 0)
    {
      wcscpy (out, L"\\\\?\\UNC\\");
      wcscat (out, full + 2);
    }
  else
    {
      wcscpy (out, L"\\\\?\\");
      wcscat (out, full);
    }
  free (full);
  return out;
}

/* Every open goes through here: share read, write and delete; never inheritable. */
static HANDLE
open_path (const wchar_t *path,
           DWORD          access,
           DWORD          disposition,
           DWORD          flags)
{
  return CreateFileW (path, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                      NULL, disposition, flags, NULL);
}

/* Opens @name itself, never what it points to. */
static int
open_name (FlDir      *dir,
           const char *name,
           DWORD       access,
           HANDLE     *out)
{
  int err = 0;
  wchar_t *path = join (dir, name, &err);

  if (path == NULL)
    return err;
  *out = open_path (path, access, OPEN_EXISTING,
                    FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS);
  err = *out == INVALID_HANDLE_VALUE ? last_error () : 0;
  free (path);
  return err;
}


/* Times and identity */

static int64_t
filetime_ticks_to_unix_us (uint64_t ticks)
{
  return ((int64_t) ticks - (int64_t) FILETIME_UNIX_EPOCH) / 10;
}

static int64_t
filetime_ticks_to_unix_ns (uint64_t ticks)
{
  return ((int64_t) ticks - (int64_t) FILETIME_UNIX_EPOCH) * 100;
}

static uint64_t
filetime_ticks (const FILETIME *ft)
{
  return ((uint64_t) ft->dwHighDateTime << 32) | ft->dwLowDateTime;
}

static int64_t
real_now_us (void)
{
  FILETIME ft;

  GetSystemTimeAsFileTime (&ft);
  return filetime_ticks_to_unix_us (filetime_ticks (&ft));
}

/* What this process knows about each handle it gave out (docs/windows.md, "Handle table"):
 *  - the kernel lock mode it holds, since a Windows lock cannot be converted in place and a
 *    second LockFileEx on one handle stacks instead of replacing;
 *  - the volume serial seen when it was opened: wine reports 0 for a handle whose name was
 *    renamed or deleted since (wine gap 9), which would make every held lock look replaced.
 * Entries go in _fl_platform_close(); a handle closed otherwise leaves a stale entry. */
#define MODE_NONE (-1)

typedef struct
{
  HANDLE handle;
  DWORD  serial;
  int    mode;  /* FlKernelMode, or MODE_NONE */
} HandleEntry;

static SRWLOCK handles_lock = SRWLOCK_INIT;
static HandleEntry *handles;
static size_t handles_len, handles_size;

/* Called with handles_lock held. NULL only when out of memory and @add. */
static HandleEntry *
handles_find (HANDLE h,
              bool   add)
{
  for (size_t i = 0; i < handles_len; i++)
    if (handles[i].handle == h)
      return &handles[i];
  if (!add)
    return NULL;
  if (handles_len == handles_size)
    {
      size_t size = handles_size ? 2 * handles_size : 64;
      HandleEntry *grown = realloc (handles, size * sizeof *grown);

      if (grown == NULL)
        return NULL;
      handles = grown;
      handles_size = size;
    }
  handles[handles_len] = (HandleEntry) { h, 0, MODE_NONE };
  return &handles[handles_len++];
}

static void
handles_forget (HANDLE h)
{
  HandleEntry *e;

  AcquireSRWLockExclusive (&handles_lock);
  if ((e = handles_find (h, false)) != NULL)
    *e = handles[--handles_len];
  ReleaseSRWLockExclusive (&handles_lock);
}

/* Remembers the serial of a handle just opened (by a name that is still there). */
static void
handles_remember (HANDLE h,
                  DWORD  serial)
{
  HandleEntry *e;

  AcquireSRWLockExclusive (&handles_lock);
  if ((e = handles_find (h, true)) != NULL)
    {
      e->serial = serial;
      e->mode = MODE_NONE;
    }
  ReleaseSRWLockExclusive (&handles_lock);
}

static DWORD
handles_serial (HANDLE h)
{
  HandleEntry *e;
  DWORD serial = 0;

  AcquireSRWLockShared (&handles_lock);
  if ((e = handles_find (h, false)) != NULL)
    serial = e->serial;
  ReleaseSRWLockShared (&handles_lock);
  return serial;
}

static void
remember_serial (HANDLE h)
{
  BY_HANDLE_FILE_INFORMATION bhfi;

  if (GetFileInformationByHandle (h, &bhfi))
    handles_remember (h, bhfi.dwVolumeSerialNumber);
}

static int
handle_info (HANDLE      h,
             FlFileInfo *info)
{
  BY_HANDLE_FILE_INFORMATION bhfi;
  FILE_BASIC_INFO basic;
  DWORD type;

  if (!GetFileInformationByHandle (h, &bhfi))
    return last_error ();

  memset (info, 0, sizeof *info);
  if (bhfi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    info->type = FL_FILE_SYMLINK;
  else if (bhfi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
    info->type = FL_FILE_DIRECTORY;
  else
    {
      type = GetFileType (h);
      info->type = type == FILE_TYPE_DISK ? FL_FILE_REGULAR :
                   type == FILE_TYPE_PIPE ? FL_FILE_FIFO :
                   type == FILE_TYPE_CHAR ? FL_FILE_DEVICE : FL_FILE_UNKNOWN;
    }
  info->id.dev = bhfi.dwVolumeSerialNumber ? bhfi.dwVolumeSerialNumber : handles_serial (h);
  info->id.ino = ((uint64_t) bhfi.nFileIndexHigh << 32) | bhfi.nFileIndexLow;
  info->size = (int64_t) (((uint64_t) bhfi.nFileSizeHigh << 32) | bhfi.nFileSizeLow);
  info->mtime_ns = filetime_ticks_to_unix_ns (filetime_ticks (&bhfi.ftLastWriteTime));
  /* ChangeTime is NTFS's ctime (SetFileTime cannot set it); creation time where it is 0. */
  if (GetFileInformationByHandleEx (h, FileBasicInfo, &basic, sizeof basic) &&
      basic.ChangeTime.QuadPart != 0)
    info->ctime_ns = filetime_ticks_to_unix_ns ((uint64_t) basic.ChangeTime.QuadPart);
  else
    info->ctime_ns = filetime_ticks_to_unix_ns (filetime_ticks (&bhfi.ftCreationTime));
  info->uid = -1;
  info->mode = 0;
  info->nlink = bhfi.nNumberOfLinks;
  return 0;
}

/* Deletes the name @h was opened by: POSIX semantics (the name goes at once, other handles
 * keep working) where the filesystem has them, else the classic delete-on-last-close. */
static int
delete_by_handle (HANDLE h)
{
  struct { DWORD flags; } ex = {
    FL_DISPOSITION_DELETE | FL_DISPOSITION_POSIX_SEMANTICS | FL_DISPOSITION_IGNORE_READONLY
  };
  FILE_DISPOSITION_INFO classic = { TRUE };
  DWORD code;

  if (SetFileInformationByHandle (h, FL_FILE_DISPOSITION_INFO_EX_CLASS, &ex, sizeof ex))
    return 0;
  code = GetLastError ();
  if (code != ERROR_INVALID_PARAMETER && code != ERROR_NOT_SUPPORTED &&
      code != ERROR_INVALID_FUNCTION && code != ERROR_CALL_NOT_IMPLEMENTED)
    return map_error (code);
  if (SetFileInformationByHandle (h, FileDispositionInfo, &classic, sizeof classic))
    return 0;
  return last_error ();
}


/* Directories */

static int
dir_from_handle (HANDLE   h,
                 wchar_t *path,
                 FlDir  **out)
{
  FlFileInfo info;
  FlDir *dir;
  int err = handle_info (h, &info);

  if (err == 0 && info.type != FL_FILE_DIRECTORY)
    err = info.type == FL_FILE_SYMLINK ? ELOOP : ENOTDIR;
  if (err == 0 && (dir = malloc (sizeof *dir)) == NULL)
    err = ENOMEM;
  if (err != 0)
    {
      CloseHandle (h);
      free (path);
      return err;
    }
  dir->path = path;
  dir->handle = h;
  dir->id = info.id;
  *out = dir;
  return 0;
}

/* Makes each missing directory of @path (a \\?\ path), parents first. */
static int
make_dirs (wchar_t *path)
{
  DWORD attrs = GetFileAttributesW (path);
  wchar_t *sep;
  int err;

  if (attrs != INVALID_FILE_ATTRIBUTES)
    return 0;
  sep = wcsrchr (path, L'\\');
  if (sep != NULL && sep - path > 7)
    {
      *sep = 0;
      err = make_dirs (path);
      *sep = L'\\';
      if (err != 0)
        return err;
    }
  if (!CreateDirectoryW (path, NULL) && GetLastError () != ERROR_ALREADY_EXISTS)
    return last_error ();
  return 0;
}

int
_fl_platform_dir_open (const char *path,
                       bool        create,
                       FlDir     **out)
{
  int err = 0;
  wchar_t *wpath = absolute_path (path, &err), *final;
  HANDLE h;
  DWORD n;

  if (wpath == NULL)
    return err;
  if (create && (err = make_dirs (wpath)) != 0)
    {
      free (wpath);
      return err;
    }
  /* Links in the path are followed, as any open of a path does. */
  h = open_path (wpath, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | SYNCHRONIZE, OPEN_EXISTING,
                 FILE_FLAG_BACKUP_SEMANTICS);
  if (h == INVALID_HANDLE_VALUE)
    {
      err = last_error ();
      free (wpath);
      return err;
    }
  /* Names are joined to where the directory really is, not to the links on the way there. */
  n = GetFinalPathNameByHandleW (h, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  final = n ? malloc ((n + 1) * sizeof *final) : NULL;
  if (final != NULL &&
      GetFinalPathNameByHandleW (h, final, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) - 1 < n)
    {
      size_t len = wcslen (final);

      while (len > 7 && final[len - 1] == L'\\')
        final[--len] = 0;
      free (wpath);
      wpath = final;
    }
  else
    free (final);
  return dir_from_handle (h, wpath, out);
}

int
_fl_platform_dir_open_at (FlDir      *dir,
                          const char *name,
                          FlDir     **out)
{
  int err = 0;
  wchar_t *path = join (dir, name, &err);
  HANDLE h;

  if (path == NULL)
    return err;
  h = open_path (path, FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES | SYNCHRONIZE, OPEN_EXISTING,
                 FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT);
  if (h == INVALID_HANDLE_VALUE)
    {
      err = last_error ();
      free (path);
      return err;
    }
  return dir_from_handle (h, path, out);
}

bool
_fl_platform_dir_keep_open (void)
{
  return false;  /* a directory handle kept open gets in the way of deleting the directory */
}

void
_fl_platform_dir_close (FlDir *dir)
{
  if (dir == NULL)
    return;
  CloseHandle (dir->handle);
  free (dir->path);
  free (dir);
}

int
_fl_platform_dir_info (FlDir      *dir,
                       FlFileInfo *info)
{
  int err = handle_info (dir->handle, info);

  if (err == 0 && info->id.dev == 0)
    info->id.dev = dir->id.dev;  /* wine gap 9: a directory renamed since it was opened */
  return err;
}

int
_fl_platform_dir_list_open (FlDir      *dir,
                            FlDirList **out)
{
  size_t len = wcslen (dir->path);
  wchar_t *pattern = malloc ((len + 3) * sizeof *pattern);
  FlDirList *list = calloc (1, sizeof *list);
  DWORD code;

  if (pattern == NULL || list == NULL)
    {
      free (pattern);
      free (list);
      return ENOMEM;
    }
  memcpy (pattern, dir->path, len * sizeof *pattern);
  wcscpy (pattern + len, L"\\*");
  list->find = FindFirstFileExW (pattern, FindExInfoBasic, &list->data, FindExSearchNameMatch,
                                 NULL, FIND_FIRST_EX_LARGE_FETCH);
  code = GetLastError ();
  free (pattern);
  if (list->find == INVALID_HANDLE_VALUE && code != ERROR_FILE_NOT_FOUND)
    {
      free (list);
      return map_error (code);
    }
  list->first = list->find != INVALID_HANDLE_VALUE;
  *out = list;
  return 0;
}

const char *
_fl_platform_dir_list_next (FlDirList  *list,
                            FlFileType *type)
{
  while (list->find != INVALID_HANDLE_VALUE)
    {
      DWORD attrs;

      if (!list->first && !FindNextFileW (list->find, &list->data))
        return NULL;
      list->first = false;
      if (wcscmp (list->data.cFileName, L".") == 0 || wcscmp (list->data.cFileName, L"..") == 0)
        continue;
      /* A name that is not valid UTF-16 cannot be a lock file of ours: skipped. */
      if (!wide_to_utf8 (list->data.cFileName, list->name, sizeof list->name))
        continue;
      attrs = list->data.dwFileAttributes;
      if (type != NULL)
        *type = (attrs & FILE_ATTRIBUTE_REPARSE_POINT) ? FL_FILE_SYMLINK :
                (attrs & FILE_ATTRIBUTE_DIRECTORY) ? FL_FILE_DIRECTORY : FL_FILE_REGULAR;
      return list->name;
    }
  return NULL;
}

void
_fl_platform_dir_list_close (FlDirList *list)
{
  if (list == NULL)
    return;
  if (list->find != INVALID_HANDLE_VALUE)
    FindClose (list->find);
  free (list);
}


/* Files by name */

int
_fl_platform_stat_at (FlDir      *dir,
                      const char *name,
                      FlFileInfo *info)
{
  HANDLE h;
  int err = open_name (dir, name, FILE_READ_ATTRIBUTES, &h);

  if (err != 0)
    return err;
  err = handle_info (h, info);
  CloseHandle (h);
  return err;
}

int
_fl_platform_stat_path (const char *path,
                        FlFileInfo *info)
{
  int err = 0;
  wchar_t *wpath = absolute_path (path, &err);
  HANDLE h;

  if (wpath == NULL)
    return err;
  h = open_path (wpath, FILE_READ_ATTRIBUTES, OPEN_EXISTING,
                 FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS);
  free (wpath);
  if (h == INVALID_HANDLE_VALUE)
    return last_error ();
  err = handle_info (h, info);
  CloseHandle (h);
  return err;
}

int
_fl_platform_open_read (FlDir      *dir,
                        const char *name,
                        FlHandle   *out)
{
  HANDLE h;
  DWORD attrs;
  FILE_BASIC_INFO basic;
  int err = open_name (dir, name, GENERIC_READ, &h);

  if (err != 0)
    return err;
  if (!GetFileInformationByHandleEx (h, FileBasicInfo, &basic, sizeof basic))
    {
      err = last_error ();
      CloseHandle (h);
      return err;
    }
  attrs = basic.FileAttributes;
  if (attrs & FILE_ATTRIBUTE_REPARSE_POINT)
    {
      CloseHandle (h);
      return ELOOP;
    }
  remember_serial (h);
  *out = (FlHandle) h;
  return 0;
}

int
_fl_platform_create_excl (FlDir      *dir,
                          const char *name,
                          FlHandle   *out)
{
  int err = 0;
  wchar_t *path = join (dir, name, &err);
  HANDLE h;

  if (path == NULL)
    return err;
  /* Readable by every peer needs nothing here: Windows has no umask, and the new file takes
   * the directory's inheritable ACL, the same for every file libfl or the module creates. */
  h = open_path (path, GENERIC_READ | GENERIC_WRITE | DELETE, CREATE_NEW, FILE_ATTRIBUTE_NORMAL);
  err = h == INVALID_HANDLE_VALUE ? last_error () : 0;
  free (path);
  if (err == 0)
    {
      remember_serial (h);
      *out = (FlHandle) h;
    }
  return err;
}

int
_fl_platform_create_unnamed (FlDir    *dir,
                             FlHandle *out)
{
  (void) dir, (void) out;
  return EOPNOTSUPP;
}

int
_fl_platform_link_unnamed (FlDir      *dir,
                           FlHandle    file,
                           const char *to)
{
  (void) dir, (void) file, (void) to;
  return ENOENT;
}

/* Whether @a and @b both exist and are one file. */
static bool
same_file (const wchar_t *a,
           const wchar_t *b)
{
  const wchar_t *paths[2] = { a, b };
  FlFileInfo info[2];

  for (int i = 0; i < 2; i++)
    {
      HANDLE h = open_path (paths[i], FILE_READ_ATTRIBUTES, OPEN_EXISTING,
                            FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS);
      int err;

      if (h == INVALID_HANDLE_VALUE)
        return false;
      err = handle_info (h, &info[i]);
      CloseHandle (h);
      if (err != 0)
        return false;
    }
  return fl_file_id_equal (&info[0].id, &info[1].id);
}

/* Link or move without replacing: the one call the two differ by. */
typedef enum
{
  TWO_NAMES_LINK,
  TWO_NAMES_MOVE,
} TwoNamesOp;

/* @op from @from to @to in @dir, retrying transient failures (antivirus, indexers) within the
 * busy budget; EBUSY once the budget is spent. */
static int
two_names_noreplace (FlDir      *dir,
                     const char *from,
                     const char *to,
                     TwoNamesOp  op)
{
  int err = 0;
  wchar_t *wfrom = join (dir, from, &err), *wto = NULL;
  ULONGLONG start = GetTickCount64 ();
  DWORD delay = 1, code;

  if (wfrom == NULL || (wto = join (dir, to, &err)) == NULL)
    {
      free (wfrom);
      return err;
    }
  /* MoveFileExW without MOVEFILE_REPLACE_EXISTING: an existing @to fails with 183 or 80. */
  while (!(op == TWO_NAMES_LINK ? CreateHardLinkW (wto, wfrom, NULL)
                                : MoveFileExW (wfrom, wto, 0)))
    {
      code = GetLastError ();
      if (is_transient (code) && retry_backoff (start, &delay))
        continue;
      err = is_transient (code) ? EBUSY : map_error (code);
      break;
    }
  /* Wine renames with rename(2): two names of one file stay as they were, and it says
   * success (docs/windows.md, wine gap 8). */
  if (op == TWO_NAMES_MOVE && err == 0 && same_file (wfrom, wto))
    err = EEXIST;
  free (wfrom);
  free (wto);
  return err;
}

int
_fl_platform_link_noreplace (FlDir      *dir,
                             const char *from,
                             const char *to)
{
  return two_names_noreplace (dir, from, to, TWO_NAMES_LINK);
}

int
_fl_platform_rename_noreplace (FlDir      *dir,
                               const char *from,
                               const char *to)
{
  return two_names_noreplace (dir, from, to, TWO_NAMES_MOVE);
}

/* Opens @name for deletion, retrying while something holds it without FILE_SHARE_DELETE. */
static int
open_for_delete (FlDir      *dir,
                 const char *name,
                 HANDLE     *out)
{
  int err = 0;
  wchar_t *path = join (dir, name, &err);
  ULONGLONG start = GetTickCount64 ();
  DWORD delay = 1, code;

  if (path == NULL)
    return err;
  for (;;)
    {
      *out = open_path (path, DELETE | FILE_READ_ATTRIBUTES, OPEN_EXISTING,
                        FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS);
      if (*out != INVALID_HANDLE_VALUE)
        break;
      code = GetLastError ();
      if (is_transient (code) && retry_backoff (start, &delay))
        continue;
      err = code == ERROR_SHARING_VIOLATION ? EBUSY : map_error (code);
      break;
    }
  free (path);
  return err;
}

/* Deletes through @h, which names a file (EISDIR for a real directory, as unlink(2)). */
static int
delete_file_handle (HANDLE h)
{
  FILE_BASIC_INFO basic;
  ULONGLONG start = GetTickCount64 ();
  DWORD delay = 1;
  int err;

  if (GetFileInformationByHandleEx (h, FileBasicInfo, &basic, sizeof basic) &&
      (basic.FileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
      !(basic.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT))
    return EISDIR;
  while ((err = delete_by_handle (h)) == EACCES || err == EBUSY)
    if (!retry_backoff (start, &delay))
      return EBUSY;
  return err;
}

int
_fl_platform_unlink (FlDir      *dir,
                     const char *name)
{
  HANDLE h;
  int err = open_for_delete (dir, name, &h);

  if (err != 0)
    return err;
  err = delete_file_handle (h);
  CloseHandle (h);
  return err;
}

int
_fl_platform_unlink_held (FlDir          *dir,
                          const char     *name,
                          FlHandle        held,
                          const FlFileId *held_id)
{
  FlFileInfo mine, there;
  HANDLE h;
  int err = 0;

  if (held_id != NULL)
    mine.id = *held_id;
  else
    err = handle_info ((HANDLE) held, &mine);
  if (err != 0)
    return err;
  if ((err = open_for_delete (dir, name, &h)) != 0)
    return err;
  if ((err = handle_info (h, &there)) == 0)
    {
      /* Deleting through the handle opened by @name removes that name, not another link of
       * the same file (the temp's, say) that @held was opened by. */
      if (!fl_file_id_equal (&mine.id, &there.id))
        err = ESTALE;
      else
        err = delete_file_handle (h);
    }
  CloseHandle (h);
  return err;
}


/* Open files */

void
_fl_platform_close (FlHandle file)
{
  if (file == FL_HANDLE_NONE || file == 0)
    return;
  handles_forget ((HANDLE) file);
  CloseHandle ((HANDLE) file);
}

int
_fl_platform_file_info (FlHandle    file,
                        FlFileInfo *info)
{
  return handle_info ((HANDLE) file, info);
}

int
_fl_platform_read_head (FlHandle file,
                        char    *buf,
                        size_t   size,
                        size_t  *n_read)
{
  size_t total = 0;

  while (total < size)
    {
      OVERLAPPED at = { 0 };
      DWORD want = size - total > 0x10000000 ? 0x10000000 : (DWORD) (size - total), got = 0;

      at.Offset = (DWORD) total;
      at.OffsetHigh = (DWORD) ((uint64_t) total >> 32);
      if (!ReadFile ((HANDLE) file, buf + total, want, &got, &at))
        {
          DWORD code = GetLastError ();

          if (code == ERROR_HANDLE_EOF)
            break;
          if (code == ERROR_INVALID_FUNCTION || code == ERROR_ACCESS_DENIED)
            {
              FlFileInfo info;

              /* ReadFile on a directory handle: as read(2) on a directory. */
              if (handle_info ((HANDLE) file, &info) == 0 && info.type == FL_FILE_DIRECTORY)
                return EISDIR;
            }
          return map_error (code);
        }
      if (got == 0)
        break;
      total += got;
    }
  *n_read = total;
  return 0;
}

int
_fl_platform_write_all (FlHandle    file,
                        const char *buf,
                        size_t      len)
{
  while (len > 0)
    {
      DWORD want = len > 0x10000000 ? 0x10000000 : (DWORD) len, done = 0;

      if (!WriteFile ((HANDLE) file, buf, want, &done, NULL))
        return last_error ();
      if (done == 0)
        return EIO;
      buf += done;
      len -= done;
    }
  return 0;
}

/* A file's path on a network share starts \\?\UNC\; a mapped drive letter is DRIVE_REMOTE.
 * LockFileEx() locks belong to the NTFS file that every hard link names; a share's server
 * decides for its own clients, and another client's view is not ours to trust. */
int
_fl_platform_file_fs (FlHandle   file,
                      FlFsLocks *locks,
                      bool      *remote)
{
  wchar_t path[MAX_PATH + 16], root[MAX_PATH + 16];
  DWORD n = GetFinalPathNameByHandleW ((HANDLE) file, path, MAX_PATH + 16,
                                       FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);

  /* Not told: the answers that make nothing stale (see fl-platform.h). */
  *locks = FL_FS_LOCKS_UNTRUSTED;
  *remote = true;
  if (n == 0)
    return last_error ();
  if (n >= MAX_PATH + 16)
    return ENAMETOOLONG;
  if (wcsncmp (path, L"\\\\?\\UNC\\", 8) != 0)
    {
      if (!GetVolumePathNameW (path, root, MAX_PATH + 16))
        return last_error ();
      *remote = GetDriveTypeW (root) == DRIVE_REMOTE;
    }
  *locks = *remote ? FL_FS_LOCKS_UNTRUSTED : FL_FS_LOCKS_CARRIED;
  return 0;
}

/* None: on a share (FL_FS_LOCKS_UNTRUSTED) step A3b compares file identities, which on
 * Windows are the file's own (volume serial and file index), whatever name reaches it. */
int
_fl_platform_inode_mark (FlHandle file,
                         bool     set)
{
  return EOPNOTSUPP;
}

int
_fl_platform_inode_marked (FlHandle  file,
                           bool     *seen)
{
  *seen = false;
  return EOPNOTSUPP;
}

int
_fl_platform_dup (FlHandle  file,
                  FlHandle *out)
{
  HANDLE h;

  if (!DuplicateHandle (GetCurrentProcess (), (HANDLE) file, GetCurrentProcess (), &h, 0, FALSE,
                        DUPLICATE_SAME_ACCESS))
    return last_error ();
  handles_remember (h, handles_serial ((HANDLE) file));
  *out = (FlHandle) h;
  return 0;
}

/* No identity on Windows (docs/windows.md, "Identity"): the kernel lock decides, and an
 * alternate data stream would be one more handle an antivirus can hold, lost on any copy to
 * a non-NTFS volume, and untestable under wine. */
int
_fl_platform_identity_set (FlHandle    file,
                           const char *buf,
                           size_t      len)
{
  (void) file, (void) buf, (void) len;
  return ENOTSUP;
}

int
_fl_platform_identity_get (FlHandle file,
                           char    *buf,
                           size_t   size,
                           size_t  *len)
{
  (void) file, (void) buf, (void) size, (void) len;
  return ENOTSUP;
}


/* The kernel lock */

static bool
lock_byte (HANDLE       h,
           FlKernelMode mode,
           DWORD       *code)
{
  OVERLAPPED at = { 0 };
  DWORD flags = LOCKFILE_FAIL_IMMEDIATELY;

  if (mode == FL_KERNEL_EXCLUSIVE)
    flags |= LOCKFILE_EXCLUSIVE_LOCK;
  at.Offset = 0;
  at.OffsetHigh = KERNEL_LOCK_OFFSET_HIGH;
  if (LockFileEx (h, flags, 0, 1, 0, &at))
    return true;
  *code = GetLastError ();
  return false;
}

static void
unlock_byte (HANDLE h)
{
  OVERLAPPED at = { 0 };

  at.OffsetHigh = KERNEL_LOCK_OFFSET_HIGH;
  UnlockFileEx (h, 0, 1, 0, &at);
}

/* A mode change is an unlock and a new lock, as flock(2)'s conversion is ("not guaranteed to
 * be atomic"): in between, another process may take the lock. If the new mode is refused,
 * the old one is taken back where it still can be. */
int
_fl_platform_kernel_lock (FlHandle     file,
                          FlKernelMode mode)
{
  HANDLE h = (HANDLE) file;
  HandleEntry *e;
  DWORD code = 0;
  int err = 0;

  AcquireSRWLockExclusive (&handles_lock);
  e = handles_find (h, true);
  if (e == NULL)
    err = ENOLCK;
  else if (e->mode != (int) mode)
    {
      if (e->mode != MODE_NONE)
        unlock_byte (h);
      if (lock_byte (h, mode, &code))
        e->mode = (int) mode;
      else
        {
          err = map_error (code);
          if (e->mode != MODE_NONE && !lock_byte (h, (FlKernelMode) e->mode, &code))
            e->mode = MODE_NONE;
        }
    }
  ReleaseSRWLockExclusive (&handles_lock);
  return err;
}

bool
_fl_platform_kernel_lock_holders (const FlFileId *id,
                                  FlKernelMode    mode,
                                  int            *pids,
                                  size_t          max,
                                  size_t         *n_pids)
{
  (void) id, (void) mode, (void) pids, (void) max, (void) n_pids;
  return false;
}

bool
_fl_platform_file_keepers (const FlFileId *id,
                           int            *pids,
                           size_t          max,
                           size_t         *n_pids)
{
  (void) id, (void) pids, (void) max;
  *n_pids = 0;
  return false;
}

/* Windows keeps no system-wide table of byte-range locks that a process may read. */
int
_fl_platform_system_locks (FlSystemLock **out,
                           size_t        *n_out)
{
  *out = NULL;
  *n_out = 0;
  return ENOSYS;
}

void
_fl_platform_system_locks_free (FlSystemLock *locks,
                                size_t        n)
{
  (void) n;
  free (locks);
}


/* Windows has neither symbolic links that libfl reads nor record locks that can be asked
 * about: the inspector says it cannot tell (docs/other-lock-files.md). */
int
_fl_platform_readlink_at (FlDir      *dir,
                          const char *name,
                          char       *buf,
                          size_t      size,
                          size_t     *len)
{
  (void) dir, (void) name, (void) buf, (void) size;
  *len = 0;
  return ENOSYS;
}

int
_fl_platform_record_lock_holder (FlHandle  file,
                                 int      *pid)
{
  (void) file;
  *pid = 0;
  return ENOSYS;
}

/* Processes */

/* The boot clock: GetTickCount64 counts time asleep, as CLOCK_BOOTTIME does. */
int64_t
_fl_platform_boottime_now (void)
{
  return (int64_t) GetTickCount64 () * 1000;
}

static char *
image_basename (HANDLE process)
{
  wchar_t path[MAX_PATH * 2];
  DWORD n = MAX_PATH * 2;
  const wchar_t *base;
  char *out;
  int len;

  if (!QueryFullProcessImageNameW (process, 0, path, &n))
    return NULL;
  base = wcsrchr (path, L'\\');
  base = base ? base + 1 : path;
  len = WideCharToMultiByte (CP_UTF8, 0, base, -1, NULL, 0, NULL, NULL);
  if (len <= 0 || (out = malloc ((size_t) len)) == NULL)
    return NULL;
  WideCharToMultiByte (CP_UTF8, 0, base, -1, out, len, NULL, NULL);
  return out;
}

static void
fill_times (HANDLE         process,
            FlProcessInfo *info)
{
  FILETIME created, exited, kernel, user;

  if (!GetProcessTimes (process, &created, &exited, &kernel, &user))
    return;
  info->start_ticks = filetime_ticks (&created);
  info->start_real_us = filetime_ticks_to_unix_us (info->start_ticks);
  /* The boot clock has no start times of its own: the wall clock's, moved by boot time. */
  info->start_boot_us = info->start_real_us - (real_now_us () - _fl_platform_boottime_now ());
}

/* OpenProcess with the PID checked: Windows ignores a PID's two low bits, so "4013" would
 * open process 4012, which is another process. GetProcessId needs
 * PROCESS_QUERY_LIMITED_INFORMATION; a process that refuses it (protected) is taken unchecked
 * with @access alone, which can only make a dead PID look alive, never the reverse. */
static HANDLE
open_process (int   pid,
              DWORD access)
{
  HANDLE h = OpenProcess (access | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, (DWORD) pid);

  if (h == NULL)
    return GetLastError () == ERROR_ACCESS_DENIED ? OpenProcess (access, FALSE, (DWORD) pid)
                                                  : NULL;
  if (GetProcessId (h) != (DWORD) pid)
    {
      CloseHandle (h);
      SetLastError (ERROR_INVALID_PARAMETER);
      return NULL;
    }
  return h;
}

void
_fl_platform_process_probe (int            pid,
                            bool           details,
                            FlProcessInfo *info)
{
  HANDLE h;
  DWORD code, exit_code;

  (void) details;  /* no command line on Windows: docs/windows.md */
  memset (info, 0, sizeof *info);
  info->uid = -1;
  if (pid <= 0)
    return;

  h = open_process (pid, PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE);
  if (h != NULL)
    {
      /* Signalled means exited: Windows shows no zombie, even while handles keep it. */
      if (WaitForSingleObject (h, 0) == WAIT_OBJECT_0)
        info->state = FL_PROCESS_GONE;
      else
        {
          info->state = FL_PROCESS_RUNNING;
          fill_times (h, info);
          info->name = image_basename (h);
        }
      CloseHandle (h);
      return;
    }
  code = GetLastError ();
  if (code == ERROR_INVALID_PARAMETER)
    {
      info->state = FL_PROCESS_GONE;
      return;
    }
  if (code != ERROR_ACCESS_DENIED)
    return;

  /* Denied: it exists. Without SYNCHRONIZE (a protected process) the exit code still tells;
   * 259 (STILL_ACTIVE) may also be a real exit code, so it counts as running. */
  info->state = FL_PROCESS_RUNNING;
  h = open_process (pid, PROCESS_QUERY_LIMITED_INFORMATION);
  if (h == NULL)
    return;
  if (GetExitCodeProcess (h, &exit_code) && exit_code != STILL_ACTIVE)
    info->state = FL_PROCESS_GONE;
  else
    {
      fill_times (h, info);
      info->name = image_basename (h);
    }
  CloseHandle (h);
}

void
_fl_platform_process_info_clear (FlProcessInfo *info)
{
  free (info->name);
  free (info->cmdline);
  info->name = NULL;
  info->cmdline = NULL;
}

int
_fl_platform_self_pid (void)
{
  return (int) GetCurrentProcessId ();
}

int64_t
_fl_platform_self_uid (void)
{
  return -1;
}

bool
_fl_platform_is_privileged (void)
{
  /* Windows has no setuid: a program runs with its caller's token. */
  return false;
}

/* Windows 8 and later count boots in the registry; none is better than a guessed one, since
 * a boot id that differs says the lock's PID is from another boot (docs/windows.md). */
static void
boot_id (char *out,
         size_t size)
{
  DWORD value = 0, len = sizeof value;

  out[0] = '\0';
  if (RegGetValueW (HKEY_LOCAL_MACHINE,
                    L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Memory Management"
                    L"\\PrefetchParameters", L"BootId", RRF_RT_REG_DWORD, NULL, &value, &len)
      == ERROR_SUCCESS)
    snprintf (out, size, "%08lx", (unsigned long) value);
}

void
_fl_platform_self (FlPlatformSelf *self)
{
  FlProcessInfo info = { 0 };
  wchar_t host[72];
  DWORD n = 72;

  memset (self, 0, sizeof *self);
  fill_times (GetCurrentProcess (), &info);
  self->start_ticks = info.start_ticks;
  /* Creation times are absolute (FILETIME): every process reads them on one clock. */
  self->timens = 1;
  boot_id (self->boot_id, sizeof self->boot_id);
  if (GetComputerNameExW (ComputerNameDnsHostname, host, &n) &&
      !wide_to_utf8 (host, self->host_name, sizeof self->host_name))
    self->host_name[0] = '\0';
}

bool
_fl_platform_processes_visible (void)
{
  return true;
}

/* Handles are limited by memory only (about 16 million per process); libfl makes no CRT
 * descriptors, whose table has a limit of its own. */
size_t
_fl_platform_max_handles (void)
{
  return 0;
}

int
_fl_platform_process_watch (int       pid,
                            FlHandle *out)
{
  HANDLE h;
  DWORD code;

  *out = FL_HANDLE_NONE;
  if (pid <= 0)
    return EINVAL;
  h = open_process (pid, SYNCHRONIZE);
  if (h == NULL)
    {
      code = GetLastError ();
      return code == ERROR_INVALID_PARAMETER ? ESRCH : map_error (code);
    }
  if (WaitForSingleObject (h, 0) == WAIT_OBJECT_0)
    {
      CloseHandle (h);
      return ESRCH;
    }
  *out = (FlHandle) h;
  return 0;
}


/* Waiting */

static bool
watch_arm (FlWatch *watch)
{
  if (watch->pending || watch->dir == INVALID_HANDLE_VALUE)
    return watch->pending;
  ResetEvent (watch->overlapped.hEvent);
  if (!ReadDirectoryChangesW (watch->dir, watch->buf, sizeof watch->buf, FALSE,
                              FILE_NOTIFY_CHANGE_FILE_NAME | FILE_NOTIFY_CHANGE_DIR_NAME, NULL,
                              &watch->overlapped, NULL))
    {
      CloseHandle (watch->dir);
      watch->dir = INVALID_HANDLE_VALUE;
      return false;
    }
  watch->pending = true;
  return true;
}

FlWatch *
_fl_platform_watch_new (FlDir      *dir,
                        const char *name)
{
  FlWatch *watch = calloc (1, sizeof *watch);
  FlFileInfo info;

  if (watch == NULL)
    abort ();  /* "never NULL" */
  watch->dir = INVALID_HANDLE_VALUE;
  watch->overlapped.hEvent = CreateEventW (NULL, TRUE, FALSE, NULL);
  watch->name = name_ok (name) ? utf8_to_wide (name) : NULL;
  if (watch->overlapped.hEvent == NULL || watch->name == NULL)
    return watch;

  /* A handle of its own: overlapped, which @dir's is not. Watching another directory that
   * took @dir's path meanwhile would be worse than no events, hence the identity check. */
  watch->dir = open_path (dir->path, FILE_LIST_DIRECTORY, OPEN_EXISTING,
                          FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OVERLAPPED);
  if (watch->dir != INVALID_HANDLE_VALUE &&
      (handle_info (watch->dir, &info) != 0 || !fl_file_id_equal (&info.id, &dir->id)))
    {
      CloseHandle (watch->dir);
      watch->dir = INVALID_HANDLE_VALUE;
    }
  /* Armed now, so a removal between here and the wait is not missed. */
  watch_arm (watch);
  return watch;
}

static void
watch_disarm (FlWatch *watch)
{
  DWORD n;

  if (!watch->pending)
    return;
  CancelIoEx (watch->dir, &watch->overlapped);
  GetOverlappedResult (watch->dir, &watch->overlapped, &n, TRUE);
  watch->pending = false;
}

void
_fl_platform_watch_free (FlWatch *watch)
{
  if (watch == NULL)
    return;
  if (watch->dir != INVALID_HANDLE_VALUE)
    {
      watch_disarm (watch);
      CloseHandle (watch->dir);
    }
  if (watch->process != NULL)
    CloseHandle (watch->process);
  if (watch->overlapped.hEvent != NULL)
    CloseHandle (watch->overlapped.hEvent);
  free (watch->name);
  free (watch);
}

bool
_fl_platform_watch_has_events (FlWatch *watch)
{
  return watch->dir != INVALID_HANDLE_VALUE;
}

bool
_fl_platform_watch_process (FlWatch *watch,
                            int      pid)
{
  if (watch->process != NULL)
    CloseHandle (watch->process);
  watch->process = NULL;
  /* 0 is "none": nothing is watched, and the caller re-checks with backoff (fl-waiter.c). */
  if (pid <= 0)
    return false;
  watch->process = open_process (pid, SYNCHRONIZE);
  return watch->process != NULL;
}

/* Whether the completed read names @watch->name removed or renamed away. A zero-byte result
 * is an overflow: anything may have happened, so the caller re-checks. */
static bool
watch_saw_name (FlWatch *watch,
                DWORD    n)
{
  const char *p = (const char *) watch->buf;
  size_t name_len = wcslen (watch->name);

  if (n == 0)
    return true;
  for (;;)
    {
      const FILE_NOTIFY_INFORMATION *fni = (const FILE_NOTIFY_INFORMATION *) p;

      if ((fni->Action == FILE_ACTION_REMOVED || fni->Action == FILE_ACTION_RENAMED_OLD_NAME) &&
          fni->FileNameLength / sizeof (WCHAR) == name_len &&
          CompareStringOrdinal (fni->FileName, (int) name_len, watch->name, (int) name_len, TRUE)
          == CSTR_EQUAL)
        return true;
      if (fni->NextEntryOffset == 0)
        return false;
      p += fni->NextEntryOffset;
    }
}

FlWatchResult
_fl_platform_watch_wait (FlWatch *watch,
                         int      timeout_ms,
                         FlHandle cancel)
{
  ULONGLONG deadline = timeout_ms < 0 ? 0 : GetTickCount64 () + (ULONGLONG) timeout_ms;

  for (;;)
    {
      HANDLE waits[3];
      DWORD count = 0, wait_ms = INFINITE, r, n;
      int i_process = -1, i_cancel = -1;

      if (watch_arm (watch))
        waits[count++] = watch->overlapped.hEvent;
      if (watch->process != NULL)
        i_process = (int) count, waits[count++] = watch->process;
      if (cancel != FL_HANDLE_NONE && cancel != 0)
        i_cancel = (int) count, waits[count++] = (HANDLE) cancel;
      if (timeout_ms >= 0)
        {
          ULONGLONG now = GetTickCount64 ();

          wait_ms = now >= deadline ? 0 : (DWORD) (deadline - now);
        }

      r = count ? WaitForMultipleObjects (count, waits, FALSE, wait_ms) : (Sleep (wait_ms),
                                                                             WAIT_TIMEOUT);
      if (r == WAIT_TIMEOUT)
        return FL_WATCH_TIMEOUT;
      if (r >= WAIT_OBJECT_0 + count)
        return FL_WATCH_ERROR;
      r -= WAIT_OBJECT_0;
      if ((int) r == i_cancel)
        return FL_WATCH_CANCELLED;
      if ((int) r == i_process)
        {
          CloseHandle (watch->process);
          watch->process = NULL;
          return FL_WATCH_PROCESS;
        }
      watch->pending = false;
      if (!GetOverlappedResult (watch->dir, &watch->overlapped, &n, FALSE))
        {
          /* The directory went away, or the read failed: events are over, re-check. */
          CloseHandle (watch->dir);
          watch->dir = INVALID_HANDLE_VALUE;
          return FL_WATCH_NAME;
        }
      if (watch_saw_name (watch, n))
        return FL_WATCH_NAME;
    }
}

bool
_fl_platform_watch_file (FlWatch  *watch,
                         FlHandle  file)
{
  return false;  /* no close event: the process handle wakes */
}

int
_fl_platform_watch_deferred (void)
{
  return 0;  /* a watch is put away whole when freed */
}

/* For the crash-point tests only */

void
_fl_platform_die_now (void)
{
  TerminateProcess (GetCurrentProcess (), 9);
  abort ();
}

void
_fl_platform_step_done (const char *step)
{
}
