/* fl-acquire.c: acquire, steps A1-A5 of docs/protocol.md (section 3), waiting for a live
 * holder (section 5) and the directory replaced meanwhile (section 3a)
 *
 * One function per step, named as the document names it; each returns the step to go to next,
 * and _fl_acquire() is the loop that runs them. The acquire's state is one struct, as libuv
 * keeps an operation's state in its request.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-format-private.h"
#include "protocol/fl-acquire-private.h"
#include "protocol/fl-dir-cache-private.h"
#include "fl-error-private.h"
#include "protocol/fl-judge-private.h"
#include "protocol/fl-lock-private.h"
#include "fl-options-private.h"
#include "protocol/fl-other-locks-private.h"
#include "protocol/fl-takeover-private.h"
#include "protocol/fl-temp-private.h"
#include "support/fl-waiter-private.h"

/* Section 3a: a lock is on the directory that is at the path when the lock is granted. After
 * this many replacements in one acquire, someone keeps replacing it. */
#define FL_DIRECTORY_MOVES_MAX 8

/* The last live holder judged, for the messages of a try-acquire and of a timeout. */
typedef struct
{
  int     pid;
  char   *holder;
  gint64  mtime_us;
  char   *reason;
} LastHolder;

/* One acquire, from A1 to a held lock or an error. */
typedef struct
{
  /* What was asked */
  const FlLockOptions *options;
  gboolean             wait;      /* FALSE: a try-acquire, which never waits for a holder */
  GCancellable        *cancellable;
  gint64               start;     /* monotonic */
  gint64               deadline;  /* monotonic; -1 for none; the start for a try-acquire */

  /* The directory the steps act in (section 3a) */
  FlLockPath  lp;
  FlDir      *dir;
  /* kept open since an earlier release (fl-dir-cache.c) and not yet known to be the directory
   * at the path: nothing is decided in it; a step that fails or finds the lock held there
   * looks at the path first */
  gboolean    dir_kept;
  guint       moves;     /* directories replaced at the path during this acquire */

  /* Steps A2, A3 */
  FlTemp      temp;
  gboolean    named;     /* make the named temp, not O_TMPFILE */
  FlFileInfo  granted;   /* the lock file's information, once linked */
  /* Steps A4, A5 */
  gboolean    claimed;   /* went the claim way (section 4): step CL once held */
  FlEvidence judged;    /* T.lock as A4 judged it, for A5 */
  LastHolder  last;
  FlWaiter   *waiter;    /* armed before the link that may fail again, so no release is missed */
} Acquire;

typedef enum
{
  STEP_A1,
  STEP_A2,
  STEP_A3,
  STEP_A4,
  STEP_A5,
  STEP_HELD,
  STEP_FAILED,
} Step;

static void
last_holder_clear (LastHolder *last)
{
  g_clear_pointer (&last->holder, g_free);
  g_clear_pointer (&last->reason, g_free);
}

static void
last_holder_remember (LastHolder  *last,
                      FlEvidence *state)
{
  last_holder_clear (last);
  last->pid = state->pid;
  last->mtime_us = state->mtime_us;
  last->reason = g_strdup (state->reason);
}

/* For messages only: the contended path does not read /proc for names. */
static const char *
last_holder_describe (LastHolder *last)
{
  if (last->holder == NULL)
    {
      FlProcessInfo info;

      _fl_process_probe (last->pid, FALSE, &info);
      if (last->pid <= 0)
        last->holder = g_strdup (_("an unknown process"));
      else if (info.name != NULL)
        last->holder = g_strdup_printf ("PID %d (%s)", last->pid, info.name);
      else
        last->holder = g_strdup_printf ("PID %d", last->pid);
      _fl_process_info_clear (&info);
    }
  return last->holder;
}

