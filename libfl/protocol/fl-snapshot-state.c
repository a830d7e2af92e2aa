/* fl-snapshot-state.c: a snapshot's one verdict, the same short words for it in every view, and
 * an entry's kind from its name alone
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "protocol/fl-names-private.h"
#include "protocol/fl-other-locks-private.h"
#include "protocol/fl-snapshot-private.h"

/**
 * fl_snapshot_get_state:
 * @self: a snapshot
 *
 * The one verdict for the entry, as every view shows it (see #FlEntryState). A kernel lock that
 * is held makes a lock held even when its PID cannot be seen from here: the kernel lock is
 * exact. Missing evidence gives %FL_ENTRY_STATE_UNKNOWN, never stale.
 *
 * Returns: the state, as judged when the snapshot was taken
 *
 * Since: 0.1
 */
FlEntryState
fl_snapshot_get_state (FlSnapshot *self)
{
  gboolean is_lock;

  g_return_val_if_fail (FL_IS_SNAPSHOT (self), FL_ENTRY_STATE_UNKNOWN);

  if (self->kind == FL_ENTRY_FOREIGN)
    return FL_ENTRY_STATE_FOREIGN;
  if (self->kind == FL_ENTRY_OTHER_PROGRAM)
    return self->other_state;
  is_lock = self->kind == FL_ENTRY_LOCK;
  if (self->stale)
    return is_lock ? FL_ENTRY_STATE_STALE : FL_ENTRY_STATE_ORPHAN;
  /* An etcd waiter is a live participant that does not hold the lock. */
  if (self->waiting && self->liveness == FL_LIVENESS_ALIVE)
    return FL_ENTRY_STATE_ACTIVE;
  if (self->liveness == FL_LIVENESS_ALIVE || self->kernel_lock == FL_KERNEL_LOCK_HELD)
    return is_lock ? FL_ENTRY_STATE_HELD : FL_ENTRY_STATE_ACTIVE;
  return FL_ENTRY_STATE_UNKNOWN;
}

/**
 * fl_snapshot_dup_state_summary:
 * @self: a snapshot
 *
 * The state with its short reason, translated, as the inspector's State column and flctl's
 * text output show it: "Stale: holder exited", "Unknown: no PID yet". Each reason is true of
 * the snapshot's evidence: "no PID yet" only for an empty file, "PID reused" only when a
 * process with that PID runs and started after the file was written.
 *
 * Returns: (transfer full): the text; free it with g_free()
 *
 * Since: 0.1
 */
char *
fl_snapshot_dup_state_summary (FlSnapshot *self)
{
  FlLiveness liveness;
  const char *content;
  gboolean other;

  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);

  liveness = fl_snapshot_get_liveness (self);
  content = fl_snapshot_get_content (self);

  if (_fl_snapshot_has_traits (self, FL_SNAPSHOT_LEASED))
    {
      if (fl_snapshot_get_state (self) == FL_ENTRY_STATE_UNKNOWN)
        return g_strdup (_("Unknown: lease expired"));
      if (self->holder_exited)
        return g_strdup (_("Held: holder exited"));
      return g_strdup (self->waiting ? _("Waiting") : _("Held"));
    }

  /* Another program's lock file has reasons of its own: its format's evidence (docs/
   * other-lock-files.md); its states are only held, stale, free and unknown. */
  other = self->kind == FL_ENTRY_OTHER_PROGRAM;

  switch (fl_snapshot_get_state (self))
    {
    case FL_ENTRY_STATE_HELD:
      return g_strdup (_("Held"));
    case FL_ENTRY_STATE_ACTIVE:
      return g_strdup (_("Being written"));
    case FL_ENTRY_STATE_FOREIGN:
      return g_strdup (_("Foreign: not a file"));
    case FL_ENTRY_STATE_ORPHAN:
      return g_strdup (liveness == FL_LIVENESS_REUSED ? _("Orphan: PID reused")
                                                      : _("Orphan: creator exited"));
    case FL_ENTRY_STATE_STALE:
      if (other)
        return g_strdup (_("Stale: owner exited"));
      if (liveness == FL_LIVENESS_DEAD)
        return g_strdup (_("Stale: holder exited"));
      if (liveness == FL_LIVENESS_REUSED)
        return g_strdup (_("Stale: PID reused"));
      if (liveness == FL_LIVENESS_ALIVE)
        return g_strdup (_("Stale: kernel lock dropped"));
      return g_strdup (_("Stale: not a PID"));
    case FL_ENTRY_STATE_FREE:
      if (other)
        return g_strdup (_("Free: nobody holds it"));
      G_GNUC_FALLTHROUGH;
    case FL_ENTRY_STATE_UNKNOWN:
    default:
      if (fl_snapshot_get_pid (self) > 0)
        return g_strdup (liveness == FL_LIVENESS_REUSED ? _("Unknown: PID now another process")
                                                        : _("Unknown: PID not visible here"));
      if (other && fl_snapshot_get_lock_format (self) == FL_LOCK_FORMAT_GIT)
        return g_strdup (_("Unknown: no owner recorded"));
      if (other)
        return g_strdup (_("Unknown: no PID recorded"));
      if (content == NULL || content[0] == '\0')
        return g_strdup (_("Unknown: no PID yet"));
      return g_strdup (_("Unknown: not a PID"));
    }
}

/**
 * fl_entry_kind_for_name:
 * @name: a file name (the last component of a path; a path is reduced to it)
 * @kind: (out) (optional): what libfl would have written under that name
 *
 * Tells a lock `T.lock`, a temp `T.lock.<pid>.<8 hex>.tmp` and a graveyard
 * `T.lock.gy.<pid>.<8 hex>` apart by name alone, exactly as scans and the directory model do.
 * A name only other programs give their lock files (`.#NAME`, `.~lock.NAME#`, `lock`,
 * `lock-frontend`, `.parentlock`, `LCK..NAME`) is %FL_ENTRY_OTHER_PROGRAM; git's `*.lock` is
 * named like ours, and only a snapshot tells it apart (by its `.git` directory).
 *
 * Returns: %TRUE if @name is one of these
 *
 * Since: 0.1
 */
gboolean
fl_entry_kind_for_name (const char  *name,
                        FlEntryKind *kind)
{
  const char *base;
  FlNameInfo info;

  g_return_val_if_fail (name != NULL, FALSE);

  base = _fl_path_last_component (name);

  if (!_fl_classify_name (base, strlen (base), &info))
    {
      if (!_fl_other_lock_name (base, strlen (base)))
        return FALSE;
      info.kind = FL_ENTRY_OTHER_PROGRAM;
    }
  if (kind != NULL)
    *kind = info.kind;
  return TRUE;
}
