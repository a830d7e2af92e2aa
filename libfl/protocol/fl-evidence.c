/* fl-evidence.c: reading one lock, temp or graveyard file's evidence, steps J1 and J2
 * (docs/protocol.md, section 2): look without following or blocking, open, read a bounded
 * content, note the times, read the identity. fl-judge.c weighs it (J3, J4).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "protocol/fl-evidence-private.h"
#include "protocol/fl-judge-private.h"

/* Step J2: at most FL_CONTENT_MAX bytes. */
static void
read_content (FlEvidence *self)
{
  size_t n;
  int err = _fl_platform_read_head (self->fd, self->content, FL_CONTENT_MAX, &n);

  self->content_len = n;
  self->content[self->content_len] = '\0';
  self->content_complete = err == 0 && n < FL_CONTENT_MAX && self->info.size <= (gint64) n;

  self->content_kind = _fl_parse_content (self->content, self->content_len,
                                          self->content_complete, &self->content_value);
  self->content_pid = self->content_kind == FL_CONTENT_PID ? (int) self->content_value : 0;
}

/* Step J4's clock for unparsable content (docs/protocol.md, "evidence"): touch, cp -p, tar and
 * rsync -t can set the mtime into the past, but not the ctime. */
static void
note_times (FlEvidence *self)
{
  self->mtime_us = self->info.mtime_ns / 1000;
  self->changed_us = MAX (self->mtime_us, self->info.ctime_ns / 1000);
}

/* Also step J2, but only once the kernel lock is known to be free: a held lock needs no
 * identity, and every contended acquire would pay for reading it. */
void
_fl_evidence_read_identity (FlEvidence *self)
{
  char record[FL_IDENTITY_MAX];
  size_t n;

  if (self->fd == FL_HANDLE_NONE)
    return;

  if (_fl_platform_identity_get (self->fd, record, sizeof record, &n) == 0 && n > 0 &&
      _fl_identity_parse (record, n, &self->identity))
    {
      /* A graveyard keeps its lock's identity; a lock's must name the PID it holds. */
      self->has_identity = self->kind != FL_ENTRY_LOCK ||
                           self->identity.pid == self->content_pid;
    }
}

/* What a foreign entry is, said where a reader of the verdict looks: a link's target is read
 * (never followed) and kept as its content, as an Emacs lock's is. */
static void
note_foreign (FlEvidence *self,
              FlDir       *dir)
{
  size_t n = 0;

  if (self->info.type == FL_FILE_SYMLINK &&
      _fl_platform_readlink_at (dir, self->name, self->content, sizeof self->content, &n) == 0)
    self->content_len = n;
  else
    self->content_len = 0;
  self->content[self->content_len] = '\0';
  self->reason = _fl_describe_foreign_reason (self->info.type,
                                              self->content_len > 0 ? self->content : NULL);
}

typedef enum
{
  LOOK_OPENED,    /* a regular file, open: its content is next */
  LOOK_DONE,      /* judged without content: foreign, or the open failed (open_errno) */
  LOOK_REPLACED,  /* the look and the handle named two files: look again */
  LOOK_FAILED,    /* in @error */
} LookResult;

/* Step J1 and the open. The name may be replaced between the look and the open, and a FUSE
 * daemon that answers fstat() by path (bindfs, sshfs) may describe, through the handle, a file
 * put at the name after the open, while the content read through the handle is the one opened:
 * that file's identity with the older file's dead PID made a stale verdict that T1-T4 carried
 * out on the newer, live lock (T1 and T3 compare the name with the identity). So the look
 * before the open and the look at the handle must name one file. */
static LookResult
look_and_open (FlEvidence  *self,
               FlDir       *dir,
               GError     **error)
{
  FlFileInfo again;
  int err;

  /* Look before opening, so a FIFO, device or symlink is never opened. */
  err = _fl_platform_stat_at (dir, self->name, &self->info);
  if (err != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
                   _("Cannot examine “%s”: %s"), self->path, g_strerror (err));
      return LOOK_FAILED;
    }

  note_times (self);

  if (self->info.type != FL_FILE_REGULAR)
    {
      self->kind = FL_ENTRY_FOREIGN;
      note_foreign (self, dir);
      return LOOK_DONE;
    }

  err = _fl_platform_open_read (dir, self->name, &self->fd);
  if (err != 0)
    {
      self->fd = FL_HANDLE_NONE;
      if (err == ENOENT)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("“%s” went away while being examined"), self->path);
          return LOOK_FAILED;
        }
      if (err == ELOOP)
        {
          /* Replaced by a symlink since the look: foreign now. */
          self->info.type = FL_FILE_SYMLINK;
          self->kind = FL_ENTRY_FOREIGN;
          return LOOK_DONE;
        }
      self->open_errno = err;
      return LOOK_DONE;
    }

  /* A handle that cannot be examined says nothing about the entry's type: on a FUSE
   * filesystem that answers fstat() by path, a lock renamed or removed since the open fails
   * it with ENOENT, which is "went away", never "foreign" (a foreign entry is refused for
   * good). Any other failure is evidence missing, as an open that failed. */
  err = _fl_platform_file_info (self->fd, &again);
  if (err != 0)
    {
      _fl_platform_close (self->fd);
      self->fd = FL_HANDLE_NONE;
      if (err == ENOENT || err == ESTALE)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("“%s” went away while being examined"), self->path);
          return LOOK_FAILED;
        }
      self->open_errno = err;
      return LOOK_DONE;
    }
  if (again.type != FL_FILE_REGULAR)
    {
      self->info.type = again.type;
      _fl_platform_close (self->fd);
      self->fd = FL_HANDLE_NONE;
      self->kind = FL_ENTRY_FOREIGN;
      return LOOK_DONE;
    }
  if (!fl_file_id_equal (&again.id, &self->info.id))
    {
      _fl_platform_close (self->fd);
      self->fd = FL_HANDLE_NONE;
      return LOOK_REPLACED;
    }
  self->info = again;
  note_times (self);
  return LOOK_OPENED;
}

