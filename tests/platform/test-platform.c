/* test-platform.c: the platform layer (libfl/platform/fl-platform.h) on its own
 *
 * One suite for every platform: it calls fl-platform.h and GLib only, so the same checks run
 * against fl-platform-linux.c and, cross-built with mingw, against fl-platform-win32.c under
 * wine. What wine does not emulate (docs/windows.md, "Wine gaps") is skipped there with the
 * reason, never passed. Other processes are this program, started with a --child-* argument.
 *
 * Run: meson test -C build --suite platform
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#ifdef G_OS_WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <io.h>
#else
#include <fcntl.h>
#include <glib-unix.h>
#include <poll.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "platform/fl-platform.h"

#define DEADLINE_US (10 * G_USEC_PER_SEC)

static char *self_exe;

typedef struct
{
  char  *path;
  FlDir *dir;
} Fixture;

/* Whether this is wine, which says so through ntdll (docs/windows.md, "Wine gaps"). */
static gboolean
is_wine (void)
{
#ifdef G_OS_WIN32
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");

  return ntdll != NULL && GetProcAddress (ntdll, "wine_get_version") != NULL;
#else
  return FALSE;
#endif
}

static void
rm_rf (const char *path)
{
  GDir *d;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && g_file_test (path, G_FILE_TEST_IS_DIR) &&
      (d = g_dir_open (path, 0, NULL)) != NULL)
    {
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);

          rm_rf (child);
        }
      g_dir_close (d);
    }
  if (g_remove (path) != 0)
    g_rmdir (path);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->path = g_dir_make_tmp ("fl-platform-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_cmpint (_fl_platform_dir_open (f->path, false, &f->dir), ==, 0);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  _fl_platform_dir_close (f->dir);
  rm_rf (f->path);
  g_free (f->path);
}

/* Creates @name holding @content, through the platform; returns its open handle if @out. */
static void
make_file (Fixture    *f,
           const char *name,
           const char *content,
           FlHandle   *out)
{
  FlHandle h = FL_HANDLE_NONE;

  g_assert_cmpint (_fl_platform_create_excl (f->dir, name, &h), ==, 0);
  g_assert_cmpint (_fl_platform_write_all (h, content, strlen (content)), ==, 0);
  if (out != NULL)
    *out = h;
  else
    _fl_platform_close (h);
}

static char *
read_name (Fixture    *f,
           const char *name)
{
  FlHandle h;
  char buf[256];
  size_t n = 0;

  g_assert_cmpint (_fl_platform_open_read (f->dir, name, &h), ==, 0);
  g_assert_cmpint (_fl_platform_read_head (h, buf, sizeof buf, &n), ==, 0);
  _fl_platform_close (h);
  return g_strndup (buf, n);
}

static void
assert_gone (Fixture    *f,
             const char *name)
{
  FlFileInfo info;

  g_assert_cmpint (_fl_platform_stat_at (f->dir, name, &info), ==, ENOENT);
}


/* Files by name */

static void
test_link_noreplace (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *c = NULL;
  FlFileInfo a, b;

  make_file (f, "a", "1", NULL);
  make_file (f, "c", "2", NULL);
  g_assert_cmpint (_fl_platform_link_noreplace (f->dir, "a", "b"), ==, 0);
  g_assert_cmpint (_fl_platform_link_noreplace (f->dir, "a", "b"), ==, EEXIST);
  g_assert_cmpint (_fl_platform_link_noreplace (f->dir, "a", "c"), ==, EEXIST);
  g_assert_cmpint (_fl_platform_link_noreplace (f->dir, "missing", "d"), ==, ENOENT);

  g_assert_cmpint (_fl_platform_stat_at (f->dir, "a", &a), ==, 0);
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "b", &b), ==, 0);
  g_assert_true (fl_file_id_equal (&a.id, &b.id));
  g_assert_cmpuint (a.nlink, ==, 2);
  g_assert_cmpint (a.type, ==, FL_FILE_REGULAR);
  c = read_name (f, "c");
  g_assert_cmpstr (c, ==, "2");
}

static void
test_rename_noreplace (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *c = NULL, *d = NULL;

  make_file (f, "a", "from", NULL);
  make_file (f, "c", "kept", NULL);
  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "a", "c"), ==, EEXIST);
  c = read_name (f, "c");
  g_assert_cmpstr (c, ==, "kept");

  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "a", "d"), ==, 0);
  assert_gone (f, "a");
  d = read_name (f, "d");
  g_assert_cmpstr (d, ==, "from");
  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "a", "e"), ==, ENOENT);
}

static void
test_unlink (Fixture       *f,
             gconstpointer  data)
{
  make_file (f, "a", "x", NULL);
  g_assert_cmpint (_fl_platform_unlink (f->dir, "a"), ==, 0);
  assert_gone (f, "a");
  g_assert_cmpint (_fl_platform_unlink (f->dir, "a"), ==, ENOENT);
  /* Names are single components, never paths. */
  g_assert_cmpint (_fl_platform_unlink (f->dir, "../a"), !=, 0);
}

/* POSIX delete: the name goes at once although a handle is still open on the file. */
static void
test_unlink_open (Fixture       *f,
                  gconstpointer  data)
{
  FlHandle h, h2;
  FlFileInfo info;

  if (is_wine ())
    {
      g_test_skip ("wine 8 has no FileDispositionInfoEx POSIX delete: the name stays "
                   "delete-pending while a handle is open (docs/windows.md, wine gap 1)");
      return;
    }
  make_file (f, "a", "x", &h);
  g_assert_cmpint (_fl_platform_unlink (f->dir, "a"), ==, 0);
  assert_gone (f, "a");
  g_assert_cmpint (_fl_platform_file_info (h, &info), ==, 0);
  make_file (f, "a", "y", &h2);
  _fl_platform_close (h2);
  _fl_platform_close (h);
}

