/* fl-other-explain.c: other programs' lock files in words, for the inspector and flctl
 *
 * What each format is, who removes it and what to do when it is stuck, once, translated
 * (docs/other-lock-files.md has the reasoning).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fl-format.h"
#include "fl-snapshot-private.h"

char *
_fl_snapshot_dup_other_summary (FlSnapshot *self)
{
  switch (fl_snapshot_get_state (self))
    {
    case FL_ENTRY_STATE_HELD:
      return g_strdup (_("Held"));
    case FL_ENTRY_STATE_STALE:
      return g_strdup (_("Stale: owner exited"));
    case FL_ENTRY_STATE_FREE:
      return g_strdup (_("Free: nobody holds it"));
    case FL_ENTRY_STATE_UNKNOWN:
    default:
      if (fl_snapshot_get_liveness (self) == FL_LIVENESS_REUSED)
        return g_strdup (_("Unknown: PID now another process"));
      if (fl_snapshot_get_pid (self) > 0)
        return g_strdup (_("Unknown: PID not visible here"));
      if (fl_snapshot_get_lock_format (self) == FL_LOCK_FORMAT_GIT)
        return g_strdup (_("Unknown: no owner recorded"));
      return g_strdup (_("Unknown: no PID recorded"));
    }
}

static char *
dup_since (gint64 since_us)
{
  g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (since_us / G_USEC_PER_SEC);

  return when != NULL ? g_date_time_format (when, "%Y-%m-%d %H:%M") : g_strdup ("?");
}

/* "alice@host", or whichever half is recorded. */
static char *
dup_user_at_host (FlSnapshot *self)
{
  const char *user = fl_snapshot_get_owner_user (self);
  const char *host = fl_snapshot_get_host (self);

  if (user != NULL && host != NULL)
    return g_strdup_printf ("%s@%s", user, host);
  return g_strdup (user != NULL ? user : host != NULL ? host : "?");
}

/**
 * fl_snapshot_dup_owner_summary:
 * @self: a snapshot of another program's lock file
 *
 * Who holds another program's lock file, as its format records it or its kernel lock shows,
 * with the program's name, translated: "Emacs: alice@host, PID 4242", "git: no owner recorded".
 * What the inspector's Holder column and flctl show for it.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL for libfl's own lock file
 */
char *
fl_snapshot_dup_owner_summary (FlSnapshot *self)
{
  g_autofree char *who = NULL;
  g_autofree char *user_at_host = NULL;
  FlLockFormat format;
  int pid;

  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);

  format = fl_snapshot_get_lock_format (self);
  if (format == FL_LOCK_FORMAT_LIBFL)
    return NULL;

  pid = fl_snapshot_get_pid (self);
  user_at_host = dup_user_at_host (self);
  if (format == FL_LOCK_FORMAT_GIT)
    who = g_strdup (_("no owner recorded"));
  else if (format == FL_LOCK_FORMAT_LIBREOFFICE)
    {
      g_autofree char *since = dup_since (fl_snapshot_get_owner_since (self));
      const char *name = fl_snapshot_get_owner_name (self);

      who = fl_snapshot_get_owner_since (self) != 0
        ? g_strdup_printf (_("%s (%s), since %s"), name ? name : "?", user_at_host, since)
        : g_strdup_printf ("%s (%s)", name ? name : "?", user_at_host);
    }
  else if (fl_snapshot_get_host (self) != NULL && pid > 0)
    who = g_strdup_printf (_("%s, PID %d"), user_at_host, pid);
  else if (pid > 0)
    who = g_strdup_printf (_("PID %d holds its kernel lock"), pid);
  else if (fl_snapshot_get_kernel_lock (self) == FL_KERNEL_LOCK_HELD)
    who = g_strdup (_("a process holds its kernel lock"));
  else if (fl_snapshot_get_kernel_lock (self) == FL_KERNEL_LOCK_FREE)
    who = g_strdup (_("nobody holds it"));
  else
    who = g_strdup (_("not known"));

  return g_strdup_printf ("%s: %s", fl_lock_format_get_label (format), who);
}

static const char *
what_it_is (FlSnapshot *self)
{
  switch (fl_snapshot_get_lock_format (self))
    {
    case FL_LOCK_FORMAT_GIT:
      return _("A git lock: a git command is changing the repository's index or a reference, "
               "and removes the file when it ends. If no git process runs in this repository "
               "(and no editor or tool that runs git), a git command was killed: remove the "
               "file by hand.");
    case FL_LOCK_FORMAT_LIBREOFFICE:
      return _("A LibreOffice lock: the person named has the document open, and LibreOffice "
               "removes the file when it closes the document. If that LibreOffice is no longer "
               "running on the host named, open the document anyway (LibreOffice offers it) or "
               "remove the file by hand.");
    case FL_LOCK_FORMAT_EMACS:
      return _("An Emacs edit lock: the user named is editing the file in Emacs on the host "
               "named; Emacs removes it when the buffer is saved or killed. If that Emacs has "
               "exited, Emacs itself offers to steal the lock the next time the file is edited.");
    case FL_LOCK_FORMAT_MOZILLA:
      return _("A Firefox or Thunderbird profile lock: the profile is open while a process "
               "holds the kernel lock on its .parentlock. If none does, the program starts "
               "normally and cleans up; if it still says the profile is in use, quit it on the "
               "host named and remove the lock link by hand.");
    case FL_LOCK_FORMAT_DPKG:
      return _("A dpkg or apt lock: the file always exists and only its kernel lock counts, "
               "held while a package manager runs. Never remove it: wait for the process "
               "holding it to finish.");
    case FL_LOCK_FORMAT_FLOCK:
      return _("A lock file used with a kernel lock, as flock(1) does: only the kernel lock "
               "counts, and the kernel drops it when its holder exits. The file itself locks "
               "nothing; removing it can break the program's next lock, so leave it.");
    case FL_LOCK_FORMAT_LIBFL:
    default:
      return "";
    }
}

/**
 * fl_snapshot_dup_other_explanation:
 * @self: a snapshot of another program's lock file
 *
 * What another program's lock file is, who removes it and what to do if it is stuck,
 * translated, ending with the reminder that libfl (the inspector, flctl) never removes it.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL for libfl's own lock file
 */
char *
fl_snapshot_dup_other_explanation (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);

  if (fl_snapshot_get_lock_format (self) == FL_LOCK_FORMAT_LIBFL)
    return NULL;
  return g_strdup_printf ("%s %s", what_it_is (self),
                          _("libfl only explains it: neither the Lock Inspector nor flctl "
                            "reclaims another program's lock."));
}
