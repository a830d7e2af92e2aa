/* flctl-output.c: what flctl prints: records for people, JSON for scripts, and the words
 * and numbers both are made of (states, paths; ages are libfl's fl_format_age(), as in the
 * Lock Inspector)
 *
 * The JSON members and the state words are flctl's stable interface; they are documented in
 * docs/flctl.1 (JSON OUTPUT), so change them only by adding.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-os.h"
#include "flctl-private.h"

char *
flctl_format_time (gint64 unix_us)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (unix_us / G_USEC_PER_SEC);

  if (time == NULL)
    return g_strdup ("?");
  return g_date_time_format (time, "%Y-%m-%d %H:%M:%S");
}

static char *
format_time_iso8601 (gint64 unix_us)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_utc (unix_us / G_USEC_PER_SEC);

  if (time == NULL)
    return NULL;
  return g_date_time_format (time, "%Y-%m-%dT%H:%M:%SZ");
}

/* The state's colour; the word itself is libfl's (fl_entry_state_to_string()), so the state
 * is readable without colour and says what the inspector says. */
FlctlStyle
flctl_style_for_state (FlEntryState state)
{
  switch (state)
    {
    case FL_ENTRY_STATE_HELD:
    case FL_ENTRY_STATE_ACTIVE:
      return FLCTL_STYLE_GOOD;
    case FL_ENTRY_STATE_STALE:
    case FL_ENTRY_STATE_ORPHAN:
      return FLCTL_STYLE_BAD;
    case FL_ENTRY_STATE_UNKNOWN:
    case FL_ENTRY_STATE_FOREIGN:
    default:
      return FLCTL_STYLE_WARN;
    }
}

/* https://no-color.org: any non-empty NO_COLOR turns colour off. */
gboolean
flctl_use_color (int fd)
{
  const char *no_color = g_getenv ("NO_COLOR");
  const char *term = g_getenv ("TERM");

  if (no_color != NULL && no_color[0] != '\0')
    return FALSE;
  if (term == NULL || g_str_equal (term, "dumb"))
    return FALSE;
  return flctl_os_isatty (fd);
}

/* 0 when fd is not a terminal: nothing is cut then. */
int
flctl_terminal_width (int fd)
{
  int width;

  if (!flctl_os_isatty (fd))
    return 0;
  width = flctl_os_terminal_width (fd);
  return width > 0 ? width : 80;
}

/* The SGR parameters of a style; NULL for none. */
const char *
flctl_style_get_sgr (FlctlStyle style)
{
  static const char *const sgr[] = {
    [FLCTL_STYLE_NONE] = NULL,
    [FLCTL_STYLE_GOOD] = "32",
    [FLCTL_STYLE_BAD] = "1;31",
    [FLCTL_STYLE_WARN] = "33",
    [FLCTL_STYLE_DIM] = "2",
  };

  return sgr[style];
}

char *
flctl_styled (const char *text,
              FlctlStyle  style,
              gboolean    color)
{
  if (!color || flctl_style_get_sgr (style) == NULL)
    return g_strdup (text);
  return g_strdup_printf ("\033[%sm%s\033[0m", flctl_style_get_sgr (style), text);
}

void
flctl_json_add_string_or_null (FlctlJson *builder,
                    const char  *member,
                    const char  *value)
{
  flctl_json_set_member_name (builder, member);
  if (value == NULL)
    {
      flctl_json_add_null_value (builder);
    }
  else
    {
      /* JSON is UTF-8; a name that is not shows U+FFFD where its bad bytes were. */
      g_autofree char *valid = g_utf8_make_valid (value, -1);

      flctl_json_add_string_value (builder, valid);
    }
}

void
flctl_json_add_int_or_null (FlctlJson *builder,
                 const char  *member,
                 gboolean     known,
                 gint64       value)
{
  flctl_json_set_member_name (builder, member);
  if (known)
    flctl_json_add_int_value (builder, value);
  else
    flctl_json_add_null_value (builder);
}

/* An etcd lock's members; null (waiting false) for a file, so scripts need no special case. */
/* Another program's lock file (docs/other-lock-files.md): after the etcd members, so that the
 * order of the older ones holds. All null without a snapshot. */