static void
test_unlink_held (Fixture       *f,
                  gconstpointer  data)
{
  FlHandle old, now;
  FlFileInfo info, now_info, old_info;

  make_file (f, "a", "old", &old);
  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "a", "a.moved"), ==, 0);
  make_file (f, "a", "new", &now);

  g_assert_cmpint (_fl_platform_unlink_held (f->dir, "a", old, NULL), ==, ESTALE);
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "a", &info), ==, 0);
  g_assert_cmpint (_fl_platform_file_info (now, &now_info), ==, 0);
  g_assert_true (fl_file_id_equal (&info.id, &now_info.id));
  /* The identity given is the one compared (release passes the one it read at acquire). */
  g_assert_cmpint (_fl_platform_file_info (old, &old_info), ==, 0);
  g_assert_cmpint (_fl_platform_unlink_held (f->dir, "a", now, &old_info.id), ==, ESTALE);
  g_assert_cmpint (_fl_platform_unlink_held (f->dir, "a", old, &now_info.id), ==, 0);
  _fl_platform_close (now);
  assert_gone (f, "a");
  make_file (f, "a", "new", &now);

  g_assert_cmpint (_fl_platform_unlink_held (f->dir, "a", now, NULL), ==, 0);
  /* Classic (non-POSIX) delete keeps the name until the last handle closes. */
  _fl_platform_close (now);
  assert_gone (f, "a");
  g_assert_cmpint (_fl_platform_unlink_held (f->dir, "a", old, NULL), ==, ENOENT);
  _fl_platform_close (old);
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "a.moved", &info), ==, 0);
}

#ifdef G_OS_WIN32
/* An "antivirus": opens @name without FILE_SHARE_DELETE, as scanners and indexers do. */
static HANDLE
open_unshared (Fixture    *f,
               const char *name)
{
  g_autofree char *path = g_build_filename (f->path, name, NULL);
  g_autofree gunichar2 *wpath = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  HANDLE h = CreateFileW (wpath, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL,
                          OPEN_EXISTING, 0, NULL);

  g_assert_true (h != INVALID_HANDLE_VALUE);
  return h;
}

static gpointer
close_soon_thread (gpointer data)
{
  g_usleep (50 * 1000);  /* how long the scanner looks: the scenario, not a synchronisation */
  CloseHandle (data);
  return NULL;
}
#endif

/* Renames and deletes wait out a brief sharing violation, and say EBUSY for a lasting one. */
static void
test_antivirus (Fixture       *f,
                gconstpointer  data)
{
#ifdef G_OS_WIN32
  HANDLE scanner;
  GThread *thread;
  gint64 start;
  FlFileInfo info;

  make_file (f, "a", "1", NULL);
  scanner = open_unshared (f, "a");
  start = g_get_monotonic_time ();
  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "a", "b"), ==, EBUSY);
  g_assert_cmpint (_fl_platform_unlink (f->dir, "a"), ==, EBUSY);
  g_test_message ("two lasting sharing violations reported after %" G_GINT64_FORMAT " ms",
                  (g_get_monotonic_time () - start) / 1000);
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "a", &info), ==, 0);

  thread = g_thread_new ("scanner", close_soon_thread, scanner);
  start = g_get_monotonic_time ();
  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "a", "b"), ==, 0);
  g_test_message ("rename past a 50 ms scanner took %" G_GINT64_FORMAT " ms",
                  (g_get_monotonic_time () - start) / 1000);
  g_thread_join (thread);

  thread = g_thread_new ("scanner", close_soon_thread, open_unshared (f, "b"));
  g_assert_cmpint (_fl_platform_unlink (f->dir, "b"), ==, 0);
  g_thread_join (thread);
  assert_gone (f, "b");
#else
  g_test_skip ("POSIX has no share modes: nothing can hold a name against rename or unlink");
#endif
}

/* A handle stays the file's after its name moves (a takeover renames T.lock to the graveyard
 * and judges the file it still has open): same identity, and unlink_held finds it. */
static void
test_identity_after_rename (Fixture       *f,
                            gconstpointer  data)
{
  FlHandle h;
  FlFileInfo held, named;

  make_file (f, "T.lock", "1", NULL);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "T.lock", &h), ==, 0);
  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "T.lock", "T.lock.gy.1"), ==, 0);
  g_assert_cmpint (_fl_platform_file_info (h, &held), ==, 0);
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "T.lock.gy.1", &named), ==, 0);
  g_assert_true (fl_file_id_equal (&held.id, &named.id));
  g_assert_cmpint (_fl_platform_unlink_held (f->dir, "T.lock.gy.1", h, NULL), ==, 0);
  _fl_platform_close (h);
  assert_gone (f, "T.lock.gy.1");
}

/* A directory where a lock file belongs (a hostile entry): it opens for reading, as open(2)
 * lets it, but reads, replaces and unlinks are refused. */
static void
test_hostile_directory (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->path, "T.lock", NULL);
  FlHandle h = FL_HANDLE_NONE;
  FlFileInfo info;
  char buf[16];
  size_t n = 0;

  g_assert_cmpint (g_mkdir (path, 0755), ==, 0);
  make_file (f, "a", "1", NULL);

  g_assert_cmpint (_fl_platform_open_read (f->dir, "T.lock", &h), ==, 0);
  g_assert_cmpint (_fl_platform_file_info (h, &info), ==, 0);
  g_assert_cmpint (info.type, ==, FL_FILE_DIRECTORY);
  g_assert_cmpint (_fl_platform_read_head (h, buf, sizeof buf, &n), ==, EISDIR);
  _fl_platform_close (h);

  g_assert_cmpint (_fl_platform_create_excl (f->dir, "T.lock", &h), ==, EEXIST);
  g_assert_cmpint (_fl_platform_link_noreplace (f->dir, "a", "T.lock"), ==, EEXIST);
  g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "a", "T.lock"), ==, EEXIST);
  g_assert_cmpint (_fl_platform_unlink (f->dir, "T.lock"), ==, EISDIR);
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "T.lock", &info), ==, 0);
  g_assert_cmpint (info.type, ==, FL_FILE_DIRECTORY);
}

