/* fl-judge.c: is this lock's holder alive? Steps J3 and J4 (docs/protocol.md, section 2);
 * the evidence they weigh is read by fl-evidence.c (J1, J2)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-format-private.h"
#include "protocol/fl-judge-private.h"
#include "fl-options-private.h"

/* Only for the wording of a verdict, never for the verdict: a process that started this much
 * after the file was written is said to have "started after it" (docs/protocol.md, J4). */
#define STARTED_AFTER_US G_USEC_PER_SEC

char *
_fl_evidence_describe_holder (FlEvidence *self)
{
  if (self->pid <= 0)
    return g_strdup (_("an unknown process"));
  if (self->process.name != NULL)
    return g_strdup_printf ("PID %d (%s)", self->pid, self->process.name);
  return g_strdup_printf ("PID %d", self->pid);
}

/* Step J3. */
static void
probe_kernel_lock (FlEvidence *self,
                   FlProbeMode  mode)
{
  if (mode == FL_PROBE_EXCLUSIVE)
    {
      int err = _fl_platform_kernel_lock (self->fd, FL_KERNEL_EXCLUSIVE);

      if (err == 0)
        {
          self->holds_exclusive = TRUE;
          self->kernel_lock = FL_KERNEL_LOCK_FREE;
          return;
        }
      if (err != EWOULDBLOCK)
        {
          /* ENOLCK, EINVAL, EOPNOTSUPP: no kernel locks here, so PID rules decide, and a
           * takeover has only the original protocol's guarantees (docs/protocol.md, 9). */
          self->no_kernel_locks = TRUE;
          self->kernel_lock = FL_KERNEL_LOCK_UNKNOWN;
          return;
        }
      /* Refused: a holder's LOCK_EX, another taker's, or only others' LOCK_SH? Then nobody
       * holds LOCK_EX, so no live libfl holder does; we keep our LOCK_SH for the claim
       * (docs/protocol.md, section 4, C1-C3). */
      if (_fl_platform_kernel_lock (self->fd, FL_KERNEL_SHARED) == 0)
        {
          self->only_probers = TRUE;
          self->kernel_lock = FL_KERNEL_LOCK_FREE;
          return;
        }
      self->kernel_lock = FL_KERNEL_LOCK_HELD;
      return;
    }

  /* An inspector's probe is not dropped with LOCK_UN: its caller closes the file right after
   * judging, which drops it, and a scan of 100,000 files saves as many system calls. */
  switch (_fl_platform_kernel_lock (self->fd, FL_KERNEL_SHARED))
    {
    case 0:
      self->kernel_lock = FL_KERNEL_LOCK_FREE;
      break;
    case EWOULDBLOCK:
      self->kernel_lock = FL_KERNEL_LOCK_HELD;
      break;
    default:
      self->kernel_lock = FL_KERNEL_LOCK_UNKNOWN;
    }
}

/* An inspector judging a directory asks about the same few holders thousands of times: it may
 * reuse an answer for a moment. An acquirer never does; it acts on what it sees. */
static void
probe_process (FlEvidence *self,
               FlProbeMode  mode)
{
  if (mode == FL_PROBE_SHARED)
    _fl_process_probe_cached (self->pid, &self->process);
  else
    _fl_process_probe (self->pid, FALSE, &self->process);
}

/* Two questions per filesystem rather than per file: a thread remembers the last one's
 * answers (whose PIDs its locks may hold, and what its kernel locks prove). An unanswered
 * question is not remembered: a FUSE daemon that answers by path fails it for a lock released
 * a moment ago, and its cautious answers would stand for every later lock there. */