static void
add_owner_members (FlctlJson *builder,
                   FlSnapshot  *snapshot)
{
  gint64 since = snapshot != NULL ? fl_snapshot_get_owner_since (snapshot) : 0;

  flctl_json_add_string_or_null (builder, "format", snapshot != NULL
                                 ? fl_lock_format_to_string (fl_snapshot_get_lock_format (snapshot))
                                 : NULL);
  flctl_json_add_string_or_null (builder, "owner_user",
                                 snapshot != NULL ? fl_snapshot_get_owner_user (snapshot) : NULL);
  flctl_json_add_string_or_null (builder, "owner_name",
                                 snapshot != NULL ? fl_snapshot_get_owner_name (snapshot) : NULL);
  flctl_json_add_int_or_null (builder, "owner_since_s", since != 0, since / G_USEC_PER_SEC);
}

static void
add_etcd_members (FlctlJson *builder,
                  FlSnapshot  *snapshot,
                  gint64       now_us)
{
  gint64 lease = snapshot != NULL ? fl_snapshot_get_lease_id (snapshot) : 0;
  gint64 ttl = snapshot != NULL ? fl_snapshot_get_lease_ttl (snapshot) : -1;
  GPtrArray *waiters = snapshot != NULL ? fl_snapshot_get_waiters (snapshot) : NULL;
  g_autofree char *lease_hex = lease != 0 ? flctl_format_lease (lease) : NULL;

  flctl_json_add_string_or_null (builder, "host", snapshot != NULL ? fl_snapshot_get_host (snapshot) : NULL);
  flctl_json_add_string_or_null (builder, "lease", lease_hex);
  flctl_json_add_int_or_null (builder, "lease_ttl_s", lease != 0 && ttl >= 0, ttl);
  flctl_json_add_int_or_null (builder, "token", lease != 0,
                   lease != 0 ? (gint64) fl_snapshot_get_fencing_token (snapshot) : 0);
  flctl_json_add_int_or_null (builder, "revision", lease != 0,
                   lease != 0 ? fl_snapshot_get_revision (snapshot) : 0);
  flctl_json_set_member_name (builder, "waiting");
  flctl_json_add_boolean_value (builder, snapshot != NULL && fl_snapshot_get_waiting (snapshot));
  flctl_json_set_member_name (builder, "waiters");
  if (waiters == NULL)
    {
      flctl_json_add_null_value (builder);
      return;
    }
  flctl_json_begin_array (builder);
  for (guint i = 0; i < waiters->len; i++)
    {
      flctl_json_begin_object (builder);
      flctl_add_snapshot_members (builder, waiters->pdata[i], NULL, now_us);
      flctl_json_end_object (builder);
    }
  flctl_json_end_array (builder);
}

/* What the holder of a held lock is doing (docs/flctl.1, JSON OUTPUT); NULL: nothing known. */
static void
add_holder_members (FlctlJson *builder,
                    FlSnapshot  *snapshot)
{
  int keeper_pid = snapshot != NULL ? fl_snapshot_get_keeper_pid (snapshot) : 0;

  flctl_json_set_member_name (builder, "holder_exited");
  flctl_json_add_boolean_value (builder, snapshot != NULL
                                           && fl_snapshot_get_holder_exited (snapshot));
  flctl_json_set_member_name (builder, "holder_stopped");
  flctl_json_add_boolean_value (builder, snapshot != NULL
                                           && fl_snapshot_get_holder_stopped (snapshot));
  flctl_json_add_int_or_null (builder, "keeper_pid", keeper_pid > 0, keeper_pid);
  flctl_json_add_string_or_null (builder, "keeper_process",
                                 snapshot != NULL ? fl_snapshot_get_keeper_name (snapshot) : NULL);
}

/* @state: NULL for the snapshot's own, or what the entry is now (a released lock is
 * "unlocked" while the snapshot is its last picture). */
