/* fl-other-locks.c: other programs' lock files (git, LibreOffice, Emacs, Firefox and
 * Thunderbird, dpkg and apt, flock(1)), recognised and judged without changing anything
 *
 * Formats, liveness rules and the decisions behind them: docs/other-lock-files.md. Nothing
 * here unlinks, writes or keeps a lock: a kernel lock is asked with F_GETLK, or probed with a
 * shared flock that closing the file drops, as libfl's own inspection does.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "protocol/fl-other-locks-private.h"
#include "support/fl-process-private.h"

/* Emacs writes the boot time it read from the system; ours is the wall clock minus the boot
 * clock, which a clock step moves: a boot counts as another only past this much. */
#define BOOT_SLACK_S 60

/* As fl-judge.c's: a process that started this much after the link was written did not write
 * it. */
#define STARTED_AFTER_US G_USEC_PER_SEC

static gboolean
has_prefix (const char *name,
            gsize       len,
            const char *prefix)
{
  gsize n = strlen (prefix);

  return len > n && memcmp (name, prefix, n) == 0;
}

static gboolean
is_name (const char *name,
         gsize       len,
         const char *exact)
{
  return len == strlen (exact) && memcmp (name, exact, len) == 0;
}

gboolean
_fl_other_lock_name (const char *name,
                     gsize       len)
{
  return has_prefix (name, len, ".#") ||
         (has_prefix (name, len, ".~lock.") && name[len - 1] == '#') ||
         has_prefix (name, len, "LCK..") ||
         is_name (name, len, "lock") || is_name (name, len, "lock-frontend") ||
         is_name (name, len, ".parentlock");
}

/* Whether @dir_path has the component @want, or ends with the components @want ("apt/lists"):
 * no allocation, as a scan asks this for every `*.lock`. */
static gboolean
path_has (const char *dir_path,
          const char *want,
          gboolean    at_end)
{
  gsize n = strlen (want);

  for (const char *p = dir_path; (p = strstr (p, want)) != NULL; p++)
    {
      gboolean starts = p == dir_path || G_IS_DIR_SEPARATOR (p[-1]);
      gboolean ends = p[n] == '\0' || (!at_end && G_IS_DIR_SEPARATOR (p[n]));

      if (starts && (ends || (at_end && G_IS_DIR_SEPARATOR (p[n]) && p[n + 1] == '\0')))
        return TRUE;
    }
  return FALSE;
}

static FlLockFormat
format_by_place (const char *dir_path,
                 const char *name)
{
  gsize len = strlen (name);

  if (len > 5 && strcmp (name + len - 5, ".lock") == 0)
    return path_has (dir_path, ".git", FALSE) ? FL_LOCK_FORMAT_GIT : FL_LOCK_FORMAT_LIBFL;
  if (strcmp (name, "lock-frontend") == 0 ||
      (strcmp (name, "lock") == 0 &&
       (path_has (dir_path, "dpkg", TRUE) || path_has (dir_path, "apt/lists", TRUE) ||
        path_has (dir_path, "apt/archives", TRUE))))
    return FL_LOCK_FORMAT_DPKG;
  return FL_LOCK_FORMAT_LIBFL;
}

/* Another program's PID: unlike _fl_parse_pid(), which holds libfl's own files to the
 * canonical form, a leading zero is not refused. */
static gboolean
parse_pid (const char *p,
           gsize       len,
           int        *pid)
{
  guint64 v;

  if (!_fl_parse_digits (p, len, 10, 7, &v) || v < 1 || v > FL_PID_MAX)
    return FALSE;
  *pid = (int) v;
  return TRUE;
}

/* `user@host.PID` or `user@host.PID:BOOT` (Emacs' filelock.c); the host may hold dots, the
 * user an '@', so both splits are at the last one. */