/* Step A1 */
FlDir *
_fl_open_lock_directory (const char  *directory,
                         gboolean     create_dirs,
                         GError     **error)
{
  FlDir *dir = NULL;
  int saved_errno = _fl_platform_dir_open (directory, create_dirs, &dir);

  if (saved_errno != 0)
    {
      if (saved_errno == ENOENT)
        g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                     _("The lock directory “%s” does not exist: create it first"), directory);
      else if (saved_errno == ENOTDIR)
        g_set_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY,
                     _("The lock directory “%s” is not a directory: the target's parent must be "
                       "a directory"), directory);
      else
        _fl_set_error_from_errno (error, saved_errno, _("open the lock directory"),
                                  directory);
    }

  return dir;
}

/* Forgets the lock A4 judged, to the last field: the judge fills a state that starts out
 * empty, and a verdict left from an earlier round (stale, holds_exclusive...) must never
 * count in the next one. Closing the file drops any kernel lock we took on it. */
static void
judged_clear (Acquire *self)
{
  _fl_evidence_clear (&self->judged);
  self->judged = (FlEvidence) { .fd = FL_HANDLE_NONE };
}

/* Leaves the directory the steps acted in, with its temp and its watch. Any claims we left
 * are in it. */
static void
leave_directory (Acquire *self)
{
  _fl_temp_discard (&self->temp, self->dir);
  g_clear_pointer (&self->waiter, _fl_waiter_free);
  g_clear_pointer (&self->dir, _fl_platform_dir_close);
  self->claimed = FALSE;
}

/* Step A1, and the way back to it when the directory at the path is another (section 3a).
 * The first time, the directory the last release kept will do until something is to be
 * decided in it. */
static Step
step_a1_open_directory (Acquire  *self,
                        GError  **error)
{
  gboolean first = self->dir == NULL;

  if (first)
    self->dir = _fl_dir_cache_take (self->lp.directory);
  else
    leave_directory (self);
  self->dir_kept = self->dir != NULL;
  if (self->dir == NULL)
    self->dir = _fl_open_lock_directory (self->lp.directory, self->options->create_dirs, error);
  return self->dir != NULL ? STEP_A2 : STEP_FAILED;
}

/* Step A2 (fl-temp.c). A kept directory may have been removed: the one at the path decides. */
static Step
step_a2_make_temp (Acquire  *self,
                   GError  **error)
{
  if (_fl_temp_create (&self->temp, self->dir, &self->lp, self->named, self->deadline,
                       self->cancellable, self->dir_kept ? NULL : error))
    return STEP_A3;
  return self->dir_kept ? STEP_A1 : STEP_FAILED;
}

/* Whether the lock at the path is the file we just linked: false once the directory at
 * lp->directory is no longer the one the link went into. The look follows the directory's
 * links as the open of step A1 did, never the lock's name; files are compared, never names.
 * One system call: the file's own information is needed anyway. */
static gboolean
lock_at_path (const FlLockPath *lp,
              const FlFileInfo *ours)
{
  FlFileInfo at_path;

  return _fl_platform_stat_path (lp->lock_path, &at_path) == 0 &&
         fl_file_id_equal (&at_path.id, &ours->id);
}

/* Whether @dir, kept open since an earlier acquire, is the directory at the path now: the
 * path's last component followed (as A1's open does) by looking at "DIR/.". Exact: our open
 * descriptor keeps the inode number from being reused. */
static gboolean
directory_at_path (FlDir            *dir,
                   const FlLockPath *lp)
{
  g_autofree char *dot = g_build_filename (lp->directory, ".", NULL);
  FlFileInfo ours, at_path;

  return _fl_platform_dir_info (dir, &ours) == 0 &&
         _fl_platform_stat_path (dot, &at_path) == 0 &&
         fl_file_id_equal (&ours.id, &at_path.id);
}

/* A3 linked our file: granted if the directory is still at the path (section 3a). If not, the
 * lock just linked in the old directory goes (R1-R3 on our own inode, under our own kernel
 * lock), and A1 opens the one at the path; a kept directory moved since is no replacement
 * during this acquire. */