/* Makes @name a symbolic link to @target; false where this system or user may not. */
static gboolean
make_symlink (Fixture    *f,
              const char *target,
              const char *name,
              gboolean    is_dir)
{
  g_autofree char *path = g_build_filename (f->path, name, NULL);
#ifdef G_OS_WIN32
  g_autofree gunichar2 *wpath = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  g_autofree gunichar2 *wtarget = g_utf8_to_utf16 (target, -1, NULL, NULL, NULL);
  DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE |
                (is_dir ? SYMBOLIC_LINK_FLAG_DIRECTORY : 0);

  DWORD attrs;

  /* Wine 8's CreateSymbolicLinkW is a stub that says yes and makes nothing: look. */
  if (!CreateSymbolicLinkW (wpath, wtarget, flags))
    return FALSE;
  attrs = GetFileAttributesW (wpath);
  return attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_REPARSE_POINT);
#else
  return symlink (target, path) == 0;
#endif
}

static void
test_symlink (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *sub = g_build_filename (f->path, "sub", NULL);
  FlFileInfo info;
  FlHandle h = FL_HANDLE_NONE;
  FlDir *d = NULL;
  int r;

  make_file (f, "target", "x", NULL);
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  if (!make_symlink (f, "target", "link", FALSE) || !make_symlink (f, "sub", "dlink", TRUE))
    {
      g_test_skip (is_wine () ? "wine 8 cannot create symbolic links (CreateSymbolicLinkW is a "
                                "stub): reparse points untested here (docs/windows.md)"
                              : "this system or user cannot create symbolic links");
      return;
    }
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "link", &info), ==, 0);
  g_assert_cmpint (info.type, ==, FL_FILE_SYMLINK);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "link", &h), ==, ELOOP);
  /* "ENOTDIR or ELOOP" (fl-platform.h): Linux's O_DIRECTORY | O_NOFOLLOW says ENOTDIR. */
  r = _fl_platform_dir_open_at (f->dir, "dlink", &d);
  g_assert_true (r == ELOOP || r == ENOTDIR);
  g_assert_cmpint (_fl_platform_dir_open_at (f->dir, "sub", &d), ==, 0);
  _fl_platform_dir_close (d);
  g_assert_cmpint (_fl_platform_dir_open_at (f->dir, "target", &d), ==, ENOTDIR);
  /* unlink removes the link, not what it points to. */
  g_assert_cmpint (_fl_platform_unlink (f->dir, "link"), ==, 0);
  g_assert_cmpint (_fl_platform_stat_at (f->dir, "target", &info), ==, 0);
}

static void
test_dir_open_create (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *deep = g_build_filename (f->path, "x", "y", "z", NULL);
  FlDir *d = NULL;
  FlFileInfo info;

  g_assert_cmpint (_fl_platform_dir_open (deep, false, &d), ==, ENOENT);
  g_assert_cmpint (_fl_platform_dir_open (deep, true, &d), ==, 0);
  g_assert_cmpint (_fl_platform_dir_info (d, &info), ==, 0);
  g_assert_cmpint (info.type, ==, FL_FILE_DIRECTORY);
  _fl_platform_dir_close (d);
}

static void
test_dir_list (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree char *sub = g_build_filename (f->path, "sub", NULL);
  FlDirList *list = NULL;
  const char *name;
  FlFileType type;

  for (int i = 0; i < 20; i++)
    {
      g_autofree char *n = g_strdup_printf ("n-%02d", i);

      make_file (f, n, "x", NULL);
    }
  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);

  g_assert_cmpint (_fl_platform_dir_list_open (f->dir, &list), ==, 0);
  while ((name = _fl_platform_dir_list_next (list, &type)) != NULL)
    {
      g_assert_false (g_hash_table_contains (seen, name));
      g_hash_table_add (seen, g_strdup (name));
      if (strcmp (name, "sub") == 0)
        g_assert_true (type == FL_FILE_DIRECTORY || type == FL_FILE_UNKNOWN);
      else
        g_assert_true (type == FL_FILE_REGULAR || type == FL_FILE_UNKNOWN);
    }
  _fl_platform_dir_list_close (list);
  g_assert_cmpuint (g_hash_table_size (seen), ==, 21);
  for (int i = 0; i < 20; i++)
    {
      g_autofree char *n = g_strdup_printf ("n-%02d", i);

      g_assert_true (g_hash_table_contains (seen, n));
    }
}


/* Open files */

static void
test_read_head_bounded (Fixture       *f,
                        gconstpointer  data)
{
  const size_t size = 1024 * 1024;
  g_autofree char *content = g_malloc (size), *buf = g_malloc (2 * size);
  FlHandle h;
  FlFileInfo info;
  FlFsLocks locks;
  bool remote = true;
  size_t n = 0;
  gint64 now = g_get_real_time ();

  for (size_t i = 0; i < size; i++)
    content[i] = (char) ('a' + i % 23);
  g_assert_cmpint (_fl_platform_create_excl (f->dir, "big", &h), ==, 0);
  g_assert_cmpint (_fl_platform_write_all (h, content, size), ==, 0);
  _fl_platform_close (h);

  g_assert_cmpint (_fl_platform_open_read (f->dir, "big", &h), ==, 0);
  g_assert_cmpint (_fl_platform_read_head (h, buf, 100, &n), ==, 0);
  g_assert_cmpuint (n, ==, 100);
  g_assert_cmpmem (buf, n, content, 100);
  /* Always from offset 0, whatever was read before; never more than the file. */
  g_assert_cmpint (_fl_platform_read_head (h, buf, 2 * size, &n), ==, 0);
  g_assert_cmpuint (n, ==, size);
  g_assert_cmpmem (buf, n, content, size);

  g_assert_cmpint (_fl_platform_file_info (h, &info), ==, 0);
  g_assert_cmpint (info.type, ==, FL_FILE_REGULAR);
  g_assert_cmpint (info.size, ==, (gint64) size);
  g_assert_cmpuint (info.nlink, ==, 1);
  g_assert_cmpint (ABS (info.mtime_ns / 1000 - now), <, 600 * G_USEC_PER_SEC);
  g_assert_cmpint (info.ctime_ns, !=, 0);
  /* The test directory is local: its filesystem answers, and its PIDs are this machine's. */
  g_assert_cmpint (_fl_platform_file_fs (h, &locks, &remote), ==, 0);
  g_assert_false (remote);
  _fl_platform_close (h);
}

