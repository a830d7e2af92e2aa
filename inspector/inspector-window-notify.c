/* inspector-window-notify.c: a desktop notification when a watched lock turns stale
 *
 * Optional and off by default (GSettings key notify-stale, "Notify When Locks Turn Stale" in
 * the main menu): a person who keeps the window open beside a build farm learns of a crashed
 * holder without looking. The model says when a holder died (FL_CHANGE_HOLDER_DIED) and has
 * judged the entry again by then; a lock whose verdict is then stale is what is announced, in
 * libfl's words (its reason). Many locks turning stale at once (a machine's jobs killed) make
 * one notification, not hundreds: the first arms a short delay, and the notification says how
 * many and names the last; it has one id, so a later one replaces it, as GNOME apps do.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-window-private.h"

#define GATHER_MS 500

static void
send_cb (gpointer user_data)
{
  InspectorWindow *self = user_data;
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autoptr(GNotification) notification = NULL;
  g_autoptr(GIcon) icon = g_themed_icon_new ("org.libfl.Inspector");
  g_autofree char *title = NULL;

  self->stale_gather_id = 0;
  if (self->stale_count == 1)
    title = g_strdup (_("A lock turned stale"));
  else
    title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u lock turned stale",
                                          "%u locks turned stale", self->stale_count),
                             self->stale_count);
  notification = g_notification_new (title);
  g_notification_set_body (notification, self->stale_body);
  g_notification_set_icon (notification, icon);
  self->stale_locks += self->stale_count;
  self->stale_count = 0;
  self->stale_sent++;
  g_free (self->stale_title);
  self->stale_title = g_steal_pointer (&title);
  /* A window without an application (the tests') keeps what it would have sent. */
  if (app != NULL)
    g_application_send_notification (G_APPLICATION (app), "stale-locks", notification);
}

static void
entry_changed_cb (FlDirectoryModel *model,
                  FlEntry          *entry,
                  FlChange          change,
                  InspectorWindow  *self)
{
  FlSnapshot *snap = fl_entry_get_snapshot (entry);
  g_autofree char *folder = NULL;
  const char *reason;

  if (change != FL_CHANGE_HOLDER_DIED || fl_snapshot_get_state (snap) != FL_ENTRY_STATE_STALE ||
      !g_settings_get_boolean (self->settings, "notify-stale"))
    return;
  folder = g_path_get_dirname (fl_entry_get_path (entry));
  reason = fl_snapshot_get_reason (snap);
  g_free (self->stale_body);
  /* TRANSLATORS: a notification's text: the lock's name, its folder, then libfl's reason,
   * e.g. "“report.csv.lock” in /srv/jobs: the holder PID 4711 is gone (no such process)" */
  self->stale_body = g_strdup_printf (_("“%s” in %s: %s"), fl_snapshot_get_name (snap), folder,
                                      reason != NULL ? reason : "");
  self->stale_count++;
  if (self->stale_gather_id == 0)
    self->stale_gather_id = g_timeout_add_once (GATHER_MS, send_cb, self);
}

void
_inspector_window_setup_notify (InspectorWindow *self)
{
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GAction) action = g_settings_create_action (self->settings, "notify-stale");

  g_action_map_add_action (G_ACTION_MAP (group), action);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "prefs", G_ACTION_GROUP (group));
  g_signal_connect_object (self->model, "entry-changed", G_CALLBACK (entry_changed_cb), self, 0);
}

void
_inspector_window_teardown_notify (InspectorWindow *self)
{
  g_clear_handle_id (&self->stale_gather_id, g_source_remove);
  g_clear_pointer (&self->stale_body, g_free);
  g_clear_pointer (&self->stale_title, g_free);
}