static void
note_filesystem (FlEvidence *self)
{
  static _Thread_local guint64 last_dev;
  static _Thread_local gboolean last_known;
  static _Thread_local bool last_remote;
  static _Thread_local FlFsLocks last_fs_locks;
  bool remote;

  if (last_known && last_dev == self->info.id.dev)
    {
      self->remote = last_remote;
      self->fs_locks = last_fs_locks;
      return;
    }

  if (_fl_platform_file_fs (self->fd, &self->fs_locks, &remote) != 0)
    {
      self->remote = remote;  /* the cautious answers, for this file only */
      return;
    }
  self->remote = remote;
  last_remote = remote;
  last_fs_locks = self->fs_locks;
  last_dev = self->info.id.dev;
  last_known = TRUE;
}

static void
verdict (FlEvidence *self,
         FlLiveness   liveness,
         gboolean     stale,
         char        *reason)
{
  self->liveness = liveness;
  self->stale = stale;
  g_free (self->reason);
  self->reason = reason;
}

/* Where the identity was written (docs/protocol.md, section 2). Whether the file is remote is
 * asked here, once per filesystem, since the held branch does not reach judge_lock's. */
static FlWritten
written (FlEvidence *self)
{
  if (self->fd != FL_HANDLE_NONE)
    note_filesystem (self);
  return _fl_identity_written (&self->identity, self->remote);
}

/* Whether the running process's start ticks can prove that it is not the one that wrote. */
static gboolean
ticks_differ (FlEvidence *self)
{
  return self->process.start_ticks != 0 && _fl_identity_ticks_comparable (&self->identity) &&
         self->process.start_ticks != self->identity.start_ticks;
}

/* "written by PID 18583 in another PID namespace: that PID means nothing here" */
static char *
describe_written_elsewhere (FlEvidence *self,
                            FlWritten    where)
{
  if (where == FL_WRITTEN_ELSEWHERE)
    return g_strdup_printf (_("written by PID %d of another boot or machine, over a network "
                              "filesystem: that PID means nothing here"), self->pid);
  return g_strdup_printf (_("written by PID %d in another PID namespace: that PID means nothing "
                            "here"), self->pid);
}

/* "PID 18583 is now another process (db-writer)", never the PID twice. */
static char *
describe_reused (FlEvidence *self)
{
  if (self->process.name != NULL)
    return g_strdup_printf (_("PID %d is now another process (%s)"), self->pid,
                            self->process.name);
  return g_strdup_printf (_("PID %d is now another process"), self->pid);
}

/* Step J4 for a PID without a kernel lock to go by. PID reuse is decided by the identity
 * alone (docs/protocol.md, "evidence"): file times can be set by anyone who can write the
 * file, and a clock step moves them too. @creator: the PID is a leftover's creator, not a
 * lock's holder (each sentence whole, for translators). */