void
flctl_add_snapshot_members (FlctlJson *builder,
                            FlSnapshot  *snapshot,
                            const char  *state,
                            gint64       now_us)
{
  FlKernelLock kernel_lock = fl_snapshot_get_kernel_lock (snapshot);
  int pid = fl_snapshot_get_pid (snapshot);
  gint64 mtime = fl_snapshot_get_mtime (snapshot);
  gint64 process_uid = fl_snapshot_get_process_uid (snapshot);
  gint64 file_uid = fl_snapshot_get_file_uid (snapshot);
  g_autofree char *mtime_iso = mtime > 0 ? format_time_iso8601 (mtime) : NULL;

  flctl_json_add_string_or_null (builder, "path", fl_snapshot_get_path (snapshot));
  flctl_json_add_string_or_null (builder, "target", fl_snapshot_get_target (snapshot));
  flctl_json_add_string_or_null (builder, "kind", fl_entry_kind_to_string (fl_snapshot_get_kind (snapshot)));
  flctl_json_add_string_or_null (builder, "state",
                      state != NULL ? state : fl_entry_state_to_string (fl_snapshot_get_state (snapshot)));
  flctl_json_add_int_or_null (builder, "pid", pid > 0, pid);
  flctl_json_add_string_or_null (builder, "process", fl_snapshot_get_process_name (snapshot));
  flctl_json_add_string_or_null (builder, "cmdline", fl_snapshot_get_process_cmdline (snapshot));
  flctl_json_add_int_or_null (builder, "process_uid", pid > 0 && process_uid >= 0, process_uid);
  /* Gone (state given): no file, so no kernel lock on it, and its holder is judged no more. */
  flctl_json_add_string_or_null (builder, "liveness",
                                 state != NULL ? "unknown"
                                 : fl_liveness_to_string (fl_snapshot_get_liveness (snapshot)));
  flctl_json_set_member_name (builder, "kernel_lock");
  if (state != NULL)
    flctl_json_add_boolean_value (builder, FALSE);
  else if (kernel_lock == FL_KERNEL_LOCK_UNKNOWN)
    flctl_json_add_null_value (builder);
  else
    flctl_json_add_boolean_value (builder, kernel_lock == FL_KERNEL_LOCK_HELD);
  flctl_json_set_member_name (builder, "stale");
  flctl_json_add_boolean_value (builder, state == NULL && fl_snapshot_get_stale (snapshot));
  flctl_json_add_string_or_null (builder, "reason", fl_snapshot_get_reason (snapshot));
  flctl_json_add_string_or_null (builder, "content", fl_snapshot_get_content (snapshot));
  flctl_json_add_int_or_null (builder, "file_uid", file_uid >= 0, file_uid);
  flctl_json_add_string_or_null (builder, "mtime", mtime_iso);
  flctl_json_add_int_or_null (builder, "age_s", TRUE,
                   MAX (fl_snapshot_get_age_at (snapshot, now_us), 0) / G_USEC_PER_SEC);
  add_etcd_members (builder, snapshot, now_us);
  add_owner_members (builder, snapshot);
  add_holder_members (builder, state == NULL ? snapshot : NULL);
}

/* Last in every record printed at the top level (not in the waiters nested in one): added
 * after the others, so their order holds (docs/flctl.1, JSON OUTPUT). */
void
flctl_json_add_schema (FlctlJson *builder)
{
  flctl_json_set_member_name (builder, "schema");
  flctl_json_add_int_value (builder, FLCTL_JSON_SCHEMA);
}

void
flctl_snapshot_to_json (FlctlJson  *builder,
                        FlSnapshot *snapshot,
                        gint64      now_us)
{
  flctl_json_begin_object (builder);
  flctl_add_snapshot_members (builder, snapshot, NULL, now_us);
  flctl_json_add_schema (builder);
  flctl_json_end_object (builder);
}

/* The record of a target nobody holds: same members, so scripts need no special case. */
void
flctl_unlocked_to_json (FlctlJson  *builder,
                        const char *target)
{
  g_autofree char *path = flctl_is_etcd (target) ? g_strdup (target) : fl_lock_path_for (target);

  flctl_json_begin_object (builder);
  flctl_json_add_string_or_null (builder, "path", path);
  flctl_json_add_string_or_null (builder, "target", target);
  flctl_json_add_string_or_null (builder, "kind", "lock");
  flctl_json_add_string_or_null (builder, "state", "unlocked");
  flctl_json_add_int_or_null (builder, "pid", FALSE, 0);
  flctl_json_add_string_or_null (builder, "process", NULL);
  flctl_json_add_string_or_null (builder, "cmdline", NULL);
  flctl_json_add_int_or_null (builder, "process_uid", FALSE, 0);
  flctl_json_add_string_or_null (builder, "liveness", "unknown");
  flctl_json_set_member_name (builder, "kernel_lock");
  flctl_json_add_null_value (builder);
  flctl_json_set_member_name (builder, "stale");
  flctl_json_add_boolean_value (builder, FALSE);
  flctl_json_add_string_or_null (builder, "reason", flctl_is_etcd (target)
                                         ? "not locked: no key is queued for it in etcd"
                                         : "not locked: the lock file does not exist");
  flctl_json_add_string_or_null (builder, "content", NULL);
  flctl_json_add_int_or_null (builder, "file_uid", FALSE, 0);
  flctl_json_add_string_or_null (builder, "mtime", NULL);
  flctl_json_add_int_or_null (builder, "age_s", FALSE, 0);
  add_etcd_members (builder, NULL, 0);
  add_owner_members (builder, NULL);
  add_holder_members (builder, NULL);
  flctl_json_add_schema (builder);
  flctl_json_end_object (builder);
}