static void
test_identity (Fixture       *f,
               gconstpointer  data)
{
  FlHandle h;
  char buf[64];
  size_t len = 0;
  int r;

  make_file (f, "a", "1", &h);
  r = _fl_platform_identity_get (h, buf, sizeof buf, &len);
  g_assert_true (r == ENODATA || r == ENOTSUP || r == EOPNOTSUPP);
  r = _fl_platform_identity_set (h, "1 2 3", 5);
  if (r == ENOTSUP || r == EOPNOTSUPP)
    {
      g_test_message ("no identity on this filesystem or platform: the kernel lock decides");
      _fl_platform_close (h);
      return;
    }
  g_assert_cmpint (r, ==, 0);
  g_assert_cmpint (_fl_platform_identity_get (h, buf, sizeof buf, &len), ==, 0);
  g_assert_cmpmem (buf, len, "1 2 3", 5);
  _fl_platform_close (h);
}

static void
test_create_unnamed (Fixture       *f,
                     gconstpointer  data)
{
  FlHandle h = FL_HANDLE_NONE;
  g_autofree char *content = NULL;
  int r = _fl_platform_create_unnamed (f->dir, &h);

  if (r == EOPNOTSUPP)
    {
      g_test_message ("no unnamed files here: callers make a named temp");
      return;
    }
  g_assert_cmpint (r, ==, 0);
  g_assert_cmpint (_fl_platform_write_all (h, "u", 1), ==, 0);
  g_assert_cmpint (_fl_platform_link_unnamed (f->dir, h, "named"), ==, 0);
  g_assert_cmpint (_fl_platform_link_unnamed (f->dir, h, "named"), ==, EEXIST);
  _fl_platform_close (h);
  content = read_name (f, "named");
  g_assert_cmpstr (content, ==, "u");
}

/* Issue 29: a lock the Node module of another user cannot read is taken over by its mtime
 * rule, so both ways of creating a temp make it 0644 whatever the umask. Windows has no umask
 * (docs/protocol.md, section 1). */
static void
test_create_mode (Fixture       *f,
                  gconstpointer  data)
{
#ifdef G_OS_WIN32
  g_test_skip ("no umask on Windows: a new file takes the directory's ACL");
#else
  mode_t old = umask (077);
  FlHandle h = FL_HANDLE_NONE;
  struct stat st;
  int r;

  g_assert_cmpint (_fl_platform_create_excl (f->dir, "named", &h), ==, 0);
  g_assert_cmpint (fstat (h, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0644);
  _fl_platform_close (h);

  r = _fl_platform_create_unnamed (f->dir, &h);
  if (r == 0)
    {
      g_assert_cmpint (fstat (h, &st), ==, 0);
      g_assert_cmpint (st.st_mode & 07777, ==, 0644);
      _fl_platform_close (h);
    }
  else
    {
      g_assert_cmpint (r, ==, EOPNOTSUPP);
      g_test_message ("no unnamed files here: only the named temp was checked");
    }
  umask (old);
#endif
}


/* The kernel lock */

/* Asks for @mode until it is granted or the deadline passes: Windows releases a dead
 * process's lock "depending on available system resources", and no event announces it. */
static int
lock_within_deadline (FlHandle     h,
                      FlKernelMode mode)
{
  gint64 deadline = g_get_monotonic_time () + DEADLINE_US;
  int r;

  while ((r = _fl_platform_kernel_lock (h, mode)) == EWOULDBLOCK &&
         g_get_monotonic_time () < deadline)
    g_usleep (5000);
  return r;
}

static void
test_kernel_lock_same_process (Fixture       *f,
                               gconstpointer  data)
{
  FlHandle h1, h2, h3;
  g_autofree char *content = NULL;

  make_file (f, "a", "12345\n", NULL);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "a", &h1), ==, 0);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "a", &h2), ==, 0);

  g_assert_cmpint (_fl_platform_kernel_lock (h1, FL_KERNEL_EXCLUSIVE), ==, 0);
  g_assert_cmpint (_fl_platform_kernel_lock (h1, FL_KERNEL_EXCLUSIVE), ==, 0);
  g_assert_cmpint (_fl_platform_kernel_lock (h2, FL_KERNEL_EXCLUSIVE), ==, EWOULDBLOCK);
  g_assert_cmpint (_fl_platform_kernel_lock (h2, FL_KERNEL_SHARED), ==, EWOULDBLOCK);

  /* The lock is far beyond the content: readers of the PID are never refused (Windows locks
   * are mandatory). */
  content = read_name (f, "a");
  g_assert_cmpstr (content, ==, "12345\n");
  if (is_wine ())
    g_test_message ("wine does not enforce mandatory locks: the read above proves nothing "
                    "about the lock's offset here (docs/windows.md, wine gap 2)");

  _fl_platform_close (h1);
  g_assert_cmpint (lock_within_deadline (h2, FL_KERNEL_SHARED), ==, 0);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "a", &h1), ==, 0);
  g_assert_cmpint (_fl_platform_kernel_lock (h1, FL_KERNEL_SHARED), ==, 0);

  /* Converting SHARED to EXCLUSIVE is refused while another holds SHARED (whether the shared
   * lock survives the refusal differs: flock(2) drops it, Windows keeps it), and granted once
   * the other is gone; then nobody else gets even SHARED. */
  g_assert_cmpint (_fl_platform_kernel_lock (h1, FL_KERNEL_EXCLUSIVE), ==, EWOULDBLOCK);
  _fl_platform_close (h2);
  g_assert_cmpint (lock_within_deadline (h1, FL_KERNEL_EXCLUSIVE), ==, 0);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "a", &h3), ==, 0);
  g_assert_cmpint (_fl_platform_kernel_lock (h3, FL_KERNEL_SHARED), ==, EWOULDBLOCK);
  /* And back: EXCLUSIVE to SHARED lets other readers in. */
  g_assert_cmpint (_fl_platform_kernel_lock (h1, FL_KERNEL_SHARED), ==, 0);
  g_assert_cmpint (_fl_platform_kernel_lock (h3, FL_KERNEL_SHARED), ==, 0);
  _fl_platform_close (h3);
  _fl_platform_close (h1);
}