static void
judge_pid (FlEvidence *self,
           gint64       now_us,
           gboolean     creator)
{
  g_autofree char *holder = NULL;
  g_autofree char *reused = NULL;

  switch (self->process.state)
    {
    case FL_PROCESS_GONE:
      verdict (self, FL_LIVENESS_DEAD, TRUE,
               creator
               ? g_strdup_printf (_("its creator PID %d is gone (no such process)"), self->pid)
               : g_strdup_printf (_("the holder PID %d is gone (no such process)"), self->pid));
      return;

    case FL_PROCESS_ZOMBIE:
      verdict (self, FL_LIVENESS_DEAD, TRUE,
               creator
               ? g_strdup_printf (_("its creator PID %d has exited (a zombie, not yet reaped)"),
                                  self->pid)
               : g_strdup_printf (_("the holder PID %d has exited (a zombie, not yet reaped)"),
                                  self->pid));
      return;

    case FL_PROCESS_UNKNOWN:
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE,
               creator
               ? g_strdup_printf (_("its creator PID %d cannot be probed"), self->pid)
               : g_strdup_printf (_("the holder PID %d cannot be probed"), self->pid));
      return;

    case FL_PROCESS_RUNNING:
    default:
      break;
    }

  holder = _fl_evidence_describe_holder (self);

  if (self->has_identity && self->identity.pid == self->pid)
    {
      /* After a reboot no process from before it can be running: the PID was reused. */
      if (written (self) == FL_WRITTEN_EARLIER_BOOT)
        {
          reused = describe_reused (self);
          /* TRANSLATORS: %s is "PID 18583 is now another process (db-writer)" */
          verdict (self, FL_LIVENESS_REUSED, TRUE,
                   g_strdup_printf (_("%s; the file was written before the last reboot: "
                                      "the PID was reused"), reused));
          return;
        }
      if (ticks_differ (self))
        {
          reused = describe_reused (self);
          /* TRANSLATORS: %s is "PID 18583 is now another process (db-writer)" */
          verdict (self, FL_LIVENESS_REUSED, TRUE,
                   g_strdup_printf (_("%s, started after the file was written: the PID was "
                                      "reused"), reused));
          return;
        }
    }

  if (self->process.start_ticks == 0)
    {
      verdict (self, FL_LIVENESS_ALIVE, FALSE,
               creator
               ? g_strdup_printf (_("its creator PID %d exists, but /proc cannot show it "
                                    "(hidden, missing or another PID namespace's): libfl calls "
                                    "it alive, as the original module does"), self->pid)
               : g_strdup_printf (_("the holder PID %d exists, but /proc cannot show it "
                                    "(hidden, missing or another PID namespace's): libfl calls "
                                    "it alive, as the original module does"), self->pid));
      return;
    }

  /* TRANSLATORS: in the next six messages, %s is "PID 18583 (db-writer)" or "PID 18583" */
  if (!self->has_identity && self->process.start_real_us > self->mtime_us + STARTED_AFTER_US)
    {
      verdict (self, FL_LIVENESS_ALIVE, FALSE,
               creator
               ? g_strdup_printf (_("its creator %s exists (started after the file was written: "
                                    "its PID may have been reused; libfl does not take over "
                                    "without proof, as the original module would call it "
                                    "alive)"), holder)
               : g_strdup_printf (_("the holder %s exists (started after the file was written: "
                                    "its PID may have been reused; libfl does not take over "
                                    "without proof, as the original module would call it "
                                    "alive)"), holder));
      return;
    }

  if (self->has_identity && self->identity.pid == self->pid &&
      !_fl_identity_ticks_comparable (&self->identity))
    {
      verdict (self, FL_LIVENESS_ALIVE, FALSE,
               creator
               ? g_strdup_printf (_("its creator %s is running; whether it is the process that "
                                    "wrote the file cannot be told (its start time was recorded "
                                    "in another time namespace, or by an older libfl): libfl "
                                    "calls it alive, as the original module does"), holder)
               : g_strdup_printf (_("the holder %s is running; whether it is the process that "
                                    "wrote the file cannot be told (its start time was recorded "
                                    "in another time namespace, or by an older libfl): libfl "
                                    "calls it alive, as the original module does"), holder));
      return;
    }

  verdict (self, FL_LIVENESS_ALIVE, FALSE,
           creator
           ? g_strdup_printf (_("its creator %s is running"), holder)
           : g_strdup_printf (_("the holder %s is running"), holder));
}

/* Content bytes for a message: escaped by length, so a NUL shows as \x00 and cuts nothing. */
static char *
escape_shown (const char *bytes,
              gsize       len,
              gsize       max)
{
  GString *out = g_string_new (NULL);

  for (gsize i = 0; i < MIN (len, max); i++)
    {
      guchar c = (guchar) bytes[i];

      if (c == '\\' || c == '"')
        g_string_append_printf (out, "\\%c", c);
      else if (c >= 0x20 && c < 0x7f)
        g_string_append_c (out, (char) c);
      else
        g_string_append_printf (out, "\\x%02x", c);
    }
  if (len > max)
    g_string_append (out, "…");
  return g_string_free (out, FALSE);
}