/* How often a name replaced between the look and the handle is looked at again: a lock
 * replaced that often in microseconds is gone as far as this look is concerned. */
#define LOOKS_MAX 4

gboolean
_fl_evidence_open (FlEvidence   *self,
                   FlDir        *dir,
                   const char   *dir_path,
                   const char   *name,
                   GError      **error)
{
  memset (self, 0, sizeof *self);
  self->fd = FL_HANDLE_NONE;
  self->process.uid = -1;
  self->name = g_strdup (name);
  self->path = g_build_filename (dir_path, name, NULL);

  if (!_fl_classify_name (name, strlen (name), &self->name_info))
    self->name_info.kind = FL_ENTRY_LOCK;  /* asked for by path: judge it as a lock */
  self->kind = self->name_info.kind;

  for (guint look = 1; ; look++)
    switch (look_and_open (self, dir, error))
      {
      case LOOK_OPENED:
        read_content (self);  /* step J2 */
        return TRUE;
      case LOOK_DONE:
        return TRUE;
      case LOOK_FAILED:
        return FALSE;
      case LOOK_REPLACED:
      default:
        if (look < LOOKS_MAX)
          break;
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                     _("“%s” went away while being examined"), self->path);
        return FALSE;
      }
}

gboolean
_fl_evidence_still_at (FlEvidence *self,
                       FlDir       *dir,
                       const char  *name)
{
  FlFileInfo now;

  return self->fd != FL_HANDLE_NONE &&
         _fl_platform_stat_at (dir, name, &now) == 0 &&
         fl_file_id_equal (&now.id, &self->info.id);
}

void
_fl_evidence_clear (FlEvidence *self)
{
  /* Closing drops any kernel lock we took on it (step T6). */
  _fl_platform_close (self->fd);
  self->fd = FL_HANDLE_NONE;
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->reason, g_free);
  g_clear_pointer (&self->keeper_name, g_free);
  _fl_process_info_clear (&self->process);
}

/* The verdict's reason for a foreign entry (fl_snapshot_get_reason()): what kind of entry it
 * is, and that libfl leaves it alone. @link_target: a symbolic link's target, if read. */
char *
_fl_describe_foreign_reason (FlFileType  type,
                             const char *link_target)
{
  switch (type)
    {
    case FL_FILE_SYMLINK:
      if (link_target != NULL)
        {
          /* A link's target is any bytes: the sentence is UTF-8 for people and logs. */
          g_autofree char *shown = g_utf8_make_valid (link_target, -1);

          return g_strdup_printf (_("a symbolic link to “%s”, not a lock file: libfl never "
                                    "follows or removes it"), shown);
        }
      return g_strdup (_("a symbolic link, not a lock file: libfl never follows or removes it"));
    case FL_FILE_DIRECTORY:
      return g_strdup (_("a directory, not a lock file: libfl never opens or removes it"));
    case FL_FILE_FIFO:
      return g_strdup (_("a FIFO (named pipe), not a lock file: libfl never opens or removes "
                         "it"));
    case FL_FILE_SOCKET:
      return g_strdup (_("a socket, not a lock file: libfl never opens or removes it"));
    default:
      return g_strdup (_("a device or special file, not a lock file: libfl never opens or "
                         "removes it"));
    }
}

char *
_fl_describe_foreign (const char *path,
                      FlFileType  type)
{
  if (type == FL_FILE_DIRECTORY)
    return g_strdup_printf (_("“%s” is a directory, not a lock file: another program or library "
                              "uses this name for its own lock format. libfl leaves it alone; "
                              "remove it by hand if it is a leftover"), path);
  if (type == FL_FILE_SYMLINK)
    return g_strdup_printf (_("“%s” is a symbolic link: libfl never follows links where a lock "
                              "file belongs. Remove the link if it does not belong there"), path);
  if (type == FL_FILE_FIFO)
    return g_strdup_printf (_("“%s” is a FIFO, not a lock file: libfl never opens it. Remove it "
                              "if it does not belong there"), path);
  if (type == FL_FILE_SOCKET)
    return g_strdup_printf (_("“%s” is a socket, not a lock file: libfl never opens it. Remove "
                              "it if it does not belong there"), path);
  return g_strdup_printf (_("“%s” is a device or special file, not a lock file: libfl never "
                            "opens it. Remove it if it does not belong there"), path);
}