void
flctl_print_json (FlctlJson *builder)
{
  g_print ("%s\n", flctl_json_get_text (builder));
  fflush (stdout);
}

/* The liveness a person reads: the library's word, and what a held lock's holder is doing. */
const char *
flctl_liveness_label (FlSnapshot *snapshot)
{
  if (fl_snapshot_get_holder_exited (snapshot))
    return "exited";
  if (fl_snapshot_get_holder_stopped (snapshot))
    return "stopped";
  return fl_liveness_to_string (fl_snapshot_get_liveness (snapshot));
}

char *
flctl_describe_holder (FlSnapshot *snapshot,
                       gint64      now_us)
{
  const char *process = fl_snapshot_get_process_name (snapshot);
  int pid = fl_snapshot_get_pid (snapshot);
  const char *liveness;
  g_autofree char *age = fl_format_age (fl_snapshot_get_age_at (snapshot, now_us));

  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_OTHER_PROGRAM)
    return fl_snapshot_dup_owner_summary (snapshot);
  if (fl_snapshot_get_lease_id (snapshot) != 0)
    {
      const char *host = fl_snapshot_get_host (snapshot);

      if (pid <= 0 || host == NULL)
        return g_strdup_printf (_("an unknown process (no readable metadata key), for %s"), age);
      if (process == NULL)
        return g_strdup_printf (_("PID %d on %s, for %s"), pid, host, age);
      return g_strdup_printf (_("PID %d (%s) on %s, for %s"), pid, process, host, age);
    }
  if (pid <= 0)
    return g_strdup_printf (_("an unknown process (the file names no PID), for %s"), age);
  if (fl_snapshot_get_holder_exited (snapshot))
    {
      const char *keeper = fl_snapshot_get_keeper_name (snapshot);
      int keeper_pid = fl_snapshot_get_keeper_pid (snapshot);

      if (keeper_pid <= 0)
        return g_strdup_printf (_("PID %d, exited; the lock is kept by a process that inherited "
                                  "its descriptor, for %s"), pid, age);
      if (keeper == NULL)
        return g_strdup_printf (_("PID %d, exited; the lock is kept by PID %d, for %s"), pid,
                                keeper_pid, age);
      return g_strdup_printf (_("PID %d, exited; the lock is kept by PID %d (%s), for %s"), pid,
                              keeper_pid, keeper, age);
    }
  liveness = fl_snapshot_get_holder_stopped (snapshot) ? _("alive, stopped (SIGSTOP)")
                                                       : flctl_liveness_label (snapshot);
  if (process == NULL)
    return g_strdup_printf (_("PID %d, %s, for %s"), pid, liveness, age);
  return g_strdup_printf (_("PID %d (%s), %s, for %s"), pid, process, liveness, age);
}

void
flctl_print_field (const char *label,
             const char *value)
{
  /* Padded by display width, so that translated labels stay aligned. */
  int pad = 14 - (int) g_utf8_strlen (label, -1);

  g_print ("  %s:%*s%s\n", label, MAX (pad, 1), "", value);
}

char *
flctl_format_lease (gint64 lease)
{
  return g_strdup_printf ("%" G_GINT64_MODIFIER "x", lease);
}