/* Why the file could not be opened, and who can do something about it. */
static char *
describe_open_error (FlEvidence *self)
{
  switch (self->open_errno)
    {
    case EACCES:
    case EPERM:
      /* The module would take it over by its mtime; libfl cannot without an fd: no kernel
       * lock to probe or keep, no proof the graveyard is this file (docs/protocol.md, J4). */
      return g_strdup_printf (_("cannot read the lock file (%s): the original module takes such "
                                "a lock over once its mtime is older than its staleAfterMs, but "
                                "libfl cannot see its kernel lock without opening it and never "
                                "takes it over: its owner (uid %u) or an administrator can run "
                                "flctl reclaim --force on it"), g_strerror (self->open_errno),
                              (guint) self->info.uid);
    case EMFILE:
    case ENFILE:
      return g_strdup_printf (_("cannot open the lock file: this process has too many open "
                                "files (%s): raise the limit (ulimit -n) or retry"),
                              g_strerror (self->open_errno));
    default:
      return g_strdup_printf (_("cannot open the lock file “%s”: %s"), self->path,
                              g_strerror (self->open_errno));
    }
}

/* The holder self->pid has exited while its kernel lock is held: a process it passed the
 * descriptor to keeps it (flctl run's command, a forked child). Named when it can be found
 * among the open files of the processes this user may look into. */
static char *
describe_keepers (FlEvidence *self)
{
  g_autoptr(GArray) keepers = NULL;
  FlProcessInfo keeper;
  gboolean complete = FALSE;

  keepers = _fl_process_file_keepers (&self->info.id, &complete);
  if (keepers->len == 0)
    return complete
           ? g_strdup_printf (_("held: PID %d has exited, but its kernel lock is kept by a "
                                "process that inherited the descriptor (a child of PID %d)"),
                              self->pid, self->pid)
           : g_strdup_printf (_("held: PID %d has exited, but its kernel lock is kept by a "
                                "process that inherited the descriptor (a child of PID %d), "
                                "which this user cannot name: run as root to name it"),
                              self->pid, self->pid);

  self->keeper_pid = g_array_index (keepers, int, 0);
  _fl_process_probe (self->keeper_pid, FALSE, &keeper);
  self->keeper_name = g_strdup (keeper.name);
  _fl_process_info_clear (&keeper);
  if (self->keeper_name != NULL)
    return g_strdup_printf (_("held: PID %d has exited, but its kernel lock is kept by PID %d "
                              "(%s), which inherited the descriptor: the lock is released when "
                              "it exits (kill %d)"), self->pid, self->keeper_pid,
                            self->keeper_name, self->keeper_pid);
  return g_strdup_printf (_("held: PID %d has exited, but its kernel lock is kept by PID %d, "
                            "which inherited the descriptor: the lock is released when it exits "
                            "(kill %d)"), self->pid, self->keeper_pid, self->keeper_pid);
}

/* The held branch for an inspector: who really keeps the kernel lock? An acquirer skips
 * this, so a contended acquire stays one kernel-lock probe (docs/protocol.md, J4). */
