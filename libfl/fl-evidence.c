/* fl-evidence.c: reading one lock, temp or graveyard file's evidence, steps J1 and J2
 * (docs/protocol.md, section 2): look without following or blocking, open, read a bounded
 * content, note the times, read the identity. fl-judge.c weighs it (J3, J4).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fl-judge-private.h"

static gint64
timespec_to_us (const struct timespec *ts)
{
  return (gint64) ts->tv_sec * G_USEC_PER_SEC + ts->tv_nsec / 1000;
}

/* Step J2: at most FL_CONTENT_MAX bytes. */
static void
read_content (FlLockState *self)
{
  gssize n;

  do
    n = pread (self->fd, self->content, FL_CONTENT_MAX, 0);
  while (n < 0 && errno == EINTR);

  self->content_len = n > 0 ? (gsize) n : 0;
  self->content[self->content_len] = '\0';
  self->content_complete = n >= 0 && (gsize) n < FL_CONTENT_MAX && self->st.st_size <= n;

  self->content_kind = _fl_parse_content (self->content, self->content_len,
                                          self->content_complete, &self->content_value);
  self->content_pid = self->content_kind == FL_CONTENT_PID ? (int) self->content_value : 0;
}

/* Step J4's clock for unparsable content (docs/protocol.md, "evidence"): touch, cp -p, tar and
 * rsync -t can set the mtime into the past, but not the ctime. */
static void
note_times (FlLockState *self)
{
  self->mtime_us = timespec_to_us (&self->st.st_mtim);
  self->changed_us = MAX (self->mtime_us, timespec_to_us (&self->st.st_ctim));
}

/* Also step J2, but only once the kernel lock is known to be free: a held lock needs no
 * identity, and every contended acquire would pay for reading it. */
void
_fl_lock_state_read_identity (FlLockState *self)
{
  char xattr[FL_IDENTITY_MAX];
  gssize n;

  if (self->fd < 0)
    return;

  n = fgetxattr (self->fd, FL_IDENTITY_XATTR, xattr, sizeof xattr);
  if (n > 0 && _fl_identity_parse (xattr, (gsize) n, &self->identity))
    {
      /* A graveyard keeps its lock's identity; a lock's must name the PID it holds. */
      self->has_identity = self->kind != FL_ENTRY_LOCK ||
                           self->identity.pid == self->content_pid;
    }
}

gboolean
_fl_lock_state_open (FlLockState  *self,
                     int           dirfd,
                     const char   *dir_path,
                     const char   *name,
                     GError      **error)
{
  struct stat again;

  memset (self, 0, sizeof *self);
  self->fd = -1;
  self->process.uid = -1;
  self->name = g_strdup (name);
  self->path = g_build_filename (dir_path, name, NULL);

  if (!_fl_classify_name (name, strlen (name), &self->name_info))
    self->name_info.kind = FL_ENTRY_LOCK;  /* asked for by path: judge it as a lock */
  self->kind = self->name_info.kind;

  /* Step J1: look before opening, so a FIFO, device or symlink is never opened. */
  if (fstatat (dirfd, name, &self->st, AT_SYMLINK_NOFOLLOW) < 0)
    {
      int saved_errno = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   "Cannot examine “%s”: %s", self->path, g_strerror (saved_errno));
      return FALSE;
    }

  note_times (self);

  if (!S_ISREG (self->st.st_mode))
    {
      self->kind = FL_ENTRY_FOREIGN;
      return TRUE;
    }

  self->fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (self->fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ENOENT)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       "“%s” went away while being examined", self->path);
          return FALSE;
        }
      if (saved_errno == ELOOP)
        {
          /* Replaced by a symlink since the fstatat(): foreign now. */
          self->kind = FL_ENTRY_FOREIGN;
          return TRUE;
        }
      self->open_errno = saved_errno;
      return TRUE;
    }

  /* The name may have been replaced between fstatat() and openat(): trust only the fd. */
  if (fstat (self->fd, &again) < 0 || !S_ISREG (again.st_mode))
    {
      close (self->fd);
      self->fd = -1;
      self->kind = FL_ENTRY_FOREIGN;
      return TRUE;
    }
  self->st = again;
  note_times (self);

  read_content (self);

  return TRUE;
}

gboolean
_fl_lock_state_still_at (FlLockState *self,
                         int          dirfd,
                         const char  *name)
{
  struct stat st;

  return self->fd >= 0 &&
         fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         st.st_dev == self->st.st_dev &&
         st.st_ino == self->st.st_ino;
}

void
_fl_lock_state_clear (FlLockState *self)
{
  /* Closing drops any kernel lock we took on it (step T6). */
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->reason, g_free);
  _fl_process_info_clear (&self->process);
}

char *
_fl_describe_foreign (const char        *path,
                      const struct stat *st)
{
  if (S_ISDIR (st->st_mode))
    return g_strdup_printf ("“%s” is a directory, not a lock file: another program or library "
                            "uses this name for its own lock format. libfl leaves it alone; "
                            "remove it by hand if it is a leftover", path);
  if (S_ISLNK (st->st_mode))
    return g_strdup_printf ("“%s” is a symbolic link: libfl never follows links where a lock "
                            "file belongs. Remove the link if it does not belong there", path);
  if (S_ISFIFO (st->st_mode))
    return g_strdup_printf ("“%s” is a FIFO, not a lock file: libfl never opens it. Remove it "
                            "if it does not belong there", path);
  if (S_ISSOCK (st->st_mode))
    return g_strdup_printf ("“%s” is a socket, not a lock file: libfl never opens it. Remove "
                            "it if it does not belong there", path);
  return g_strdup_printf ("“%s” is a device or special file, not a lock file: libfl never "
                          "opens it. Remove it if it does not belong there", path);
}