gboolean
_fl_other_parse_emacs (const char  *text,
                       gsize        len,
                       FlOtherLock *out,
                       gint64      *boot_s)
{
  const char *end = text + len;
  const char *at, *colon, *dot;
  guint64 boot = 0;
  int pid;

  *boot_s = 0;
  if (memchr (text, '\0', len) != NULL)
    return FALSE;
  colon = memchr (text, ':', len);
  if (colon != NULL &&
      (!_fl_parse_digits (colon + 1, end - colon - 1, 10, 20, &boot) || boot > G_MAXINT64))
    return FALSE;
  *boot_s = (gint64) boot;
  if (colon == NULL)
    colon = end;
  at = g_strrstr_len (text, colon - text, "@");
  if (at == NULL || at == text)
    return FALSE;
  dot = g_strrstr_len (at, colon - at, ".");
  if (dot == NULL || dot == at + 1 || !parse_pid (dot + 1, colon - dot - 1, &pid))
    return FALSE;

  out->user = g_strndup (text, at - text);
  out->host = g_strndup (at + 1, dot - at - 1);
  out->pid = pid;
  return TRUE;
}

/* `IP:+PID` (nsProfileLock.cpp). */
gboolean
_fl_other_parse_mozilla (const char  *text,
                         gsize        len,
                         FlOtherLock *out)
{
  const char *plus = g_strrstr_len (text, len, ":+");
  int pid;

  if (memchr (text, '\0', len) != NULL || plus == NULL || plus == text ||
      !parse_pid (plus + 2, text + len - plus - 2, &pid))
    return FALSE;
  out->host = g_strndup (text, plus - text);
  out->pid = pid;
  return TRUE;
}

/* `Full Name,user,host,DD.MM.YYYY HH:MM,profile URL;` (LibreOffice's LockFileCommon); the
 * date is local time. */
gboolean
_fl_other_parse_libreoffice (const char  *text,
                             gsize        len,
                             FlOtherLock *out)
{
  g_autofree char *line = g_strndup (text, len);
  g_auto(GStrv) fields = NULL;
  int d, mo, y, h, mi;

  if (strlen (line) != len || !g_utf8_validate (line, -1, NULL))
    return FALSE;
  fields = g_strsplit (line, ",", 5);
  if (g_strv_length (fields) < 4)
    return FALSE;

  out->full_name = g_strdup (fields[0]);
  out->user = g_strdup (fields[1]);
  out->host = g_strdup (fields[2]);
  if (sscanf (fields[3], "%2d.%2d.%4d %2d:%2d", &d, &mo, &y, &h, &mi) == 5)
    {
      g_autoptr(GDateTime) since = g_date_time_new_local (y, mo, d, h, mi, 0);

      if (since != NULL)
        out->since_us = g_date_time_to_unix (since) * G_USEC_PER_SEC;
    }
  return TRUE;
}

static void
verdict (FlOtherLock  *other,
         FlEntryState  state,
         FlLiveness    liveness,
         char         *reason)
{
  other->state = state;
  other->liveness = liveness;
  g_free (other->reason);
  other->reason = reason;
}

/* A file locked only with a kernel lock: a record lock (the holder's PID is told), else an
 * exclusive flock. Unknown unless both were asked. */
static void
judge_kernel_lock (FlOtherLock *other,
                   FlHandle     fd,
                   gboolean     parentlock)
{
  int holder = 0;
  int record_err = _fl_platform_record_lock_holder (fd, &holder);

  if (record_err == 0 && holder != 0)
    {
      other->kernel_lock = FL_KERNEL_LOCK_HELD;
      if (holder > 0)
        {
          other->pid = holder;
          verdict (other, FL_ENTRY_STATE_HELD, FL_LIVENESS_ALIVE,
                   parentlock
                   ? g_strdup_printf (_("PID %d holds a record lock (fcntl) on the profile's "
                                        ".parentlock"), holder)
                   : g_strdup_printf (_("PID %d holds a record lock (fcntl) on the file"),
                                      holder));
        }
      else
        verdict (other, FL_ENTRY_STATE_HELD, FL_LIVENESS_ALIVE,
                 g_strdup (parentlock
                           ? _("a process holds an OFD lock (fcntl) on the profile's .parentlock")
                           : _("a process holds an OFD lock (fcntl) on the file")));
      return;
    }

  switch (_fl_platform_kernel_lock (fd, FL_KERNEL_SHARED))
    {
    case EWOULDBLOCK:
      other->kernel_lock = FL_KERNEL_LOCK_HELD;
      verdict (other, FL_ENTRY_STATE_HELD, FL_LIVENESS_ALIVE,
               g_strdup (parentlock
                         ? _("a process holds an exclusive flock on the profile's .parentlock")
                         : _("a process holds an exclusive flock on the file")));
      return;
    case 0:
      if (record_err == 0)
        {
          other->kernel_lock = FL_KERNEL_LOCK_FREE;
          verdict (other, FL_ENTRY_STATE_FREE, FL_LIVENESS_UNKNOWN,
                   g_strdup (parentlock
                             ? _("nobody holds a kernel lock (fcntl or flock) on the profile's "
                                 ".parentlock")
                             : _("nobody holds a kernel lock (fcntl or flock) on the file")));
          return;
        }
      G_GNUC_FALLTHROUGH;
    default:
      verdict (other, FL_ENTRY_STATE_UNKNOWN, FL_LIVENESS_UNKNOWN,
               g_strdup (parentlock
                         ? _("the kernel locks on the profile's .parentlock cannot be asked here")
                         : _("the kernel locks on the file cannot be asked here")));
    }
}