/* The shape of acquire and release (docs/protocol.md): a temp locked before it is linked as
 * T.lock, the temp's name dropped, a reader refused the lock but not the content, and the
 * release removing T.lock through the handle opened on the temp's (now gone) name. */
static void
test_kernel_lock_protocol (Fixture       *f,
                           gconstpointer  data)
{
  FlHandle temp, reader;
  g_autofree char *content = NULL;

  make_file (f, "T.lock.1234.tmp", "1234\n", &temp);
  g_assert_cmpint (_fl_platform_kernel_lock (temp, FL_KERNEL_EXCLUSIVE), ==, 0);
  g_assert_cmpint (_fl_platform_link_noreplace (f->dir, "T.lock.1234.tmp", "T.lock"), ==, 0);
  g_assert_cmpint (_fl_platform_unlink (f->dir, "T.lock.1234.tmp"), ==, 0);

  g_assert_cmpint (_fl_platform_open_read (f->dir, "T.lock", &reader), ==, 0);
  g_assert_cmpint (_fl_platform_kernel_lock (reader, FL_KERNEL_SHARED), ==, EWOULDBLOCK);
  content = read_name (f, "T.lock");
  g_assert_cmpstr (content, ==, "1234\n");

  /* The identity of a handle whose name is gone must still be the file's (wine gap 9). */
  g_assert_cmpint (_fl_platform_unlink_held (f->dir, "T.lock", temp, NULL), ==, 0);
  _fl_platform_close (temp);
  _fl_platform_close (reader);
  assert_gone (f, "T.lock");
}

static void
test_kernel_lock_dup (Fixture       *f,
                      gconstpointer  data)
{
  FlHandle h, copy = FL_HANDLE_NONE, other;

  make_file (f, "a", "1", &h);
  g_assert_cmpint (_fl_platform_kernel_lock (h, FL_KERNEL_EXCLUSIVE), ==, 0);
  g_assert_cmpint (_fl_platform_dup (h, &copy), ==, 0);
  g_assert_true (copy != h && copy != FL_HANDLE_NONE);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "a", &other), ==, 0);

  /* The copy shares the lock: it lasts as long as either is open. */
  _fl_platform_close (h);
  g_assert_cmpint (_fl_platform_kernel_lock (other, FL_KERNEL_EXCLUSIVE), ==, EWOULDBLOCK);
  _fl_platform_close (copy);
  g_assert_cmpint (lock_within_deadline (other, FL_KERNEL_EXCLUSIVE), ==, 0);
  _fl_platform_close (other);
}


/* Child processes */

typedef struct
{
  GPid pid;
  int  stdin_fd;
  int  stdout_fd;
} Child;

static int
child_pid (const Child *c)
{
#ifdef G_OS_WIN32
  return (int) GetProcessId (c->pid);
#else
  return c->pid;
#endif
}

static void
child_spawn (Child      *c,
             const char *mode,
             const char *a1,
             const char *a2)
{
  const char *argv[] = { self_exe, mode, a1, a2, NULL };
  g_autoptr(GError) error = NULL;

  g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL,
                            &c->pid, &c->stdin_fd, &c->stdout_fd, NULL, &error);
  g_assert_no_error (error);
}

static void
child_kill (Child *c)
{
#ifdef G_OS_WIN32
  TerminateProcess (c->pid, 9);
#else
  kill (c->pid, SIGKILL);
#endif
}

/* Reaps and forgets the child (on Windows: closes its process handle). */
static void
child_reap (Child *c)
{
#ifdef G_OS_UNIX
  waitpid (c->pid, NULL, 0);
#endif
  g_spawn_close_pid (c->pid);
  close (c->stdout_fd);
  if (c->stdin_fd >= 0)
    close (c->stdin_fd);
}

typedef struct
{
  int     fd;
  GMutex  mutex;
  GCond   cond;
  gboolean done;
  GString *line;
} LineReader;

static gpointer
line_reader_thread (gpointer data)
{
  LineReader *r = data;
  char c;

  while (read (r->fd, &c, 1) == 1 && c != '\n')
    g_string_append_c (r->line, c);
  g_mutex_lock (&r->mutex);
  r->done = TRUE;
  g_cond_signal (&r->cond);
  g_mutex_unlock (&r->mutex);
  return NULL;
}

/* The child's first line, or NULL if it says nothing within the deadline (it is then killed). */
static char *
child_read_line (Child *c)
{
  LineReader r = { .fd = c->stdout_fd };
  gint64 deadline = g_get_monotonic_time () + DEADLINE_US;
  GThread *thread;
  gboolean done;

  g_mutex_init (&r.mutex);
  g_cond_init (&r.cond);
  r.line = g_string_new (NULL);
  thread = g_thread_new ("line-reader", line_reader_thread, &r);
  g_mutex_lock (&r.mutex);
  while (!r.done && g_cond_wait_until (&r.cond, &r.mutex, deadline))
    ;
  done = r.done;
  g_mutex_unlock (&r.mutex);
  if (!done)
    child_kill (c);
  g_thread_join (thread);
  g_mutex_clear (&r.mutex);
  g_cond_clear (&r.cond);
  if (!done)
    {
      g_string_free (r.line, TRUE);
      return NULL;
    }
  return g_string_free (r.line, FALSE);
}

/* Kills @c and waits for it to exit, through the platform's own watch, set up before the kill
 * as a waiter's is. */
static void
child_kill_and_wait (Fixture *f,
                     Child   *c)
{
  FlWatch *watch = _fl_platform_watch_new (f->dir, "no-such-name");
  gint64 deadline = g_get_monotonic_time () + DEADLINE_US;
  FlWatchResult r;

  g_assert_true (_fl_platform_watch_process (watch, child_pid (c)));
  child_kill (c);
  do
    r = _fl_platform_watch_wait (watch, (int) ((deadline - g_get_monotonic_time ()) / 1000),
                                 FL_HANDLE_NONE);
  while (r == FL_WATCH_NAME && g_get_monotonic_time () < deadline);
  g_assert_cmpint (r, ==, FL_WATCH_PROCESS);
  _fl_platform_watch_free (watch);
}