static void
judge_held_for_inspector (FlEvidence *self)
{
  g_autofree char *holder = NULL;
  FlWritten where = FL_WRITTEN_HERE;
  gboolean gone;

  _fl_evidence_read_identity (self);
  if (self->has_identity)
    where = written (self);
  if (where == FL_WRITTEN_OTHER_PIDNS || where == FL_WRITTEN_ELSEWHERE)
    {
      /* Its PID is another namespace's: probing it here would name an unrelated process. */
      verdict (self, FL_LIVENESS_ALIVE, FALSE,
               where == FL_WRITTEN_ELSEWHERE
               ? g_strdup_printf (_("held by a process of another boot or machine (PID %d "
                                    "there), which keeps its kernel lock on the file"), self->pid)
               : g_strdup_printf (_("held by a process in another PID namespace (PID %d there), "
                                    "which keeps its kernel lock on the file"), self->pid));
      return;
    }

  _fl_process_probe (self->pid, FALSE, &self->process);
  gone = self->process.state == FL_PROCESS_GONE || self->process.state == FL_PROCESS_ZOMBIE ||
         where == FL_WRITTEN_EARLIER_BOOT || (self->has_identity && ticks_differ (self));
  if (gone)
    {
      /* Whatever runs under that PID now is not the holder: do not show its name. */
      _fl_process_info_clear (&self->process);
      memset (&self->process, 0, sizeof self->process);
      self->process.uid = -1;
      self->holder_exited = TRUE;
      verdict (self, FL_LIVENESS_ALIVE, FALSE, describe_keepers (self));
      return;
    }

  holder = _fl_evidence_describe_holder (self);
  if (self->process.stopped)
    verdict (self, FL_LIVENESS_ALIVE, FALSE,
             /* TRANSLATORS: %s is "PID 18583 (db-writer)", "PID 18583" or "an unknown process" */
             g_strdup_printf (_("held: %s keeps its kernel lock on the file, but it is stopped "
                                "(SIGSTOP): the lock stays held until it is continued (kill "
                                "-CONT %d) or killed"), holder, self->pid));
  else
    verdict (self, FL_LIVENESS_ALIVE, FALSE,
             /* TRANSLATORS: %s is "PID 18583 (db-writer)", "PID 18583" or "an unknown process" */
             g_strdup_printf (_("held: %s keeps its kernel lock on the file"), holder));
}

/* Empty content, and content the module calls dead at once (NaN, <= 0, Infinity): stale once
 * older than stale_after, counted from the last change, which touch cannot move back; the
 * module goes by the mtime alone (empty) or takes it over at once (docs/protocol.md, J4). */
static void
judge_by_age (FlEvidence          *self,
              const FlLockOptions *options,
              gint64               now_us,
              const char          *shown)
{
  gint64 stale_after_us = _fl_lock_options_stale_after_us (options);
  gboolean empty = self->content_kind == FL_CONTENT_EMPTY;
  g_autofree char *limit = NULL;

  if (stale_after_us == G_MAXINT64)
    {
      /* FL_STALE_NEVER: such a lock is left to an operator. */
      self->stale_at_us = 0;
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE,
               empty
               ? g_strdup (_("the lock file is empty, and this lock's options say such a lock "
                             "is never stale by age; if no process holds it, an operator can "
                             "reclaim it with flctl reclaim --force"))
               : g_strdup_printf (_("the content is not a PID (“%s”), and this lock's options "
                                    "say such a lock is never stale by age; if no process holds "
                                    "it, an operator can reclaim it with flctl reclaim --force"),
                                  shown));
      return;
    }

  limit = _fl_format_age (stale_after_us);
  self->stale_at_us = _fl_lock_options_stale_at_us (options, self->changed_us);
  verdict (self, FL_LIVENESS_UNKNOWN, now_us >= self->stale_at_us,
           empty
           /* TRANSLATORS: %s is an age, such as "5 min" */
           ? g_strdup_printf (_("the lock file is empty (as flock(1) and other tools leave "
                                "one): the original module takes it over once its mtime is "
                                "older than its staleAfterMs; libfl once older than %s, counted "
                                "from its last change, which touch cannot move back"), limit)
           /* TRANSLATORS: the second %s is an age, such as "5 min" */
           : g_strdup_printf (_("the content is not a PID (“%s”): the original module takes it "
                                "over at once; libfl once older than %s, counted from its last "
                                "change, which touch cannot move back"), shown, limit));
}