/* Only when the recorded host is this one: "alice-pc" and "alice-pc.example.org" are. */
static gboolean
is_this_host (const char *host)
{
  FlPlatformSelf me;
  gsize n;

  _fl_platform_self (&me);
  if (host == NULL || me.host_name[0] == '\0')
    return FALSE;
  n = MIN (strlen (host), strlen (me.host_name));
  return strncmp (host, me.host_name, n) == 0 &&
         (host[n] == '\0' || host[n] == '.') && (me.host_name[n] == '\0' || me.host_name[n] == '.');
}

/* A recorded PID of this host and boot (Emacs, UUCP): its process, as probed, is the owner's
 * and stays in @process for the snapshot. */
static void
judge_owner_process (FlOtherLock   *other,
                     FlProcessInfo *process,
                     gint64         written_us)
{
  _fl_process_probe (other->pid, TRUE, process);

  /* Started after the file was written: not the process that wrote it. A clock step could fake
   * that, so it is a reused PID of unknown state, never stale (docs/protocol.md, J4). */
  if (process->state == FL_PROCESS_RUNNING && process->start_real_us != 0 &&
      process->start_real_us > written_us + STARTED_AFTER_US)
    {
      verdict (other, FL_ENTRY_STATE_UNKNOWN, FL_LIVENESS_REUSED,
               g_strdup_printf (_("PID %d is now another process (%s), started after the lock "
                                  "was written"), other->pid,
                                process->name != NULL ? process->name : "?"));
      return;
    }
  switch (process->state)
    {
    case FL_PROCESS_GONE:
    case FL_PROCESS_ZOMBIE:
      verdict (other, FL_ENTRY_STATE_STALE, FL_LIVENESS_DEAD,
               other->format == FL_LOCK_FORMAT_EMACS
               ? g_strdup_printf (_("Emacs PID %d has exited"), other->pid)
               : g_strdup_printf (_("its owner PID %d has exited"), other->pid));
      return;
    case FL_PROCESS_RUNNING:
      verdict (other, FL_ENTRY_STATE_HELD, FL_LIVENESS_ALIVE,
               g_strdup_printf (_("PID %d (%s) is running"), other->pid,
                                process->name != NULL ? process->name : "?"));
      return;
    case FL_PROCESS_UNKNOWN:
    default:
      verdict (other, FL_ENTRY_STATE_UNKNOWN, FL_LIVENESS_UNKNOWN,
               g_strdup_printf (_("PID %d cannot be probed"), other->pid));
    }
}

static void
judge_emacs (FlOtherLock   *other,
             FlProcessInfo *process,
             gint64         boot_s,
             gint64         written_us,
             gint64         now_us)
{
  gint64 our_boot_s = (now_us - _fl_platform_boottime_now ()) / G_USEC_PER_SEC;

  if (!is_this_host (other->host))
    {
      verdict (other, FL_ENTRY_STATE_UNKNOWN, FL_LIVENESS_UNKNOWN,
               g_strdup_printf (_("written by Emacs on host %s: whether PID %d still runs can "
                                  "only be seen there"), other->host, other->pid));
      return;
    }
  if (boot_s != 0 && ABS (boot_s - our_boot_s) > BOOT_SLACK_S)
    {
      verdict (other, FL_ENTRY_STATE_STALE, FL_LIVENESS_DEAD,
               g_strdup_printf (_("written by an Emacs of an earlier boot of this host (PID %d): "
                                  "no process of that boot runs"), other->pid));
      return;
    }

  judge_owner_process (other, process, written_us);
}