static void
test_kernel_lock_child (Fixture       *f,
                        gconstpointer  data)
{
  Child c;
  FlHandle h;
  FlProcessInfo info;
  g_autofree char *line = NULL;

  make_file (f, "a", "1", NULL);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "a", &h), ==, 0);
  child_spawn (&c, "--child-lock", f->path, "a");
  line = child_read_line (&c);
  g_assert_cmpstr (line, ==, "locked");

  g_assert_cmpint (_fl_platform_kernel_lock (h, FL_KERNEL_EXCLUSIVE), ==, EWOULDBLOCK);
  g_assert_cmpint (_fl_platform_kernel_lock (h, FL_KERNEL_SHARED), ==, EWOULDBLOCK);

  _fl_platform_process_probe (child_pid (&c), false, &info);
  g_assert_cmpint (info.state, ==, FL_PROCESS_RUNNING);
  _fl_platform_process_info_clear (&info);

  child_kill_and_wait (f, &c);
  _fl_platform_process_probe (child_pid (&c), false, &info);
  g_assert_true (info.state == FL_PROCESS_ZOMBIE || info.state == FL_PROCESS_GONE);
  _fl_platform_process_info_clear (&info);
  g_assert_cmpint (lock_within_deadline (h, FL_KERNEL_EXCLUSIVE), ==, 0);

  child_reap (&c);
#ifdef G_OS_UNIX
  _fl_platform_process_probe (c.pid, false, &info);
  g_assert_cmpint (info.state, ==, FL_PROCESS_GONE);
  _fl_platform_process_info_clear (&info);
#endif
  _fl_platform_close (h);
}


/* Other programs' lock files (docs/other-lock-files.md): a link's target read, never followed;
 * a record lock asked, never taken. Windows has neither (ENOSYS). */
static void
test_readlink_at (Fixture       *f,
                  gconstpointer  data)
{
  char buf[64];
  size_t len = 99;

  make_file (f, "file", "alice@host.1", NULL);
#ifdef G_OS_WIN32
  g_assert_cmpint (_fl_platform_readlink_at (f->dir, "file", buf, sizeof buf, &len), ==, ENOSYS);
  g_assert_cmpuint (len, ==, 0);
#else
  {
    g_autofree char *link = g_build_filename (f->path, ".#file", NULL);
    g_autofree char *fifo = g_build_filename (f->path, "fifo", NULL);
    g_autofree char *to_fifo = g_build_filename (f->path, "to-fifo", NULL);

    g_assert_cmpint (symlink ("bob@host.4242:1700000000", link), ==, 0);
    g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
    g_assert_cmpint (symlink (fifo, to_fifo), ==, 0);

    g_assert_cmpint (_fl_platform_readlink_at (f->dir, ".#file", buf, sizeof buf, &len), ==, 0);
    g_assert_cmpstr (buf, ==, "bob@host.4242:1700000000");
    g_assert_cmpuint (len, ==, strlen (buf));
    /* Cut short is an error, never a shorter target. */
    g_assert_cmpint (_fl_platform_readlink_at (f->dir, ".#file", buf, 8, &len), ==,
                     ENAMETOOLONG);
    g_assert_cmpuint (len, ==, 0);
    /* A link to a FIFO is read, not opened (this would block otherwise). */
    g_assert_cmpint (_fl_platform_readlink_at (f->dir, "to-fifo", buf, sizeof buf, &len), ==, 0);
    g_assert_cmpstr (buf, ==, fifo);
    g_assert_cmpint (_fl_platform_readlink_at (f->dir, "file", buf, sizeof buf, &len), ==,
                     EINVAL);
    g_assert_cmpint (_fl_platform_readlink_at (f->dir, "none", buf, sizeof buf, &len), ==,
                     ENOENT);
  }
#endif
}

static void
test_record_lock_holder (Fixture       *f,
                         gconstpointer  data)
{
  FlHandle h;
  int pid = 99;

  make_file (f, "lock", "", NULL);
  g_assert_cmpint (_fl_platform_open_read (f->dir, "lock", &h), ==, 0);
#ifdef G_OS_WIN32
  g_assert_cmpint (_fl_platform_record_lock_holder (h, &pid), ==, ENOSYS);
  g_assert_cmpint (pid, ==, 0);
#else
  {
    g_autofree char *path = g_build_filename (f->path, "lock", NULL);
    int ready[2];
    pid_t child;
    ssize_t got;
    int err;
    char c;

    g_assert_cmpint (_fl_platform_record_lock_holder (h, &pid), ==, 0);
    g_assert_cmpint (pid, ==, 0);
    /* Our own flock is not a record lock (on Linux they are independent). */
    g_assert_cmpint (_fl_platform_kernel_lock (h, FL_KERNEL_SHARED), ==, 0);
    g_assert_cmpint (_fl_platform_record_lock_holder (h, &pid), ==, 0);
    g_assert_cmpint (pid, ==, 0);

    g_assert_cmpint (pipe (ready), ==, 0);
    child = fork ();
    g_assert_cmpint (child, >=, 0);
    if (child == 0)
      {
        struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
        int fd = open (path, O_RDONLY);

        if (fd < 0 || fcntl (fd, F_SETLK, &fl) < 0 || write (ready[1], "x", 1) != 1)
          _exit (1);
        for (;;)
          pause ();
      }
    close (ready[1]);
    got = read (ready[0], &c, 1);
    err = _fl_platform_record_lock_holder (h, &pid);
    /* Ended before asserting: a failed assertion must not leave it holding our output. */
    kill (child, SIGKILL);
    g_assert_cmpint (waitpid (child, NULL, 0), ==, child);
    close (ready[0]);
    g_assert_cmpint (got, ==, 1);
    /* A shared (read) record lock answers too, with its holder's PID. */
    g_assert_cmpint (err, ==, 0);
    g_assert_cmpint (pid, ==, child);
    g_assert_cmpint (_fl_platform_record_lock_holder (h, &pid), ==, 0);
    g_assert_cmpint (pid, ==, 0);
  }
#endif
  _fl_platform_close (h);
}

/* Processes */