/* Step J4 for content that names no single process (docs/protocol.md, the J4 table). */
static void
judge_not_a_pid (FlEvidence          *self,
                 const FlLockOptions *options,
                 gint64               now_us)
{
  g_autofree char *shown = escape_shown (self->content, self->content_len, 24);

  switch (self->content_kind)
    {
    case FL_CONTENT_NO_SUCH_PID:
      verdict (self, FL_LIVENESS_DEAD, TRUE,
               g_strdup_printf (_("the holder PID %lld (“%s”) is beyond the kernel's PID range "
                                  "(%d): no such process"), (long long) self->content_value,
                                shown, FL_PID_MAX));
      return;

    case FL_CONTENT_NOT_INT32:
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE,
               g_strdup_printf (_("the content “%s” is a positive number but no whole number "
                                  "of 32 bits: the original module's process.kill() refuses it, "
                                  "and the module calls the holder alive for ever. libfl never "
                                  "takes it over by itself; if no process holds it, an operator "
                                  "can reclaim it with flctl reclaim --force"), shown));
      return;

    case FL_CONTENT_UNTOLD:
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE,
               g_strdup_printf (_("the content (“%s”) is longer than %d bytes and could still "
                                  "name a PID to the original module: libfl never takes it "
                                  "over by itself; if no process holds it, an operator can "
                                  "reclaim it with flctl reclaim --force"), shown,
                                FL_CONTENT_MAX));
      return;

    case FL_CONTENT_EMPTY:
    case FL_CONTENT_NOT_PID:
    case FL_CONTENT_PID:
    default:
      judge_by_age (self, options, now_us, shown);
      return;
    }
}

static void
judge_lock (FlEvidence          *self,
            FlProbeMode          mode,
            const FlLockOptions *options,
            gint64               now_us)
{
  FlWritten where = FL_WRITTEN_HERE;
  char *reason;

  self->pid = self->content_pid;

  /* The hot path of a contended acquire: a held lock needs no more evidence. Only an
   * inspector wants the holder's name, so only it pays for reading /proc. */
  if (self->kernel_lock == FL_KERNEL_LOCK_HELD)
    {
      if (mode == FL_PROBE_SHARED && self->pid > 0)
        judge_held_for_inspector (self);
      else
        verdict (self, FL_LIVENESS_ALIVE, FALSE,
                 self->pid > 0
                 ? g_strdup_printf (_("held: PID %d keeps its kernel lock on the file"),
                                    self->pid)
                 : g_strdup (_("held: a process keeps its kernel lock on the file")));
      return;
    }

  if (self->pid > 0)
    probe_process (self, mode);
  if (self->fd != FL_HANDLE_NONE)
    note_filesystem (self);
  _fl_evidence_read_identity (self);
  if (self->has_identity)
    where = written (self);

  /* A free kernel lock proves the holder gone only where the holder said it took one that
   * every opener of the name sees (its identity's flag, step A3b), and only where this
   * filesystem does not give another mount or link of the file another kernel inode: through
   * an overlayfs or FUSE mount of a directory whose holder locked through the lower one, the
   * holder's lock is not ours to see (docs/protocol.md, section 2, "Filesystems"). */
  if (self->kernel_lock == FL_KERNEL_LOCK_FREE && self->has_identity &&
      self->identity.kernel_lock && self->fs_locks != FL_FS_LOCKS_UNTRUSTED)
    {
      if (where == FL_WRITTEN_ELSEWHERE || (where == FL_WRITTEN_OTHER_PIDNS && self->remote))
        {
          verdict (self, FL_LIVENESS_UNKNOWN, FALSE,
                   where == FL_WRITTEN_ELSEWHERE
                   ? g_strdup_printf (_("written by PID %d of another boot or machine, over a "
                                        "network filesystem: its kernel lock cannot be seen "
                                        "from here"), self->pid)
                   : g_strdup_printf (_("written by PID %d in another PID namespace over a "
                                        "network filesystem: its kernel lock cannot be seen "
                                        "from here"), self->pid));
          return;
        }

      /* A running holder beside its free kernel lock says "it closed the descriptor": not
       * on a remembered answer, which may be from before the holder died (the kernel frees
       * the lock as it exits, after the process is marked exiting). */
      if (mode == FL_PROBE_SHARED && self->process.state != FL_PROCESS_GONE &&
          self->process.state != FL_PROCESS_ZOMBIE)
        {
          _fl_process_info_clear (&self->process);
          probe_process (self, FL_PROBE_EXCLUSIVE);  /* uncached: as a taker asks */
        }

      switch (self->process.state)
        {
        case FL_PROCESS_GONE:
        case FL_PROCESS_ZOMBIE:
          reason = g_strdup_printf (_("stale: PID %d no longer holds its kernel lock: it has "
                                      "exited"), self->pid);
          self->liveness = FL_LIVENESS_DEAD;
          break;
        default:
          if (where == FL_WRITTEN_OTHER_PIDNS)
            {
              reason = g_strdup_printf (_("stale: PID %d no longer holds its kernel lock: it "
                                          "has exited"), self->pid);
              self->liveness = FL_LIVENESS_UNKNOWN;
            }
          else if (where == FL_WRITTEN_EARLIER_BOOT || ticks_differ (self))
            {
              reason = g_strdup_printf (_("stale: PID %d no longer holds its kernel lock: it "
                                          "has exited, and its PID was reused"), self->pid);
              self->liveness = FL_LIVENESS_REUSED;
            }
          else
            {
              reason = g_strdup_printf (_("stale: PID %d no longer holds its kernel lock: it "
                                          "closed the descriptor or called exec()"), self->pid);
              self->liveness = FL_LIVENESS_ALIVE;
            }
          break;
        }
      verdict (self, self->liveness, TRUE, reason);
      return;
    }

  if (self->fd == FL_HANDLE_NONE)
    {
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE, describe_open_error (self));
      return;
    }

  if (self->content_kind != FL_CONTENT_PID)
    {
      judge_not_a_pid (self, options, now_us);
      return;
    }

  if (where == FL_WRITTEN_OTHER_PIDNS || where == FL_WRITTEN_ELSEWHERE)
    {
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE, describe_written_elsewhere (self, where));
      return;
    }

  if (!self->has_identity && self->remote)
    {
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE,
               g_strdup_printf (_("on a network filesystem PID %d may belong to another host: "
                                  "libfl does not take it over by itself; if its holder is "
                                  "gone, an operator can reclaim it with flctl reclaim "
                                  "--force"), self->pid));
      return;
    }

  judge_pid (self, now_us, FALSE);
  if (!self->stale && self->kernel_lock == FL_KERNEL_LOCK_FREE &&
      self->fs_locks == FL_FS_LOCKS_UNTRUSTED)
    {
      /* TRANSLATORS: %s is why the holder is alive, such as "the holder PID 18583 (db-writer)
       * is running" */
      char *unseen = g_strdup_printf (_("%s; a kernel lock is not seen through this filesystem "
                                        "(FUSE, overlayfs or a network filesystem: another "
                                        "mount or link of the file may be another inode), so "
                                        "libfl goes by the PID, as the original module does"),
                                      self->reason);
      g_free (self->reason);
      self->reason = unseen;
    }
}