static Step
a3_linked (Acquire  *self,
           GError  **error)
{
  if (_fl_platform_file_info (self->temp.fd, &self->granted) != 0)
    memset (&self->granted, 0, sizeof self->granted);  /* type 0: the file's id is unknown */
  else if (!lock_at_path (&self->lp, &self->granted))
    {
      _fl_platform_unlink_held (self->dir, self->lp.lock_name, self->temp.fd, NULL);
      _fl_platform_close (self->temp.fd);
      self->temp.fd = FL_HANDLE_NONE;
      if (!self->dir_kept && ++self->moves > FL_DIRECTORY_MOVES_MAX)
        {
          g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
                       _("Cannot lock “%s”: its directory “%s” was replaced %u times while this "
                         "process was acquiring it. A lock is on the directory that is at the "
                         "path when it is granted: stop whatever keeps moving the directory"),
                       self->lp.lock_path, self->lp.directory, self->moves);
          return STEP_FAILED;
        }
      return STEP_A1;
    }

  if (self->claimed)
    _fl_takeover_clear_claims (self->dir, self->lp.lock_name);  /* CL: safe only while held */
  return STEP_HELD;
}

/* A3 found T.lock: held by someone. Nothing is judged or waited for in a kept directory that
 * is no longer at the path. A waiter arms its watch before the link that may fail again. */
static Step
a3_exists (Acquire *self)
{
  if (self->dir_kept)
    {
      if (!directory_at_path (self->dir, &self->lp))
        return STEP_A1;
      self->dir_kept = FALSE;
    }

  if (self->wait && self->waiter == NULL)
    {
      gint64 backoff_min_us, backoff_max_us;

      _fl_lock_options_backoff_us (self->options, &backoff_min_us, &backoff_max_us);
      self->waiter = _fl_waiter_new (self->dir, self->lp.lock_name, backoff_min_us,
                                     backoff_max_us);
      return STEP_A3;
    }
  return STEP_A4;
}

/* Step A3, with A3b (fl-temp.c). A failure in a kept directory (perhaps removed) is asked of
 * the one at the path; where O_TMPFILE's link cannot be made, a named temp is. */
static Step
step_a3_link (Acquire  *self,
              GError  **error)
{
  FlLinkResult result;

  if (g_cancellable_set_error_if_cancelled (self->cancellable, error))
    return STEP_FAILED;

  result = _fl_temp_link (&self->temp, self->dir, &self->lp, self->dir_kept ? NULL : error);
  if (result == FL_LINK_HELD)
    return a3_linked (self, error);
  if (result == FL_LINK_EXISTS)
    return a3_exists (self);
  if (self->dir_kept)
    return STEP_A1;
  if (result == FL_LINK_FAILED)
    return STEP_FAILED;
  _fl_temp_discard (&self->temp, self->dir);
  self->named = TRUE;
  return STEP_A2;
}

/* What A4 never takes over, whatever its verdict: a name that is not a regular file (J1), and
 * git's lock file, named like ours (docs/other-lock-files.md). */
static gboolean
a4_refused (Acquire  *self,
            GError  **error)
{
  if (self->judged.kind == FL_ENTRY_FOREIGN)
    {
      g_autofree char *foreign = _fl_describe_foreign (self->lp.lock_path,
                                                       self->judged.info.type);

      g_set_error_literal (error, FL_ERROR, FL_ERROR_FOREIGN, foreign);
      return TRUE;
    }
  if (_fl_other_lock_is_gits (&self->judged, self->lp.directory))
    {
      g_set_error (error, FL_ERROR, FL_ERROR_FOREIGN,
                   _("“%s” is git's lock file (a git command is changing the repository): "
                     "libfl never takes it over. Wait for git to finish, or remove the file by "
                     "hand if no git process runs in that repository"), self->lp.lock_path);
      return TRUE;
    }
  return FALSE;
}

/* Step T6: closing the judged file drops our kernel lock on it; then A3. */
static Step
step_t6_close (Acquire *self)
{
  judged_clear (self);
  return STEP_A3;
}

/* A4's verdict is a live holder (or another taker's claim): a try-acquire fails, an acquire
 * waits. */
