/* fuzz-lock-file.c: a hostile entry in a lock directory, looked at, scanned and reclaimed
 *
 * Each input becomes one directory entry in a private directory: a lock, temp or graveyard
 * name; a regular file (with fuzzed content, and maybe a fuzzed identity xattr), a symlink
 * to fuzzed bytes, a FIFO or a directory. libfl looks at it the way flctl and the inspector
 * do (fl_snapshot_new, fl_scan_directory) and reclaims it. It must never block, follow the
 * link or open the FIFO; what it shows must be printable; what is not a regular file is
 * foreign and survives a reclaim; a refused reclaim leaves the file as it was.
 *
 * Input: byte 0 = entry type, byte 1 = name kind, bytes 2-5 = PID and tag of a temp or
 * graveyard name, byte 6 = identity length, then the identity, then the content.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <libfl/fl.h>

#include "protocol/fl-content-private.h"
#include "protocol/fl-names-private.h"
#include "platform/fl-platform-linux.h"

int LLVMFuzzerInitialize (int    *argc,
                          char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

enum { ENTRY_REGULAR, ENTRY_REGULAR_XATTR, ENTRY_SYMLINK, ENTRY_FIFO, ENTRY_DIRECTORY,
       N_ENTRY_TYPES };

static char *directory;
static int dir_fd = -1;

static void
remove_dir_cb (void)
{
  if (directory != NULL)
    {
      g_autofree char *command = g_strdup_printf ("rm -rf '%s'", directory);
      if (system (command) != 0)
        g_printerr ("fuzz-lock-file: could not remove %s\n", directory);
    }
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  g_autoptr(GError) error = NULL;

  directory = g_dir_make_tmp ("fl-fuzz-XXXXXX", &error);
  g_assert_no_error (error);
  dir_fd = open (directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (dir_fd, >=, 0);
  atexit (remove_dir_cb);
  return 0;
}

static void
empty_directory (void)
{
  g_autoptr(GDir) dir = g_dir_open (directory, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (unlinkat (dir_fd, name, 0) < 0)
      g_assert_cmpint (unlinkat (dir_fd, name, AT_REMOVEDIR), ==, 0);
}

static void
check_printable (const char *text)
{
  if (text == NULL)
    return;
  g_assert_true (g_utf8_validate (text, -1, NULL));
  for (const char *p = text; *p; p++)
    g_assert_true ((guchar) *p >= 0x20 && (guchar) *p != 0x7f);
}

static void
check_snapshot (FlSnapshot *snapshot,
                guint       type,
                const char *content,
                gsize       content_len)
{
  g_autoptr(GBytes) bytes = NULL;

  g_assert_cmpint (fl_snapshot_get_kind (snapshot) == FL_ENTRY_FOREIGN, ==,
                   type >= ENTRY_SYMLINK);
  check_printable (fl_snapshot_get_content (snapshot));
  g_assert_true (g_utf8_validate (fl_snapshot_get_reason (snapshot), -1, NULL));
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), >=, 0);
  g_assert_cmpint (fl_snapshot_get_pid (snapshot), <=, FL_PID_MAX);

  if (type < ENTRY_SYMLINK)
    {
      bytes = fl_snapshot_dup_content_bytes (snapshot);
      g_assert_cmpuint (g_bytes_get_size (bytes), ==, MIN (content_len, 64));
      /* An empty GBytes has no data pointer, and memcmp() must not see NULL. */
      if (g_bytes_get_size (bytes) > 0)
        g_assert_true (memcmp (g_bytes_get_data (bytes, NULL), content,
                               g_bytes_get_size (bytes)) == 0);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autoptr(GPtrArray) scanned = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *link_target = NULL;
  const char *identity = NULL, *content;
  gsize identity_len = 0, content_len;
  guint type, name_kind;
  guint32 tag = 0;
  struct stat st;
  gboolean reclaimed;

  if (size < 7)
    return 0;

  type = data[0] % N_ENTRY_TYPES;
  name_kind = data[1] % 3;
  memcpy (&tag, data + 2, 4);
  if (type == ENTRY_REGULAR_XATTR)
    {
      identity_len = MIN ((gsize) data[6], size - 7);
      identity = (const char *) data + 7;
    }
  content = (const char *) data + 7 + identity_len;
  content_len = size - 7 - identity_len;

  if (name_kind == 0)
    name = g_strdup ("T.lock");
  else if (name_kind == 1)
    name = _fl_temp_name ("T.lock", 1 + (int) (tag % FL_PID_MAX), tag);
  else
    name = _fl_graveyard_name ("T.lock", 1 + (int) (tag % FL_PID_MAX), tag);
  path = g_build_filename (directory, name, NULL);

  empty_directory ();
  switch (type)
    {
    case ENTRY_REGULAR:
    case ENTRY_REGULAR_XATTR:
      {
        int fd = openat (dir_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);

        g_assert_cmpint (fd, >=, 0);
        g_assert_cmpint (write (fd, content, content_len), ==, (gssize) content_len);
        /* Without user xattrs here (tmpfs before Linux 6.6) the content alone is fuzzed. */
        if (identity_len > 0)
          fsetxattr (fd, FL_IDENTITY_XATTR, identity, identity_len, 0);
        close (fd);
      }
      break;
    case ENTRY_SYMLINK:
      link_target = content_len > 0 && content[0] != '\0' ? g_strndup (content, content_len)
                                                            : g_strdup ("nowhere");
      g_assert_cmpint (symlinkat (link_target, dir_fd, name), ==, 0);
      break;
    case ENTRY_FIFO:
      g_assert_cmpint (mkfifoat (dir_fd, name, 0644), ==, 0);
      break;
    case ENTRY_DIRECTORY:
    default:
      g_assert_cmpint (mkdirat (dir_fd, name, 0755), ==, 0);
      break;
    }

  snapshot = fl_snapshot_new (path, NULL, &error);
  g_assert_no_error (error);
  check_snapshot (snapshot, type, content, content_len);

  scanned = fl_scan_directory (directory, FL_SCAN_RECURSIVE, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (scanned->len, ==, 1);
  check_snapshot (g_ptr_array_index (scanned, 0), type, content, content_len);

  /* A reclaim acts only on a stale regular file; whatever it refuses stays untouched. */
  reclaimed = fl_snapshot_reclaim (snapshot, NULL, &error);
  if (reclaimed)
    {
      g_assert_true (fl_snapshot_get_stale (snapshot));
      g_assert_cmpint (type, <, ENTRY_SYMLINK);
      g_assert_cmpint (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW), <, 0);
      g_assert_cmpint (errno, ==, ENOENT);
    }
  else
    {
      g_assert_nonnull (error);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_cmpint (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW), ==, 0);
      g_clear_error (&error);
    }

  return 0;
}