static void
judge_leftover (FlEvidence *self,
                FlProbeMode  mode,
                gint64       now_us)
{
  self->pid = self->name_info.creator_pid;
  probe_process (self, mode);
  if (self->kernel_lock != FL_KERNEL_LOCK_HELD)
    _fl_evidence_read_identity (self);

  if (self->kernel_lock == FL_KERNEL_LOCK_HELD)
    {
      verdict (self, FL_LIVENESS_ALIVE, FALSE,
               g_strdup (_("in use: a process keeps its kernel lock on the file")));
      return;
    }

  if (self->kind == FL_ENTRY_TEMP && self->has_identity && self->identity.pid == self->pid)
    {
      FlWritten where = written (self);

      if (where == FL_WRITTEN_OTHER_PIDNS || where == FL_WRITTEN_ELSEWHERE)
        {
          verdict (self, FL_LIVENESS_UNKNOWN, FALSE, describe_written_elsewhere (self, where));
          return;
        }
    }
  else
    self->has_identity = FALSE;  /* a graveyard's identity is its dead lock's, not its maker's */

  judge_pid (self, now_us, TRUE);
  if (self->stale)
    {
      /* TRANSLATORS: %s is why its creator is gone, such as "its creator PID 18583 is gone (no
       * such process)" */
      char *orphan = g_strdup_printf (_("orphan: %s"), self->reason);
      g_free (self->reason);
      self->reason = orphan;
    }
}