static Step
a4_held (Acquire  *self,
         GError  **error)
{
  last_holder_remember (&self->last, &self->judged);
  if (!self->wait)
    {
      g_autofree char *age = _fl_format_age (g_get_real_time () - self->judged.mtime_us);

      g_set_error (error, FL_ERROR, FL_ERROR_BUSY, _("“%s” is locked by %s since %s ago (%s)"),
                   self->lp.lock_path, last_holder_describe (&self->last), age,
                   self->judged.reason);
      return STEP_FAILED;
    }
  return STEP_A5;
}

/* Step A4: judge T.lock as a taker (J1-J2 in fl-evidence.c, J3-J4 in fl-judge.c); a stale lock
 * that we may act on (our LOCK_EX on it, no kernel locks here, or only shared holders, then by
 * the claim C1-C3) is taken over, T1-T5 (fl-takeover.c), then T6. */
static Step
step_a4_judge (Acquire  *self,
               GError  **error)
{
  FlEvidence *state = &self->judged;
  g_autoptr(GError) local_error = NULL;

  if (!_fl_evidence_open (state, self->dir, self->lp.directory, self->lp.lock_name,
                          &local_error))
    {
      judged_clear (self);
      if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return STEP_A3;  /* released meanwhile */
      g_propagate_error (error, g_steal_pointer (&local_error));
      return STEP_FAILED;
    }
  if (a4_refused (self, error))
    return STEP_FAILED;

  _fl_evidence_judge (state, FL_PROBE_EXCLUSIVE, self->options, g_get_real_time (), FALSE);

  if (!state->stale || !(state->holds_exclusive || state->no_kernel_locks ||
                         state->only_probers))
    {
      _fl_takeover_note_shared (state);
      return a4_held (self, error);
    }

  self->claimed = self->claimed || state->only_probers;
  _fl_platform_step_done ("A4");  /* stale, and ours to act on */
  switch (_fl_takeover (self->dir, self->lp.lock_name, state, error))
    {
    case FL_TAKEOVER_FAILED:
      return STEP_FAILED;
    case FL_TAKEOVER_CLAIMED:
      return a4_held (self, error);  /* another taker owns the claim: wait for it */
    case FL_TAKEOVER_DONE:
    case FL_TAKEOVER_CHANGED:
    case FL_TAKEOVER_RACED:
    default:
      return step_t6_close (self);
    }
}

/* When A5 wakes at the latest: the deadline, or the moment an unparsable lock becomes stale.
 * Saturated: a file time far in the future must not wrap the wait into the past. */
static gint64
a5_wake_at (Acquire *self)
{
  const FlEvidence *state = &self->judged;
  gint64 until = self->deadline;

  if (state->stale_at_us > 0 && state->stale_at_us < G_MAXINT64 && !state->stale)
    {
      gint64 left = state->stale_at_us - MIN (g_get_real_time (), state->stale_at_us);

      until = left < G_MAXINT64 / 4 ? g_get_monotonic_time () + left + 1000 : -1;
    }
  if (self->deadline >= 0)
    until = until < 0 ? self->deadline : MIN (until, self->deadline);
  return until;
}

static void
a5_set_timeout_error (Acquire  *self,
                      GError  **error)
{
  gint64 waited_us = g_get_monotonic_time () - self->start;
  /* A wait is often shorter than a second: say it in milliseconds then, not "0 s". */
  g_autofree char *waited = waited_us < G_USEC_PER_SEC
                            ? g_strdup_printf ("%d ms", (int) (waited_us / 1000))
                            : _fl_format_age (waited_us);
  g_autofree char *age = _fl_format_age (g_get_real_time () - self->last.mtime_us);

  g_set_error (error, FL_ERROR, FL_ERROR_TIMEOUT,
               _("Timed out (ELOCKTIMEOUT) after %s waiting for “%s”: held by %s for %s "
                 "(%s)"), waited, self->lp.lock_path, last_holder_describe (&self->last), age,
               self->last.reason);
}

