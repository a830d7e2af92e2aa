/* inspector-state.c: what a snapshot means, in words a person reads
 *
 * The evidence is libfl's reason for the verdict (translated in libfl's catalogue), the very
 * one flctl status prints: a second judge here could disagree with the state. Only the words
 * around it (the kernel lock line, the verdict) are the inspector's, from the same snapshot.
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

/* libfl's reason for the verdict, as a sentence: the one judge's words, so the evidence can
 * never disagree with the state (or with flctl status, which prints the same reason). */
static void
append_reason (GString    *text,
               FlSnapshot *snapshot)
{
  const char *reason = fl_snapshot_get_reason (snapshot);

  if (reason == NULL || reason[0] == '\0')
    return;
  g_string_append (text, "• ");
  g_string_append_unichar (text, g_unichar_toupper (g_utf8_get_char (reason)));
  g_string_append (text, g_utf8_next_char (reason));
  if (!g_str_has_suffix (reason, "."))
    g_string_append_c (text, '.');
  g_string_append_c (text, '\n');
}

/* What the kernel lock probe saw, where libfl probes one (a temp's is never probed). */
static void
append_kernel_lock (GString    *text,
                    FlSnapshot *snapshot)
{
  switch (fl_snapshot_get_kernel_lock (snapshot))
    {
    case FL_KERNEL_LOCK_HELD:
      g_string_append_printf (text, "• %s\n", _("A process holds the kernel lock on this file."));
      break;
    case FL_KERNEL_LOCK_FREE:
      g_string_append_printf (text, "• %s\n", _("Nobody holds the kernel lock on this file."));
      break;
    case FL_KERNEL_LOCK_UNKNOWN:
    default:
      break;
    }
}

/* The verdict, from the state and what libfl lets an operator do (fl_snapshot_get_reclaimable()),
 * never from a rule of the inspector's own. */
static void
append_verdict (GString    *text,
                FlSnapshot *snapshot)
{
  gboolean etcd = fl_snapshot_get_revision (snapshot) != 0;

  switch (fl_snapshot_get_state (snapshot))
    {
    case FL_ENTRY_STATE_HELD:
      g_string_append (text, _("Verdict: held. It must not be reclaimed."));
      break;
    case FL_ENTRY_STATE_ACTIVE:
      g_string_append (text, fl_snapshot_get_waiting (snapshot)
                             ? _("Verdict: waiting. Its process waits for the lock.")
                             : _("Verdict: in use. Its creator is still running."));
      break;
    case FL_ENTRY_STATE_UNKNOWN:
      if (etcd)
        g_string_append (text, _("Verdict: unknown. etcd ends the key when its lease expires; "
                                 "libfl never calls it stale."));
      else if (fl_snapshot_get_reclaimable (snapshot) == FL_RECLAIMABLE_UNPROVEN)
        g_string_append (text, _("Verdict: unknown. It is not proven stale, so it is not "
                                 "reclaimed by itself. If you know that its holder is gone, "
                                 "Force Reclaim removes it (as flctl reclaim --force does)."));
      else
        g_string_append (text, _("Verdict: unknown. It is not proven stale, so it is not "
                                 "reclaimed."));
      break;
    case FL_ENTRY_STATE_FOREIGN:
      g_string_append (text, _("Verdict: foreign. Remove it by hand if it does not belong "
                               "here."));
      break;
    case FL_ENTRY_STATE_ORPHAN:
      g_string_append (text, _("Verdict: orphan. Its creator is gone, so nothing will ever use "
                               "it. Removing it is safe."));
      break;
    case FL_ENTRY_STATE_FREE:
      g_string_append (text, _("Verdict: free. Nobody holds it now."));
      break;
    case FL_ENTRY_STATE_STALE:
    default:
      g_string_append (text, _("Verdict: stale. No live process holds it, so reclaiming it is "
                               "safe."));
      break;
    }
}

/* The evidence behind the verdict, one fact a line, then the verdict: the kernel lock probe,
 * then libfl's own reason, the same snapshot's (one source: docs/inspector.md). */
char *
inspector_explain (FlSnapshot *snapshot)
{
  GString *text = g_string_new (NULL);

  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_OTHER_PROGRAM)
    {
      g_autofree char *about = fl_snapshot_dup_other_explanation (snapshot);

      append_reason (text, snapshot);
      g_string_append (text, about);
      return g_string_free (text, FALSE);
    }
  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_LOCK)
    append_kernel_lock (text, snapshot);
  append_reason (text, snapshot);
  append_verdict (text, snapshot);

  return g_string_free (text, FALSE);
}

/* Text a person can read: valid UTF-8 without control characters other than tab and newline.
 * git's index.lock, an old UUCP lock's 4-byte PID are not. */
static gboolean
is_text (const guint8 *bytes,
         gsize         len)
{
  if (!g_utf8_validate ((const char *) bytes, (gssize) len, NULL))
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (bytes[i] < 0x20 && bytes[i] != '\n' && bytes[i] != '\t' && bytes[i] != '\r')
      return FALSE;
  return TRUE;
}

#define HEX_PREFIX_BYTES 16

char *
inspector_format_content (FlSnapshot *snapshot,
                          gint64      file_size)
{
  g_autoptr(GBytes) bytes = fl_snapshot_dup_content_bytes (snapshot);
  gsize len = 0;
  const guint8 *data = bytes != NULL ? g_bytes_get_data (bytes, &len) : NULL;
  g_autofree char *size = NULL;
  g_autofree char *shown = NULL;
  GString *hex;

  if (len == 0)
    return g_strdup (_("(empty)"));
  if (is_text (data, len))
    return g_strdup (fl_snapshot_get_content (snapshot));

  hex = g_string_new (NULL);
  for (gsize i = 0; i < MIN (len, HEX_PREFIX_BYTES); i++)
    g_string_append_printf (hex, "%s%02x", i > 0 ? " " : "", data[i]);
  if (len > HEX_PREFIX_BYTES || file_size > (gint64) len)
    g_string_append (hex, " …");
  shown = g_string_free (hex, FALSE);
  size = g_format_size_full ((guint64) MAX (file_size, (gint64) len), G_FORMAT_SIZE_LONG_FORMAT);
  /* TRANSLATORS: "Binary data, 1.2 kB (1,234 bytes): 44 49 52 43 …" */
  return g_strdup_printf (_("Binary data, %s: %s"), size, shown);
}

gboolean
inspector_offers_force_reclaim (FlSnapshot *snapshot)
{
  /* Only what libfl offers (docs/protocol.md, section 7): a lock file it never calls stale by
   * itself, with no kernel lock held (libfl says NONE then); not a live holder's (held) and not
   * an etcd key, whose lease is etcd's to end. */
  return fl_snapshot_get_kind (snapshot) == FL_ENTRY_LOCK
         && fl_snapshot_get_revision (snapshot) == 0
         && fl_snapshot_get_state (snapshot) == FL_ENTRY_STATE_UNKNOWN
         && fl_snapshot_get_reclaimable (snapshot) == FL_RECLAIMABLE_UNPROVEN;
}