static gboolean
all_digits_or_spaces (const char *text,
                      gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isdigit (text[i]) && text[i] != ' ')
      return FALSE;
  return TRUE;
}

/* A UUCP-style serial port lock's content (`LCK..ttyUSB0`): the owner's PID as ten ASCII
 * characters, right-aligned, and a newline (HDB UUCP, minicom, pppd, lockdev), or as a
 * binary int of 4 bytes in this machine's byte order (older UUCP). */
gboolean
_fl_other_parse_uucp (const char *text,
                      gsize       len,
                      int        *pid)
{
  gsize start = 0, end = len;

  /* Four digits ("4242" with no newline) are text: as a binary int their bytes make a PID of
   * at least 0x30303030 (808 million), which no system hands out, though it is within the
   * range a Windows PID may take. */
  if (len == sizeof (gint32) && !all_digits_or_spaces (text, len))
    {
      gint32 binary;

      memcpy (&binary, text, sizeof binary);
      if (binary >= 1 && binary <= FL_PID_MAX)
        {
          *pid = binary;
          return TRUE;
        }
    }
  if (len > 32)
    return FALSE;
  while (start < end && text[start] == ' ')
    start++;
  if (end > start && text[end - 1] == '\n')
    end--;
  return end > start && parse_pid (text + start, end - start, pid);
}

/* The profile is open while a process holds .parentlock's kernel lock (Firefox takes it before
 * it writes the link, and the kernel drops it however Firefox ends). */
static void
judge_mozilla_link (FlOtherLock *other,
                    FlDir       *dir)
{
  FlFileInfo info;
  FlHandle fd;
  int recorded = other->pid;

  if (_fl_platform_stat_at (dir, ".parentlock", &info) != 0 || info.type != FL_FILE_REGULAR ||
      _fl_platform_open_read (dir, ".parentlock", &fd) != 0)
    {
      verdict (other, FL_ENTRY_STATE_UNKNOWN, FL_LIVENESS_UNKNOWN,
               g_strdup_printf (_("the profile has no readable .parentlock: whether PID %d (at "
                                  "%s) has it open cannot be told"), recorded, other->host));
      return;
    }
  judge_kernel_lock (other, fd, TRUE);
  _fl_platform_close (fd);
  if (other->kernel_lock == FL_KERNEL_LOCK_FREE)
    verdict (other, FL_ENTRY_STATE_STALE, FL_LIVENESS_UNKNOWN,
             g_strdup (_("nobody holds the kernel lock on the profile's .parentlock: no Firefox "
                         "or Thunderbird has the profile open")));
  other->pid = recorded;
}

static gboolean
read_link (FlOtherLock *other,
           FlDir       *dir,
           const char  *name)
{
  return _fl_platform_readlink_at (dir, name, other->content, sizeof other->content,
                                   &other->content_len) == 0;
}

/* The head of a regular file, past the judge's 64 bytes: a LibreOffice line is longer. */
static gboolean
read_head (FlOtherLock *other,
           FlEvidence *state)
{
  gsize n = 0;

  if (state->fd == FL_HANDLE_NONE ||
      _fl_platform_read_head (state->fd, other->content, FL_OTHER_CONTENT_MAX, &n) != 0)
    return FALSE;
  other->content_len = n;
  other->content[n] = '\0';
  return TRUE;
}

static gboolean
is_empty (FlEvidence *state)
{
  return state->fd != FL_HANDLE_NONE && state->info.size == 0;
}

gboolean
_fl_other_lock_is_gits (FlEvidence *state,
                        const char  *dir_path)
{
  /* A libfl holder's lock under .git names its PID, and stays ours. */
  return state->kind == FL_ENTRY_LOCK && state->content_kind != FL_CONTENT_PID &&
         format_by_place (dir_path, state->name) == FL_LOCK_FORMAT_GIT;
}