/* Step A5: wait for an event (section 5), or the deadline; then A3. */
static Step
step_a5_wait (Acquire  *self,
              GError  **error)
{
  FlEvidence *state = &self->judged;
  gint64 until = a5_wake_at (self);
  FlWake wake;

  if (state->stale)
    _fl_waiter_watch_pid (self->waiter, 0);  /* another taker's claim: re-check with backoff */
  else if (state->kernel_lock == FL_KERNEL_LOCK_HELD || state->liveness == FL_LIVENESS_ALIVE)
    _fl_waiter_watch_pid (self->waiter, state->pid);
  /* A holder's kernel lock goes when its descriptor closes: the event that tells a waiter
   * when a child that inherited it exits, where the PID in the file is gone (section 5).
   * Only a libfl holder's: the original module's has no descriptor open. */
  _fl_waiter_watch_file (self->waiter, state->kernel_lock == FL_KERNEL_LOCK_HELD
                                       ? state->fd : FL_HANDLE_NONE);

  judged_clear (self);  /* never wait holding anything on the holder's file */

  wake = _fl_waiter_wait (self->waiter, until, self->cancellable);
  if (wake == FL_WAKE_CANCELLED)
    {
      g_cancellable_set_error_if_cancelled (self->cancellable, error);
      return STEP_FAILED;
    }
  if (wake == FL_WAKE_DEADLINE && self->deadline >= 0 &&
      g_get_monotonic_time () >= self->deadline)
    {
      a5_set_timeout_error (self, error);
      return STEP_FAILED;
    }
  return STEP_A3;
}

static gboolean
acquire_init (Acquire              *self,
              const char           *target,
              const FlLockOptions  *options,
              gboolean              wait,
              GCancellable         *cancellable,
              GError              **error)
{
  *self = (Acquire) {
    .options = _fl_lock_options_or_default (options),
    .cancellable = cancellable,
    .start = g_get_monotonic_time (),
    .temp = { .fd = FL_HANDLE_NONE },
    .named = _fl_temp_use_named (),
    .judged = { .fd = FL_HANDLE_NONE },
  };
  self->wait = wait && self->options->timeout_ms != 0;
  self->deadline = self->wait ? _fl_lock_options_deadline_us (self->options, self->start)
                              : self->start;
  return _fl_lock_path_init (&self->lp, target, error);
}

static void
acquire_hand_over (Acquire    *self,
                   FlAcquired *held)
{
  held->lp = self->lp;
  memset (&self->lp, 0, sizeof self->lp);
  held->dir = g_steal_pointer (&self->dir);
  held->fd = self->temp.fd;
  self->temp.fd = FL_HANDLE_NONE;
  held->info = self->granted;
  held->pid = self->temp.pid;
}

static void
acquire_clear (Acquire *self)
{
  judged_clear (self);
  if (self->dir != NULL)
    _fl_temp_discard (&self->temp, self->dir);  /* empty when the lock is held: it became it */
  g_clear_pointer (&self->waiter, _fl_waiter_free);  /* before the directory is anyone else's */
  if (self->dir != NULL)
    _fl_dir_cache_put (self->lp.directory, g_steal_pointer (&self->dir));
  last_holder_clear (&self->last);
  _fl_lock_path_clear (&self->lp);
}

gboolean
_fl_acquire (const char           *target,
             const FlLockOptions  *options,
             gboolean              wait,
             GCancellable         *cancellable,
             FlAcquired           *held,
             GError              **error)
{
  Acquire self;
  Step step = STEP_A1;

  if (!acquire_init (&self, target, options, wait, cancellable, error))
    {
      _fl_lock_path_clear (&self.lp);
      return FALSE;
    }

  while (step != STEP_HELD && step != STEP_FAILED)
    switch (step)
      {
      case STEP_A1: step = step_a1_open_directory (&self, error); break;
      case STEP_A2: step = step_a2_make_temp (&self, error); break;
      case STEP_A3: step = step_a3_link (&self, error); break;
      case STEP_A4: step = step_a4_judge (&self, error); break;
      case STEP_A5: step = step_a5_wait (&self, error); break;
      case STEP_HELD:
      case STEP_FAILED:
      default: g_assert_not_reached ();
      }

  if (step == STEP_HELD)
    acquire_hand_over (&self, held);
  acquire_clear (&self);
  return step == STEP_HELD;
}