static void
test_process_self (void)
{
  FlProcessInfo info;
  FlPlatformSelf self;
  gint64 now = g_get_real_time (), boot_now = _fl_platform_boottime_now ();

  g_assert_cmpint (_fl_platform_self_pid (), >, 0);
  _fl_platform_process_probe (_fl_platform_self_pid (), true, &info);
  g_assert_cmpint (info.state, ==, FL_PROCESS_RUNNING);
  g_assert_cmpuint (info.start_ticks, !=, 0);
  g_assert_cmpint (info.start_real_us, >, now - (gint64) 3600 * G_USEC_PER_SEC);
  g_assert_cmpint (info.start_real_us, <=, now + G_USEC_PER_SEC);
  g_assert_cmpint (info.start_boot_us, <=, boot_now + G_USEC_PER_SEC);
  g_assert_nonnull (info.name);

  _fl_platform_self (&self);
  g_assert_cmpuint (self.start_ticks, ==, info.start_ticks);
  g_assert_cmpstr (self.host_name, !=, "");
  g_assert_true (_fl_platform_processes_visible ());
  g_assert_cmpint (_fl_platform_boottime_now (), >=, boot_now);
  _fl_platform_process_info_clear (&info);

  _fl_platform_process_probe (0, false, &info);
  g_assert_cmpint (info.state, ==, FL_PROCESS_UNKNOWN);
  _fl_platform_process_probe (-1, false, &info);
  g_assert_cmpint (info.state, ==, FL_PROCESS_UNKNOWN);
}

/* Whether @h (from _fl_platform_process_watch) says the process exited, within @timeout_ms. */
static gboolean
process_handle_fired (FlHandle h,
                      int      timeout_ms)
{
#ifdef G_OS_WIN32
  return WaitForSingleObject ((HANDLE) h, (DWORD) timeout_ms) == WAIT_OBJECT_0;
#else
  struct pollfd p = { (int) h, POLLIN, 0 };

  return poll (&p, 1, timeout_ms) == 1;
#endif
}

static void
test_process_watch (Fixture       *f,
                    gconstpointer  data)
{
  Child c;
  FlHandle h;
  FlProcessInfo info;
  int pid;

  child_spawn (&c, "--child-wait", "", "");
  pid = child_pid (&c);  /* on Windows from the process handle, which child_reap() closes */
  g_assert_cmpint (_fl_platform_process_watch (pid, &h), ==, 0);
  g_assert_true (h != FL_HANDLE_NONE);
  g_assert_false (process_handle_fired (h, 0));

  close (c.stdin_fd);  /* the child exits at end of input */
  c.stdin_fd = -1;
  g_assert_true (process_handle_fired (h, DEADLINE_US / 1000));
  _fl_platform_close (h);

  /* Exited, not yet reaped: while our handle is open, Windows keeps the PID for it. */
  _fl_platform_process_probe (pid, false, &info);
  g_assert_true (info.state == FL_PROCESS_ZOMBIE || info.state == FL_PROCESS_GONE);
  _fl_platform_process_info_clear (&info);
  child_reap (&c);
#ifdef G_OS_UNIX
  _fl_platform_process_probe (pid, false, &info);
  g_assert_cmpint (info.state, ==, FL_PROCESS_GONE);
  _fl_platform_process_info_clear (&info);
  /* On Windows the PID may name another process at once: nothing holds it now. */
  g_assert_cmpint (_fl_platform_process_watch (c.pid, &h), ==, ESRCH);
  g_assert_true (h == FL_HANDLE_NONE);
#endif
}

static void
test_die_now (void)
{
  const char *argv[] = { self_exe, "--child-die", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status,
                &error);
  g_assert_no_error (error);
  g_assert_cmpstr (out, ==, "before\n");
#ifdef G_OS_WIN32
  g_assert_cmpint (status, ==, 9);
#else
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
#endif
}


/* Waiting */

static void
assert_watch_name (Fixture    *f,
                   const char *how)
{
  FlWatch *watch;
  gint64 start;

  make_file (f, "w.lock", "1", NULL);
  watch = _fl_platform_watch_new (f->dir, "w.lock");
  g_assert_true (_fl_platform_watch_has_events (watch));
  if (strcmp (how, "unlink") == 0)
    g_assert_cmpint (_fl_platform_unlink (f->dir, "w.lock"), ==, 0);
  else
    g_assert_cmpint (_fl_platform_rename_noreplace (f->dir, "w.lock", "w.moved"), ==, 0);
  start = g_get_monotonic_time ();
  g_assert_cmpint (_fl_platform_watch_wait (watch, DEADLINE_US / 1000, FL_HANDLE_NONE), ==,
                   FL_WATCH_NAME);
  g_test_message ("%s seen after %" G_GINT64_FORMAT " us", how, g_get_monotonic_time () - start);
  _fl_platform_watch_free (watch);
}

static void
test_watch_name (Fixture       *f,
                 gconstpointer  data)
{
  assert_watch_name (f, "unlink");
  g_assert_cmpint (_fl_platform_unlink (f->dir, "w.moved"), ==, ENOENT);
  assert_watch_name (f, "rename");
}

static void
test_watch_timeout (Fixture       *f,
                    gconstpointer  data)
{
  FlWatch *watch;
  gint64 start;

  make_file (f, "w.lock", "1", NULL);
  watch = _fl_platform_watch_new (f->dir, "w.lock");
  g_assert_true (_fl_platform_watch_process (watch, _fl_platform_self_pid ()));
  start = g_get_monotonic_time ();
  g_assert_cmpint (_fl_platform_watch_wait (watch, 100, FL_HANDLE_NONE), ==, FL_WATCH_TIMEOUT);
  /* Windows' tick is 15.6 ms: allow it below the asked 100 ms. */
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 80 * 1000);
  /* 0 is "none" on every platform: false, so the waiter re-checks with backoff. */
  g_assert_false (_fl_platform_watch_process (watch, 0));
  g_assert_cmpint (_fl_platform_watch_wait (watch, 0, FL_HANDLE_NONE), ==, FL_WATCH_TIMEOUT);
  _fl_platform_watch_free (watch);
}


/* A watch put away leaves its last events (and, on Linux, its pidfd) for the thread's next
 * wait to clear, so that an acquirer woken from a wait returns at once (docs/performance.md,
 * "Handoff"). Those events must not wake the next wait, and what was left is cleared then. */
