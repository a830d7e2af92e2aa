/* fl-other-explain.c: a snapshot of another program's lock file in words, for the inspector
 * and flctl
 *
 * Who holds it, and what its format is (the words for each format are fl-format.c's, which
 * the refusal of a reclaim says too; docs/other-lock-files.md has the reasoning). It reads the
 * snapshot through its public getters only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fl-format-private.h"
#include "fl-format.h"
#include "protocol/fl-judge-private.h"
#include "fl-snapshot.h"

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
 *
 * Since: 0.1
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

/**
 * fl_snapshot_dup_other_explanation:
 * @self: a snapshot of another program's lock file
 *
 * What another program's lock file is, who removes it and what to do if it is stuck,
 * translated, ending with the reminder that libfl (the inspector, flctl) never removes it.
 *
 * Returns: (transfer full) (nullable): the text, or %NULL for libfl's own lock file
 *
 * Since: 0.1
 */
char *
fl_snapshot_dup_other_explanation (FlSnapshot *self)
{
  g_return_val_if_fail (FL_IS_SNAPSHOT (self), NULL);

  if (fl_snapshot_get_lock_format (self) == FL_LOCK_FORMAT_LIBFL)
    return NULL;
  return g_strdup_printf ("%s %s",
                          _fl_lock_format_get_explanation (fl_snapshot_get_lock_format (self)),
                          _("libfl only explains it: neither the Lock Inspector nor flctl "
                            "reclaims another program's lock."));
}