FlOtherVerdict
_fl_other_lock_examine (FlOtherLock *other,
                        FlEvidence *state,
                        FlDir       *dir,
                        const char  *dir_path,
                        gint64       now_us)
{
  const char *name = state->name;
  gsize len = strlen (name);
  gboolean link = state->info.type == FL_FILE_SYMLINK;
  gboolean regular = state->info.type == FL_FILE_REGULAR && state->fd != FL_HANDLE_NONE;
  gint64 boot_s = 0;

  memset (other, 0, sizeof *other);
  other->format = format_by_place (dir_path, name);
  other->kernel_lock = FL_KERNEL_LOCK_UNKNOWN;
  other->state = FL_ENTRY_STATE_UNKNOWN;

  if (regular && _fl_other_lock_is_gits (state, dir_path))
    {
      /* Only for the snapshot's content: git's lock holds an index or a ref being written. */
      read_head (other, state);
      verdict (other, FL_ENTRY_STATE_UNKNOWN, FL_LIVENESS_UNKNOWN,
               g_strdup (_("git records no owner: it removes the file when its command ends")));
      return FL_OTHER_KNOWN;
    }
  if (!_fl_other_lock_name (name, len))
    return FL_OTHER_OURS;

  if (has_prefix (name, len, ".#") &&
      ((link && read_link (other, dir, name)) || (regular && read_head (other, state))) &&
      _fl_other_parse_emacs (other->content, other->content_len, other, &boot_s))
    {
      other->format = FL_LOCK_FORMAT_EMACS;
      other->target = g_build_filename (dir_path, name + 2, NULL);
      judge_emacs (other, &state->process, boot_s, state->changed_us, now_us);
      return FL_OTHER_KNOWN;
    }
  if (has_prefix (name, len, ".~lock.") && regular && read_head (other, state))
    {
      g_autofree char *locked = g_strndup (name + 7, len - 8);

      other->format = FL_LOCK_FORMAT_LIBREOFFICE;
      other->target = g_build_filename (dir_path, locked, NULL);
      _fl_other_parse_libreoffice (other->content, other->content_len, other);
      verdict (other, FL_ENTRY_STATE_UNKNOWN, FL_LIVENESS_UNKNOWN,
               g_strdup (_("LibreOffice records no PID: whether it still has the document open "
                           "can only be seen on the host it names")));
      return FL_OTHER_KNOWN;
    }
  if (is_name (name, len, "lock") && link && read_link (other, dir, name) &&
      _fl_other_parse_mozilla (other->content, other->content_len, other))
    {
      other->format = FL_LOCK_FORMAT_MOZILLA;
      judge_mozilla_link (other, dir);
      return FL_OTHER_KNOWN;
    }
  if (has_prefix (name, len, "LCK..") && regular && !is_empty (state) &&
      read_head (other, state) &&
      _fl_other_parse_uucp (other->content, other->content_len, &other->pid))
    {
      other->format = FL_LOCK_FORMAT_UUCP;
      judge_owner_process (other, &state->process, state->changed_us);
      return FL_OTHER_KNOWN;
    }
  if (regular && (other->format == FL_LOCK_FORMAT_DPKG || is_name (name, len, ".parentlock") ||
                  (is_empty (state) && !has_prefix (name, len, ".#") &&
                   !has_prefix (name, len, ".~lock."))))
    {
      if (other->format != FL_LOCK_FORMAT_DPKG)
        other->format = is_name (name, len, ".parentlock") ? FL_LOCK_FORMAT_MOZILLA
                                                           : FL_LOCK_FORMAT_FLOCK;
      read_head (other, state);
      judge_kernel_lock (other, state->fd, FALSE);
      return FL_OTHER_KNOWN;
    }

  other->format = FL_LOCK_FORMAT_LIBFL;
  return FL_OTHER_NOT_A_LOCK;
}

void
_fl_other_lock_clear (FlOtherLock *other)
{
  g_clear_pointer (&other->target, g_free);
  g_clear_pointer (&other->user, g_free);
  g_clear_pointer (&other->full_name, g_free);
  g_clear_pointer (&other->host, g_free);
  g_clear_pointer (&other->reason, g_free);
}
