/* flctl-watch.c: `flctl watch DIR…`, one line or one JSON object per change, as it happens
 *
 * The events come from FlDirectoryModel, the same model the Lock Inspector shows, so flctl and
 * the inspector never disagree about what happened.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-os.h"
#include "flctl-private.h"

typedef struct
{
  gboolean json;
  gboolean color;
} Watch;

/* Part of the documented output: append, never rename. */
static const char *
change_to_string (FlChange change)
{
  switch (change)
    {
    case FL_CHANGE_CREATED:
      return "created";
    case FL_CHANGE_RELEASED:
      return "released";
    case FL_CHANGE_TAKEN_OVER:
      return "taken-over";
    case FL_CHANGE_HOLDER_DIED:
      return "holder-died";
    case FL_CHANGE_UPDATED:
    default:
      return "updated";
    }
}

static FlctlStyle
change_style (FlChange change)
{
  switch (change)
    {
    case FL_CHANGE_CREATED:
      return FLCTL_STYLE_GOOD;
    case FL_CHANGE_HOLDER_DIED:
    case FL_CHANGE_TAKEN_OVER:
      return FLCTL_STYLE_BAD;
    case FL_CHANGE_RELEASED:
      return FLCTL_STYLE_DIM;
    case FL_CHANGE_UPDATED:
    default:
      return FLCTL_STYLE_NONE;
    }
}

/* After a release the snapshot is the file's last picture; the state says what it is now. */
static const char *
state_now (FlSnapshot *snapshot,
           FlChange    change)
{
  if (change != FL_CHANGE_RELEASED)
    return NULL;
  return fl_snapshot_get_kind (snapshot) == FL_ENTRY_LOCK ? "unlocked" : "gone";
}

static void
print_json_event (FlSnapshot *snapshot,
                  FlChange    change,
                  gint64      now)
{
  g_autoptr(FlctlJson) builder = flctl_json_new (FALSE);
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_utc (now / G_USEC_PER_SEC);
  g_autofree char *stamp = g_date_time_format (time, "%Y-%m-%dT%H:%M:%S");
  g_autofree char *stamp_ms = g_strdup_printf ("%s.%03dZ", stamp,
                                               (int) (now % G_USEC_PER_SEC / 1000));

  flctl_json_begin_object (builder);
  flctl_json_set_member_name (builder, "event");
  flctl_json_add_string_value (builder, change_to_string (change));
  flctl_json_set_member_name (builder, "time");
  flctl_json_add_string_value (builder, stamp_ms);
  flctl_add_snapshot_members (builder, snapshot, state_now (snapshot, change), now);
  flctl_json_add_schema (builder);
  flctl_json_end_object (builder);
  flctl_print_json (builder);
}

static void
print_line_event (Watch      *watch,
                  FlSnapshot *snapshot,
                  FlChange    change,
                  gint64      now)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_local (now / G_USEC_PER_SEC);
  g_autofree char *stamp = g_date_time_format (time, "%H:%M:%S");
  g_autofree char *event = g_strdup_printf ("%-11s", change_to_string (change));
  g_autofree char *styled = flctl_styled (event, change_style (change), watch->color);
  g_autofree char *path = flctl_printable (fl_snapshot_get_path (snapshot));
  const char *process = fl_snapshot_get_process_name (snapshot);
  int pid = fl_snapshot_get_pid (snapshot);
  g_autofree char *holder = pid > 0 ? g_strdup_printf ("PID %d (%s)", pid,
                                                       process != NULL ? process : "?")
                                    : g_strdup ("-");

  /* After a release the state is the file's last one; the event word says what happened. */
  g_print ("%s  %s %-9s %-7s %-24s %s\n", stamp, styled,
           fl_entry_kind_to_string (fl_snapshot_get_kind (snapshot)),
           change == FL_CHANGE_RELEASED || change == FL_CHANGE_TAKEN_OVER
             ? "-" : fl_entry_state_to_string (fl_snapshot_get_state (snapshot)),
           holder, path);
  fflush (stdout);
}

static void
entry_changed_cb (FlDirectoryModel *model,
                  FlEntry          *entry,
                  FlChange          change,
                  gpointer          user_data)
{
  Watch *watch = user_data;
  g_autoptr(FlSnapshot) snapshot = fl_entry_dup_snapshot (entry);
  gint64 now = g_get_real_time ();

  if (snapshot == NULL)
    return;
  if (watch->json)
    print_json_event (snapshot, change, now);
  else
    print_line_event (watch, snapshot, change, now);
}

static gboolean
quit_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

int
flctl_watch_main (const FlctlArgs *args)
{
  g_autoptr(FlDirectoryModel) model = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  Watch watch = { args->json, FALSE };
  guint n_directories = g_strv_length (args->operands);
  guint stop_handler;

  watch.color = !watch.json && flctl_use_color (STDOUT_FILENO);
  loop = g_main_loop_new (NULL, FALSE);
  model = fl_directory_model_new (NULL);
  g_signal_connect (model, "entry-changed", G_CALLBACK (entry_changed_cb), &watch);

  for (guint i = 0; i < n_directories; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!fl_directory_model_add_directory (model, args->operands[i], args->recursive, &error))
        return flctl_report_error ("watch", error);
    }

  stop_handler = flctl_os_add_stop_handler (quit_cb, loop);

  /* Tests and scripts wait for this line before they change anything. */
  g_printerr (ngettext ("flctl watch: watching %u directory, until interrupted\n",
                        "flctl watch: watching %u directories, until interrupted\n",
                        n_directories),
              n_directories);
  g_main_loop_run (loop);

  flctl_os_remove_stop_handler (stop_handler);
  g_signal_handlers_disconnect_by_data (model, &watch);
  return FLCTL_EXIT_OK;
}