char *
_fl_evidence_describe_shared (FlEvidence *self,
                              gboolean     known)
{
  g_autoptr(GArray) pids = _fl_process_kernel_lock_holders (&self->info.id, TRUE);
  g_autoptr(GString) names = g_string_new (NULL);

  if (pids == NULL || pids->len == 0)
    return known ? g_strdup (_("another process holds a shared lock on the file")) : NULL;

  for (guint i = 0; i < pids->len; i++)
    {
      int pid = g_array_index (pids, int, i);
      FlProcessInfo info;

      _fl_process_probe (pid, FALSE, &info);
      if (i > 0)
        /* TRANSLATORS: joins the last two PIDs of a list, "18583, 18590 and 18602" */
        g_string_append (names, i + 1 == pids->len ? _(" and ") : ", ");
      g_string_append_printf (names, "%d", pid);
      if (info.name != NULL)
        g_string_append_printf (names, " (%s)", info.name);
      _fl_process_info_clear (&info);
    }

  if (pids->len == 1)
    return g_strdup_printf (_("a process with PID %s holds a shared lock on the file"),
                            names->str);
  return g_strdup_printf (_("processes with PIDs %s hold shared locks on the file"), names->str);
}

void
_fl_evidence_judge (FlEvidence          *self,
                    FlProbeMode          mode,
                    const FlLockOptions *options,
                    gint64               now_us,
                    gboolean             details)
{
  self->kernel_lock = FL_KERNEL_LOCK_UNKNOWN;

  if (self->kind == FL_ENTRY_FOREIGN)
    {
      /* What it is was said when it was looked at (fl-evidence.c); a file replaced by a link
       * between the look and the open was not looked at as one. */
      verdict (self, FL_LIVENESS_UNKNOWN, FALSE,
               self->reason != NULL ? g_steal_pointer (&self->reason)
                                    : _fl_describe_foreign_reason (self->info.type, NULL));
      return;
    }

  /* Never on a temp: its creator takes LOCK_EX on it right after creating it (step A2), and
   * any shared lock taken in between, ours included, would make it start over (issue 13). A
   * temp is judged by its creator and identity alone; removing a live creator's temp costs it
   * one more temp, never a lock (it links only a temp it still has, by name or by fd). */
  if (self->fd != FL_HANDLE_NONE && self->kind != FL_ENTRY_TEMP)
    probe_kernel_lock (self, mode);

  if (self->kind == FL_ENTRY_LOCK)
    judge_lock (self, mode, options, now_us);
  else
    judge_leftover (self, mode, now_us);

  /* Issue 18: a stale file's status says who else holds LOCK_SH on it, and that this does not
   * stop a takeover. Only for a stale file with details: /proc/locks is one read per call, too
   * much for every file of a large scan. */
  if (details && self->stale && self->fd != FL_HANDLE_NONE && self->kernel_lock == FL_KERNEL_LOCK_FREE)
    {
      g_autofree char *shared = _fl_evidence_describe_shared (self, FALSE);

      if (shared != NULL)
        {
          /* TRANSLATORS: the first %s is the verdict's reason, the second says who holds a
           * shared lock, such as "a process with PID 18583 holds a shared lock on the file" */
          char *reason = g_strdup_printf (_("%s; %s, which does not keep it from being taken "
                                            "over"), self->reason, shared);
          g_free (self->reason);
          self->reason = reason;
        }
    }

  if (details && self->pid > 0 && self->process.state == FL_PROCESS_RUNNING)
    {
      FlProcessInfo info;

      _fl_process_probe (self->pid, TRUE, &info);
      if (info.state == FL_PROCESS_RUNNING && info.start_ticks == self->process.start_ticks)
        {
          _fl_process_info_clear (&self->process);
          self->process = info;
        }
      else
        _fl_process_info_clear (&info);
    }
}
