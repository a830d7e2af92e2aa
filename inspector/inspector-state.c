/* inspector-state.c: what a snapshot means, in words a person reads
 *
 * Every sentence is built here from the snapshot's structured evidence, not copied from
 * libfl's reason string, so that it is translated and says the same thing in every view.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>
#ifdef G_OS_UNIX   /* from glib, hence after it */
#include <pwd.h>      /* getpwuid_r(): Unix only */
#include <unistd.h>
#endif

#include "inspector-state.h"

/* What the inspector adds to libfl's state: a sort rank (what needs a person's attention last
 * to first) and an icon, so that the state reads without colour. */
static const struct
{
  int         rank;
  const char *icon_name;
} state_looks[] = {
  [FL_ENTRY_STATE_HELD] = { 0, "emblem-ok-symbolic" },
  [FL_ENTRY_STATE_ACTIVE] = { 1, "document-edit-symbolic" },
  [FL_ENTRY_STATE_UNKNOWN] = { 2, "dialog-question-symbolic" },
  [FL_ENTRY_STATE_FOREIGN] = { 3, "action-unavailable-symbolic" },
  [FL_ENTRY_STATE_FREE] = { 1, "changes-allow-symbolic" },
  [FL_ENTRY_STATE_ORPHAN] = { 4, "user-trash-symbolic" },
  [FL_ENTRY_STATE_STALE] = { 5, "dialog-warning-symbolic" },
};

int
inspector_state_rank (FlEntryState state)
{
  return (guint) state < G_N_ELEMENTS (state_looks) ? state_looks[state].rank : 5;
}

const char *
inspector_state_icon_name (FlEntryState state)
{
  return (guint) state < G_N_ELEMENTS (state_looks) ? state_looks[state].icon_name
                                                     : "dialog-warning-symbolic";
}

char *
inspector_format_holder (FlSnapshot *snapshot)
{
  int pid = fl_snapshot_get_pid (snapshot);
  const char *name = fl_snapshot_get_process_name (snapshot);

  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_OTHER_PROGRAM)
    return fl_snapshot_dup_owner_summary (snapshot);
  if (pid <= 0)
    return g_strdup ("—");
  /* The process that has the PID now is not the holder: never name it as one. */
  if (fl_snapshot_get_liveness (snapshot) == FL_LIVENESS_REUSED)
    {
      if (name != NULL && name[0] != '\0')
        /* TRANSLATORS: a lock's holder PID that another process has taken since */
        return g_strdup_printf (_("%d, now another process: %s"), pid, name);
      return g_strdup_printf (_("%d, now another process"), pid);
    }
  if (name != NULL && name[0] != '\0')
    return g_strdup_printf ("%d · %s", pid, name);
  return g_strdup_printf ("%d", pid);
}

/* @real_us in local time, as @format writes it; "—" when there is no such time. */
static char *
format_local (gint64      real_us,
              const char *format)
{
  g_autoptr(GDateTime) time = NULL;

  if (real_us <= 0)
    return g_strdup ("—");
  time = g_date_time_new_from_unix_local (real_us / G_USEC_PER_SEC);
  return time != NULL ? g_date_time_format (time, format) : g_strdup ("—");
}

char *
inspector_format_clock (gint64 real_us)
{
  return format_local (real_us, "%X");
}

char *
inspector_format_lease (FlSnapshot *snapshot)
{
  gint64 ttl = fl_snapshot_get_lease_ttl (snapshot);
  GPtrArray *waiters = fl_snapshot_get_waiters (snapshot);
  GString *text;

  if (fl_snapshot_get_revision (snapshot) == 0)
    return g_strdup ("—");
  text = g_string_new (NULL);
  g_string_append_printf (text, "%" G_GINT64_MODIFIER "x", fl_snapshot_get_lease_id (snapshot));
  if (ttl >= 0)
    {
      g_autofree char *left = fl_format_age (ttl * G_USEC_PER_SEC);

      g_string_append (text, " · ");
      /* TRANSLATORS: the time left on an etcd lease when it was read, e.g. "8 s left" */
      g_string_append_printf (text, _("%s left"), left);
    }
  if (waiters != NULL && waiters->len > 0)
    {
      g_string_append (text, " · ");
      g_string_append_printf (text, ngettext ("%u waiting", "%u waiting", waiters->len),
                              waiters->len);
    }
  return g_string_free (text, FALSE);
}

char *
inspector_format_time (gint64 real_us)
{
  return format_local (real_us, "%x %X");
}

char *
inspector_format_user (gint64 uid)
{
#ifdef G_OS_UNIX
  struct passwd pw;
  struct passwd *found = NULL;
  char buf[1024];
#endif

  if (uid < 0)
    return g_strdup ("—");
#ifdef G_OS_UNIX
  if (getpwuid_r ((uid_t) uid, &pw, buf, sizeof buf, &found) == 0 && found != NULL)
    return g_strdup_printf ("%s (%d)", found->pw_name, (int) uid);
#endif
  /* Windows has no numeric uids (libfl reports -1 there, above); a number is shown as is. */
  return g_strdup_printf ("%d", (int) uid);
}