/* An etcd lock: no file, no kernel lock; its lease, token and the queue behind it. */
static void
print_etcd_fields (FlSnapshot *snapshot,
                   gint64      now_us)
{
  g_autofree char *holder = flctl_describe_holder (snapshot, now_us);
  g_autofree char *lease = flctl_format_lease (fl_snapshot_get_lease_id (snapshot));
  /* The numbers as strings: xgettext cannot read G_GUINT64_FORMAT inside a message. */
  g_autofree char *token_number = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                                   fl_snapshot_get_fencing_token (snapshot));
  g_autofree char *revision = g_strdup_printf ("%" G_GINT64_FORMAT,
                                               fl_snapshot_get_revision (snapshot));
  g_autofree char *token = g_strdup_printf (_("%s (etcd revision %s)"), token_number, revision);
  gint64 ttl = fl_snapshot_get_lease_ttl (snapshot);
  GPtrArray *waiters = fl_snapshot_get_waiters (snapshot);
  g_autofree char *lease_line = NULL;
  g_autofree char *count = NULL;
  const char *content = fl_snapshot_get_content (snapshot);

  if (ttl > 0)
    {
      g_autofree char *seconds = g_strdup_printf ("%" G_GINT64_FORMAT, ttl);

      lease_line = g_strdup_printf (_("%s (TTL %s s left)"), lease, seconds);
    }
  else if (ttl == 0)
    lease_line = g_strdup_printf (_("%s (expired)"), lease);
  else
    lease_line = g_strdup (lease);

  flctl_print_field (fl_snapshot_get_waiting (snapshot) ? _("waiter") : _("holder"), holder);
  flctl_print_field (_("lease"), lease_line);
  flctl_print_field (_("token"), token);
  /* What an unreadable metadata key held, escaped: the operator sees what is there. */
  if (fl_snapshot_get_pid (snapshot) <= 0 && content != NULL && content[0] != '\0')
    {
      g_autofree char *escaped = flctl_printable (content);
      g_autofree char *quoted = g_strdup_printf ("\"%s\"", escaped);

      flctl_print_field (_("metadata"), quoted);
    }
  if (waiters == NULL)
    return;
  count = g_strdup_printf ("%u", waiters->len);
  flctl_print_field (_("waiters"), count);
  for (guint i = 0; i < waiters->len; i++)
    {
      FlSnapshot *waiter = waiters->pdata[i];
      g_autofree char *who = flctl_describe_holder (waiter, now_us);
      g_autofree char *wlease = flctl_format_lease (fl_snapshot_get_lease_id (waiter));

      g_print ("    %u. %s, lease %s, token %" G_GUINT64_FORMAT "\n", i + 1, who, wlease,
               fl_snapshot_get_fencing_token (waiter));
    }
}

void
flctl_print_record (FlSnapshot *snapshot,
                    gint64      now_us)
{
  gboolean color = flctl_use_color (STDOUT_FILENO);
  FlEntryKind kind = fl_snapshot_get_kind (snapshot);
  FlEntryState state = fl_snapshot_get_state (snapshot);
  const char *cmdline = fl_snapshot_get_process_cmdline (snapshot);
  const char *content = fl_snapshot_get_content (snapshot);
  const char *target = fl_snapshot_get_target (snapshot);
  g_autofree char *path = flctl_printable (fl_snapshot_get_path (snapshot));
  g_autofree char *styled = flctl_styled (fl_entry_state_to_string (state), flctl_style_for_state (state), color);
  g_autofree char *holder = flctl_describe_holder (snapshot, now_us);
  g_autofree char *age = fl_format_age (fl_snapshot_get_age_at (snapshot, now_us));
  g_autofree char *since = flctl_format_time (fl_snapshot_get_mtime (snapshot));
  g_autofree char *age_line = g_strdup_printf (_("%s (written %s)"), age, since);

  g_print ("%s\n", path);
  flctl_print_field (_("state"), styled);
  flctl_print_field (_("kind"), fl_entry_kind_to_string (kind));
  if (kind == FL_ENTRY_OTHER_PROGRAM)
    flctl_print_field (_("format"),
                       fl_lock_format_to_string (fl_snapshot_get_lock_format (snapshot)));
  if (target != NULL)
    {
      g_autofree char *shown = flctl_printable (target);

      flctl_print_field (_("target"), shown);
    }
  if (fl_snapshot_get_lease_id (snapshot) != 0)
    print_etcd_fields (snapshot, now_us);
  else if (kind != FL_ENTRY_FOREIGN)
    {
      gboolean made = kind == FL_ENTRY_TEMP || kind == FL_ENTRY_GRAVEYARD;

      flctl_print_field (made ? _("creator") : _("holder"), holder);
      if (cmdline != NULL && cmdline[0] != '\0')
        {
          g_autofree char *shown = flctl_printable (cmdline);

          flctl_print_field (_("command"), shown);
        }
      flctl_print_field (_("kernel lock"),
                         fl_kernel_lock_get_label (fl_snapshot_get_kernel_lock (snapshot)));
      if (content != NULL)
        {
          g_autofree char *escaped = flctl_printable (content);
          g_autofree char *quoted = g_strdup_printf ("\"%s\"", escaped);

          flctl_print_field (_("content"), quoted);
        }
      flctl_print_field (_("age"), age_line);
    }
  flctl_print_field (_("stale"), fl_snapshot_get_stale (snapshot) ? _("yes") : _("no"));
  flctl_print_field (_("reason"), fl_snapshot_get_reason (snapshot));
  if (kind == FL_ENTRY_OTHER_PROGRAM)
    {
      g_autofree char *about = fl_snapshot_dup_other_explanation (snapshot);

      flctl_print_field (_("about"), about);
    }
}