static void
test_watch_earlier_events (Fixture       *f,
                           gconstpointer  data)
{
  FlWatch *watch;
  int pidfd;

  make_file (f, "w.lock", "1", NULL);
  watch = _fl_platform_watch_new (f->dir, "w.lock");
  /* Not under valgrind, which lacks pidfd_open. */
  pidfd = _fl_platform_watch_process (watch, _fl_platform_self_pid ());
  g_assert_cmpint (_fl_platform_unlink (f->dir, "w.lock"), ==, 0);
  g_assert_cmpint (_fl_platform_watch_wait (watch, DEADLINE_US / 1000, FL_HANDLE_NONE), ==,
                   FL_WATCH_NAME);
  /* More events for the name after the wake, never read by this wait. */
  make_file (f, "w.lock", "1", NULL);
  g_assert_cmpint (_fl_platform_unlink (f->dir, "w.lock"), ==, 0);
  _fl_platform_watch_free (watch);
#ifndef G_OS_WIN32
  g_assert_cmpint (_fl_platform_watch_deferred (), ==, 1 + pidfd);  /* the queue, the pidfd */
#else
  (void) pidfd;  /* Windows defers nothing: its handles are closed with the watch */
#endif

  make_file (f, "w.lock", "1", NULL);
  watch = _fl_platform_watch_new (f->dir, "w.lock");
  g_assert_cmpint (_fl_platform_watch_deferred (), ==, 0);
  g_assert_cmpint (_fl_platform_watch_wait (watch, 100, FL_HANDLE_NONE), ==, FL_WATCH_TIMEOUT);
  g_assert_cmpint (_fl_platform_unlink (f->dir, "w.lock"), ==, 0);
  g_assert_cmpint (_fl_platform_watch_wait (watch, DEADLINE_US / 1000, FL_HANDLE_NONE), ==,
                   FL_WATCH_NAME);
  _fl_platform_watch_free (watch);
}

/* A cancellation handle that is already readable (POSIX) or signalled (Windows). */
static void
test_watch_cancel (Fixture       *f,
                   gconstpointer  data)
{
  FlWatch *watch;
  FlHandle cancel;
#ifdef G_OS_WIN32
  HANDLE event = CreateEventW (NULL, TRUE, TRUE, NULL);

  cancel = (FlHandle) event;
#else
  int fds[2];

  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, NULL));
  g_assert_cmpint (write (fds[1], "x", 1), ==, 1);
  cancel = fds[0];
#endif

  make_file (f, "w.lock", "1", NULL);
  watch = _fl_platform_watch_new (f->dir, "w.lock");
  g_assert_cmpint (_fl_platform_watch_wait (watch, DEADLINE_US / 1000, cancel), ==,
                   FL_WATCH_CANCELLED);
  g_assert_cmpint (_fl_platform_watch_wait (watch, -1, cancel), ==, FL_WATCH_CANCELLED);
  _fl_platform_watch_free (watch);
#ifdef G_OS_WIN32
  CloseHandle (event);
#else
  close (fds[0]);
  close (fds[1]);
#endif
}


/* What the other processes do */

static int
child_lock (const char *path,
            const char *name)
{
  FlDir *dir;
  FlHandle h;
  int r;

  if ((r = _fl_platform_dir_open (path, false, &dir)) != 0 ||
      (r = _fl_platform_open_read (dir, name, &h)) != 0 ||
      (r = _fl_platform_kernel_lock (h, FL_KERNEL_EXCLUSIVE)) != 0)
    {
      g_print ("error %d\n", r);
      return 1;
    }
  g_print ("locked\n");
  fflush (stdout);
  while (getchar () != EOF)
    ;
  return 0;
}

int
main (int   argc,
      char *argv[])
{
  self_exe = g_canonicalize_filename (argv[0], NULL);
  if (argc >= 4 && strcmp (argv[1], "--child-lock") == 0)
    return child_lock (argv[2], argv[3]);
  if (argc >= 2 && strcmp (argv[1], "--child-wait") == 0)
    {
      while (getchar () != EOF)
        ;
      return 0;
    }
  if (argc >= 2 && strcmp (argv[1], "--child-die") == 0)
    {
      g_print ("before\n");
      fflush (stdout);
      _fl_platform_die_now ();
      g_print ("after\n");
      return 0;
    }

  g_test_init (&argc, &argv, NULL);
  if (is_wine ())
    g_test_message ("running under wine: its gaps are skipped (docs/windows.md)");

#define ADD(path, fn) \
  g_test_add ("/platform/" path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)
  ADD ("link-noreplace", test_link_noreplace);
  ADD ("rename-noreplace", test_rename_noreplace);
  ADD ("unlink", test_unlink);
  ADD ("unlink-open", test_unlink_open);
  ADD ("unlink-held", test_unlink_held);
  ADD ("identity-after-rename", test_identity_after_rename);
  ADD ("hostile-directory", test_hostile_directory);
  ADD ("antivirus", test_antivirus);
  ADD ("symlink", test_symlink);
  ADD ("dir-open-create", test_dir_open_create);
  ADD ("dir-list", test_dir_list);
  ADD ("read-head-bounded", test_read_head_bounded);
  ADD ("identity", test_identity);
  ADD ("create-unnamed", test_create_unnamed);
  ADD ("create-mode", test_create_mode);
  ADD ("kernel-lock/same-process", test_kernel_lock_same_process);
  ADD ("kernel-lock/dup", test_kernel_lock_dup);
  ADD ("kernel-lock/protocol", test_kernel_lock_protocol);
  ADD ("kernel-lock/child", test_kernel_lock_child);
  ADD ("readlink-at", test_readlink_at);
  ADD ("record-lock-holder", test_record_lock_holder);
  ADD ("process/watch", test_process_watch);
  ADD ("watch/name", test_watch_name);
  ADD ("watch/timeout", test_watch_timeout);
  ADD ("watch/cancel", test_watch_cancel);
  ADD ("watch/earlier-events", test_watch_earlier_events);
#undef ADD
  g_test_add_func ("/platform/process/self", test_process_self);
  g_test_add_func ("/platform/process/die-now", test_die_now);

  return g_test_run ();
}