static void
explain_lock (GString    *text,
              FlSnapshot *snapshot,
              gint64      stale_after_ms)
{
  int pid = fl_snapshot_get_pid (snapshot);
  const char *content = fl_snapshot_get_content (snapshot);
  int stale_after_s = (int) (stale_after_ms / 1000);

  switch (fl_snapshot_get_kernel_lock (snapshot))
    {
    case FL_KERNEL_LOCK_HELD:
      g_string_append_printf (text, "• %s\n", _("A process holds the kernel lock on this file, "
                                                "so its holder is alive."));
      break;
    case FL_KERNEL_LOCK_FREE:
      g_string_append_printf (text, "• %s\n", _("Nobody holds the kernel lock on this file."));
      break;
    case FL_KERNEL_LOCK_UNKNOWN:
    default:
      g_string_append_printf (text, "• %s\n", _("The kernel lock could not be probed."));
      break;
    }

  if (pid > 0)
    {
      g_string_append (text, "• ");
      g_string_append_printf (text, _("The file names process %d."), pid);
      g_string_append_c (text, '\n');
    }
  else if (content == NULL || content[0] == '\0')
    g_string_append_printf (text, "• %s\n", _("The file is empty: it names no process."));
  else
    {
      g_string_append (text, "• ");
      g_string_append_printf (text, _("The file does not contain a valid PID: “%.32s”."), content);
      g_string_append_c (text, '\n');
    }

  if (pid <= 0)
    {
      g_string_append (text, "• ");
      if (fl_snapshot_get_stale (snapshot))
        g_string_append_printf (text, _("It is older than %d seconds, so it is stale."),
                                stale_after_s);
      else
        g_string_append_printf (text, _("It becomes stale when it is %d seconds old."),
                                stale_after_s);
      g_string_append_c (text, '\n');
    }
}

static void
explain_process (GString    *text,
                 FlSnapshot *snapshot)
{
  int pid = fl_snapshot_get_pid (snapshot);

  if (pid <= 0)
    return;

  g_string_append (text, "• ");
  switch (fl_snapshot_get_liveness (snapshot))
    {
    case FL_LIVENESS_ALIVE:
      if (fl_snapshot_get_stale (snapshot))
        g_string_append_printf (text, _("Process %d is running, but it took a kernel lock and "
                                        "no longer holds it: it has let go of this lock."), pid);
      else
        g_string_append_printf (text, _("Process %d is running."), pid);
      break;
    case FL_LIVENESS_DEAD:
      g_string_append_printf (text, _("Process %d no longer exists."), pid);
      break;
    case FL_LIVENESS_REUSED:
      g_string_append_printf (text, _("A process with PID %d runs, but it started after the "
                                      "file was written: the PID was reused."), pid);
      break;
    case FL_LIVENESS_UNKNOWN:
    default:
      g_string_append_printf (text, _("Process %d cannot be checked from here: it belongs to "
                                      "another host or PID namespace, or the file is on a "
                                      "network filesystem."), pid);
      break;
    }
  g_string_append_c (text, '\n');
}

/* Another program's lock file: what its owner's process and kernel lock show, then what the
 * format is and what to do, from libfl; never a reclaim (docs/other-lock-files.md). */
static void
explain_other (GString    *text,
               FlSnapshot *snapshot)
{
  g_autofree char *about = fl_snapshot_dup_other_explanation (snapshot);

  /* A Firefox link's PID is not probed: the profile's .parentlock decides. */
  if (fl_snapshot_get_liveness (snapshot) != FL_LIVENESS_UNKNOWN)
    explain_process (text, snapshot);
  switch (fl_snapshot_get_state (snapshot))
    {
    case FL_ENTRY_STATE_HELD:
      g_string_append_printf (text, "• %s\n", _("Its owner is alive."));
      break;
    case FL_ENTRY_STATE_STALE:
      g_string_append_printf (text, "• %s\n", _("Its owner is gone: the file is left over."));
      break;
    case FL_ENTRY_STATE_FREE:
      g_string_append_printf (text, "• %s\n", _("Nobody holds its kernel lock: nothing is "
                                                 "locked now."));
      break;
    case FL_ENTRY_STATE_UNKNOWN:
    default:
      g_string_append_printf (text, "• %s\n", _("Whether its owner is alive cannot be told "
                                                 "from here."));
      break;
    }
  g_string_append (text, about);
}

/* The evidence behind the verdict, one fact a line, then the verdict. */
char *
inspector_explain (FlSnapshot *snapshot,
                   gint64      stale_after_ms)
{
  GString *text = g_string_new (NULL);

  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_OTHER_PROGRAM)
    {
      explain_other (text, snapshot);
      return g_string_free (text, FALSE);
    }
  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_LOCK)
    explain_lock (text, snapshot, stale_after_ms);
  explain_process (text, snapshot);

  switch (fl_snapshot_get_state (snapshot))
    {
    case FL_ENTRY_STATE_HELD:
      g_string_append (text, _("Verdict: held. It must not be reclaimed."));
      break;
    case FL_ENTRY_STATE_ACTIVE:
      g_string_append (text, _("Verdict: in use. Its creator is still running."));
      break;
    case FL_ENTRY_STATE_UNKNOWN:
      g_string_append (text, _("Verdict: unknown. libfl will not judge it stale."));
      break;
    case FL_ENTRY_STATE_FOREIGN:
      g_string_append (text, _("This is not a regular file. libfl never opens, follows or "
                               "removes it; remove it by hand if it does not belong here."));
      break;
    case FL_ENTRY_STATE_ORPHAN:
      g_string_append (text, _("Verdict: orphan. Its creator is gone, so nothing will ever use "
                               "it. Removing it is safe."));
      break;
    case FL_ENTRY_STATE_STALE:
    default:
      g_string_append (text, _("Verdict: stale. No live process holds it, so reclaiming it is "
                               "safe."));
      break;
    }

  return g_string_free (text, FALSE);
}
