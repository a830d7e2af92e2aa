/* inspector-window-actions.c: what a person can do in the window, and the guarded reclaim
 *
 * A reclaim passes the very snapshot shown in the confirmation to fl_directory_model_reclaim():
 * libfl refuses, touching nothing, if the file is not that one any more or its holder lives.
 * The window then says, in plain words, what happened.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-a11y.h"
#include "inspector-help.h"
#include "inspector-state.h"
#include "inspector-window-private.h"

typedef enum
{
  CONFIRM_RECLAIM,
  CONFIRM_FORCE_RECLAIM,
  CONFIRM_REMOVE_ORPHAN,
  CONFIRM_CLEAN_ORPHANS,
} ConfirmKind;

static FlSnapshot *
selected_snapshot (InspectorWindow *self)
{
  FlEntry *selected = _inspector_window_get_selected (self);

  return selected != NULL ? fl_entry_get_snapshot (selected) : NULL;
}

void
_inspector_window_update_actions (InspectorWindow *self)
{
  FlSnapshot *snap = selected_snapshot (self);
  FlEntryState state = snap != NULL ? fl_snapshot_get_state (snap) : FL_ENTRY_STATE_HELD;
  guint orphans = 0;

  if (self->model != NULL)
    g_object_get (self->model, "n-orphans", &orphans, NULL);

  /* Another program's lock may be stale too, but libfl never reclaims it: it says so. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.reclaim",
                                 snap != NULL && state == FL_ENTRY_STATE_STALE &&
                                 fl_snapshot_get_reclaimable (snap) == FL_RECLAIMABLE_STALE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.force-reclaim",
                                 snap != NULL && inspector_offers_force_reclaim (snap));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.remove-orphan",
                                 snap != NULL && state == FL_ENTRY_STATE_ORPHAN);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.copy-path", snap != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.show-details", snap != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.open-folder",
                                 snap != NULL
                                 && g_path_is_absolute (fl_snapshot_get_path (snap)));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clean-orphans",
                                 orphans > 0 && self->work == NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-work", self->work != NULL);
}

static void
dismiss_banner_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  gtk_revealer_set_reveal_child (INSPECTOR_WINDOW (widget)->banner, FALSE);
}

/* Reporting an outcome */

static void
report_response_cb (GtkDialog       *dialog,
                    int              response,
                    InspectorWindow *self)
{
  if (self->dialog == GTK_WINDOW (dialog))
    self->dialog = NULL;
  gtk_window_destroy (GTK_WINDOW (dialog));
  _inspector_window_focus_selected_row (self);
}

static void
report_failure (InspectorWindow *self,
                const char      *title,
                const char      *text)
{
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s", title);

  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", text);
  g_signal_connect (dialog, "response", G_CALLBACK (report_response_cb), self);
  self->dialog = GTK_WINDOW (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
  _inspector_window_show_banner (self, FALSE, text);
}

/* Why nothing was touched, from the error and from what the file is now. @changed_at is when
 * the confirmation saw the change (NULL: libfl found it at the click, so now). */
static char *
explain_refusal (InspectorWindow *self,
                 FlSnapshot      *seen,
                 const char      *changed_at,
                 const GError    *error)
{
  const char *name = fl_snapshot_get_name (seen);
  FlEntry *now = fl_directory_model_lookup (self->model, fl_snapshot_get_path (seen));
  g_autofree char *at = changed_at != NULL ? g_strdup (changed_at)
                                           : inspector_format_clock (g_get_real_time ());

  if (g_error_matches (error, FL_ERROR, FL_ERROR_CHANGED))
    {
      if (now == NULL)
        return g_strdup_printf (_("“%s” went away at %s, after the confirmation opened: another "
                                  "process released or removed it. Nothing was touched."),
                                name, at);
      if (fl_snapshot_get_state (fl_entry_get_snapshot (now)) == FL_ENTRY_STATE_HELD
          && fl_snapshot_get_pid (fl_entry_get_snapshot (now)) > 0
          && fl_snapshot_get_pid (fl_entry_get_snapshot (now)) != fl_snapshot_get_pid (seen))
        return g_strdup_printf (_("“%s” was taken over at %s, after the confirmation opened: "
                                  "process %d holds it now. Nothing was touched."),
                                name, at, fl_snapshot_get_pid (fl_entry_get_snapshot (now)));
      if (fl_snapshot_get_pid (fl_entry_get_snapshot (now)) > 0
          && fl_snapshot_get_pid (fl_entry_get_snapshot (now)) != fl_snapshot_get_pid (seen))
        return g_strdup_printf (_("“%s” changed at %s, after the confirmation opened: it now "
                                  "names process %d. Nothing was touched."),
                                name, at, fl_snapshot_get_pid (fl_entry_get_snapshot (now)));
      return g_strdup_printf (_("“%s” changed at %s, after the confirmation opened (another "
                                "file, content or holder). Nothing was touched."), name, at);
    }
  if (g_error_matches (error, FL_ERROR, FL_ERROR_NOT_STALE))
    return g_strdup_printf (_("“%s” is not stale any more: its holder is alive. Nothing was "
                              "touched."), name);
  if (g_error_matches (error, FL_ERROR, FL_ERROR_PERMISSION))
    return g_strdup_printf (_("You may not remove “%s”: permission denied. Nothing was touched. "
                              "Ask the file's owner or an administrator."), name);
  if (g_error_matches (error, FL_ERROR, FL_ERROR_FOREIGN))
    return g_strdup_printf (_("“%s” is not a regular file: it is never removed from here. "
                              "Nothing was touched."), name);
  return g_strdup_printf (_("“%s” could not be removed: %s"), name, error->message);
}

static void
reclaim_one (InspectorWindow *self,
             FlSnapshot      *seen,
             const char      *changed_at,
             gboolean         forced)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *name = fl_snapshot_get_name (seen);
  gboolean is_lock = fl_snapshot_get_kind (seen) == FL_ENTRY_LOCK;

  /* Forced: libfl's own checks (the very file seen, its kernel lock not held) still apply;
   * only the not-stale verdict is accepted (docs/protocol.md, section 7). */
  if (forced ? !fl_snapshot_reclaim_unproven (seen, NULL, &error)
             : !fl_directory_model_reclaim (self->model, seen, &error))
    {
      text = explain_refusal (self, seen, changed_at, error);
      report_failure (self,
                      is_lock ? _("The lock was not reclaimed") : _("The file was not removed"),
                      text);
      return;
    }

  if (!is_lock)
    text = g_strdup_printf (_("Removed the orphaned file “%s”."), name);
  else if (forced)
    text = g_strdup_printf (_("Force-reclaimed the lock “%s”, on your word that its holder was "
                              "gone; the next process that asks for the lock gets it."), name);
  else if (fl_snapshot_get_pid (seen) > 0)
    text = g_strdup_printf (_("Reclaimed the lock “%s”. Its holder, process %d, was gone; the "
                              "next process that asks for the lock gets it."),
                            name, fl_snapshot_get_pid (seen));
  else
    text = g_strdup_printf (_("Reclaimed the lock “%s”. It named no process; the next process "
                              "that asks for the lock gets it."), name);
  _inspector_window_show_banner (self, TRUE, text);
}

/* Confirmation */

static void
confirm_response_cb (GtkDialog       *dialog,
                     int              response,
                     InspectorWindow *self)
{
  ConfirmKind kind = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "inspector-kind"));
  g_autoptr(GObject) keep = g_object_ref (G_OBJECT (dialog));

  if (self->dialog == GTK_WINDOW (dialog))
    self->dialog = NULL;
  gtk_widget_set_visible (GTK_WIDGET (dialog), FALSE);

  if (response == GTK_RESPONSE_ACCEPT)
    {
      if (kind == CONFIRM_CLEAN_ORPHANS)
        _inspector_window_remove_orphans (self, g_object_get_data (G_OBJECT (dialog),
                                                                   "inspector-snapshots"));
      else
        reclaim_one (self, g_object_get_data (G_OBJECT (dialog), "inspector-snapshot"),
                     g_object_get_data (G_OBJECT (dialog), "inspector-changed-at"),
                     kind == CONFIRM_FORCE_RECLAIM);
    }
  gtk_window_destroy (GTK_WINDOW (dialog));
  /* Back where the person was, to go on with the keyboard (unless a report opened). */
  if (self->dialog == NULL)
    _inspector_window_focus_selected_row (self);
}

/* While the confirmation is open, a change to the file shows in it at once: what is true now
 * replaces the evidence, with the time the change was seen, and the button that would act is
 * disabled. (A reclaim would be refused anyway: it passes the snapshot that was confirmed.)
 * @now is NULL when the file went away. */
static void
show_changed (GtkWidget  *dialog,
              FlSnapshot *now,
              gboolean    taken_over)
{
  g_autofree char *at = inspector_format_clock (g_get_real_time ());
  g_autofree char *text = NULL;
  FlSnapshot *seen = g_object_get_data (G_OBJECT (dialog), "inspector-snapshot");

  if (g_object_get_data (G_OBJECT (dialog), "inspector-changed-at") == NULL)
    g_object_set_data_full (G_OBJECT (dialog), "inspector-changed-at", g_strdup (at), g_free);
  gtk_dialog_set_response_sensitive (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT, FALSE);
  if (now == NULL && taken_over)
    text = g_strdup_printf (_("This lock was taken over at %s, after this window opened: "
                              "another process moved it aside to take the lock itself. "
                              "Nothing will be touched."), at);
  else if (now == NULL)
    text = g_strdup_printf (_("This file went away at %s, after this window opened: another "
                              "process released or removed it. There is nothing left to act "
                              "on; nothing will be touched."), at);
  else if (fl_snapshot_get_kind (now) == FL_ENTRY_LOCK
           && fl_snapshot_get_state (now) == FL_ENTRY_STATE_HELD
           && fl_snapshot_get_pid (now) > 0
           && fl_snapshot_get_pid (now) != fl_snapshot_get_pid (seen))
    {
      g_autofree char *holder = inspector_format_holder (now);
      g_autofree char *evidence = inspector_explain (now);

      text = g_strdup_printf (_("This lock was taken over at %s, after this window opened: "
                                "process %s holds it now, so nothing will be touched.\n\n"
                                "What is true now:\n%s"), at, holder, evidence);
    }
  else
    {
      g_autofree char *holder = fl_snapshot_get_pid (now) > 0 ? inspector_format_holder (now)
                                                               : g_strdup (_("none"));
      g_autofree char *evidence = inspector_explain (now);

      text = g_strdup_printf (_("This file changed at %s, after this window opened: it is not "
                                "the one you were asked about, so nothing will be touched.\n\n"
                                "What is true now:\nProcess (PID): %s\n\nEvidence:\n%s"),
                              at, holder, evidence);
    }
  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", text);
}

static void
confirmed_entry_changed_cb (FlEntry    *entry,
                            GParamSpec *pspec,
                            GtkWidget  *dialog)
{
  FlSnapshot *seen = g_object_get_data (G_OBJECT (dialog), "inspector-snapshot");

  if (!fl_snapshot_same_file (seen, fl_entry_get_snapshot (entry)))
    show_changed (dialog, fl_entry_get_snapshot (entry), FALSE);
}

/* The entry left the model: its file is gone. */
static void
confirmed_entry_gone_cb (FlDirectoryModel *model,
                         FlEntry          *entry,
                         FlChange          change,
                         GtkWidget        *dialog)
{
  FlSnapshot *seen = g_object_get_data (G_OBJECT (dialog), "inspector-snapshot");

  if ((change == FL_CHANGE_RELEASED || change == FL_CHANGE_TAKEN_OVER) &&
      g_strcmp0 (fl_entry_get_path (entry), fl_snapshot_get_path (seen)) == 0 &&
      fl_directory_model_lookup (model, fl_snapshot_get_path (seen)) == NULL)
    show_changed (dialog, NULL, change == FL_CHANGE_TAKEN_OVER);
  else if (change == FL_CHANGE_CREATED &&
           g_strcmp0 (fl_entry_get_path (entry), fl_snapshot_get_path (seen)) == 0 &&
           !fl_snapshot_same_file (seen, fl_entry_get_snapshot (entry)))
    /* The new holder's file under the same name: what replaced the one asked about. */
    show_changed (dialog, fl_entry_get_snapshot (entry), FALSE);
}

static GtkWidget *
confirm_dialog (InspectorWindow *self,
                ConfirmKind      kind,
                const char      *title,
                const char      *body,
                const char      *accept)
{
  GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self),
                                              GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                              GTK_MESSAGE_WARNING, GTK_BUTTONS_NONE, "%s", title);
  GtkWidget *button;

  gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", body);
  gtk_dialog_add_button (GTK_DIALOG (dialog), _("_Cancel"), GTK_RESPONSE_CANCEL);
  button = gtk_dialog_add_button (GTK_DIALOG (dialog), accept, GTK_RESPONSE_ACCEPT);
  gtk_widget_add_css_class (button, "destructive-action");
  gtk_dialog_set_default_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_object_set_data (G_OBJECT (dialog), "inspector-kind", GINT_TO_POINTER (kind));
  g_signal_connect (dialog, "response", G_CALLBACK (confirm_response_cb), self);
  inspector_a11y_name_buttons (dialog);
  return dialog;
}

/* The stronger confirmation of a forced reclaim: its button stays off until the person says
 * that the holder is gone, and stays off once the file changed (show_changed()). */
static void
force_check_toggled_cb (GtkCheckButton *check,
                        GtkDialog      *dialog)
{
  gtk_dialog_set_response_sensitive (dialog, GTK_RESPONSE_ACCEPT,
                                     gtk_check_button_get_active (check)
                                     && g_object_get_data (G_OBJECT (dialog),
                                                           "inspector-changed-at") == NULL);
}

static void
add_force_check (GtkWidget *dialog)
{
  GtkWidget *area = gtk_message_dialog_get_message_area (GTK_MESSAGE_DIALOG (dialog));
  GtkWidget *check = gtk_check_button_new_with_mnemonic (_("I have checked that _no process "
                                                           "uses this lock"));

  gtk_box_append (GTK_BOX (area), check);
  gtk_dialog_set_response_sensitive (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT, FALSE);
  g_object_set_data (G_OBJECT (dialog), "inspector-force-check", check);
  g_signal_connect (check, "toggled", G_CALLBACK (force_check_toggled_cb), dialog);
}

static void
confirm_one (InspectorWindow *self,
             ConfirmKind      kind)
{
  g_autoptr(FlSnapshot) seen = NULL;
  g_autofree char *title = NULL;
  g_autofree char *holder = NULL;
  g_autofree char *evidence = NULL;
  g_autofree char *body = NULL;
  const char *what;
  GtkWidget *dialog;
  FlEntry *selected = _inspector_window_get_selected (self);

  if (selected == NULL || self->dialog != NULL)
    return;

  /* This is the snapshot the person sees and confirms; the reclaim uses exactly it. */
  seen = fl_entry_dup_snapshot (selected);
  evidence = inspector_explain (seen);
  holder = fl_snapshot_get_pid (seen) > 0 ? inspector_format_holder (seen) : g_strdup (_("none"));

  if (kind == CONFIRM_FORCE_RECLAIM)
    {
      title = g_strdup_printf (_("Force reclaim the lock “%s”?"), fl_snapshot_get_name (seen));
      what = _("libfl does not call this lock stale by itself: nothing proves that its holder is "
               "gone. Force it only if you know that no process uses the lock; if one still does, "
               "two processes will think they hold it.\n\nWhat happens: libfl checks again that "
               "the lock is still this very file and that no process holds its kernel lock, then "
               "moves it aside and deletes it, as flctl reclaim --force does.");
    }
  else if (kind == CONFIRM_RECLAIM)
    {
      title = g_strdup_printf (_("Reclaim the lock “%s”?"), fl_snapshot_get_name (seen));
      what = _("What happens: libfl checks again that the lock is still this very file and still "
               "stale, then moves it aside and deletes it. The next process that asks for the "
               "lock gets it. If anything changed, nothing is touched.");
    }
  else
    {
      title = g_strdup_printf (_("Remove the orphaned file “%s”?"), fl_snapshot_get_name (seen));
      what = _("What happens: libfl checks again that this is still the very file and that its "
               "creator is gone, then deletes it. No lock is affected. If anything changed, "
               "nothing is touched.");
    }
  body = g_strdup_printf (_("File: %s\nProcess (PID): %s\n\nEvidence:\n%s\n\n%s"),
                          fl_snapshot_get_path (seen), holder, evidence, what);

  dialog = confirm_dialog (self, kind, title, body,
                           kind == CONFIRM_FORCE_RECLAIM ? _("_Force Reclaim")
                           : kind == CONFIRM_RECLAIM ? _("_Reclaim") : _("_Remove"));
  if (kind == CONFIRM_FORCE_RECLAIM)
    add_force_check (dialog);
  g_object_set_data_full (G_OBJECT (dialog), "inspector-snapshot", g_steal_pointer (&seen),
                          g_object_unref);
  g_signal_connect_object (selected, "notify::snapshot",
                           G_CALLBACK (confirmed_entry_changed_cb), dialog, 0);
  g_signal_connect_object (self->model, "entry-changed",
                           G_CALLBACK (confirmed_entry_gone_cb), dialog, 0);
  self->dialog = GTK_WINDOW (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
reclaim_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  FlSnapshot *snap = selected_snapshot (self);

  if (snap != NULL && fl_snapshot_get_state (snap) == FL_ENTRY_STATE_STALE)
    confirm_one (self, CONFIRM_RECLAIM);
}

static void
force_reclaim_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  FlSnapshot *snap = selected_snapshot (self);

  if (snap != NULL && inspector_offers_force_reclaim (snap))
    confirm_one (self, CONFIRM_FORCE_RECLAIM);
}

static void
remove_orphan_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  FlSnapshot *snap = selected_snapshot (self);

  if (snap != NULL && fl_snapshot_get_state (snap) == FL_ENTRY_STATE_ORPHAN)
    confirm_one (self, CONFIRM_REMOVE_ORPHAN);
}

static void
clean_orphans_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  GListModel *list = G_LIST_MODEL (self->model);
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *title = NULL;
  g_autofree char *body = NULL;
  GtkWidget *dialog;

  if (self->dialog != NULL || self->work != NULL)
    return;

  /* A pass over all entries, on a person's request only. */
  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (list, i);
      FlSnapshot *snap = fl_entry_get_snapshot (entry);

      if (fl_snapshot_get_state (snap) != FL_ENTRY_STATE_ORPHAN)
        continue;
      if (seen->len < 10)
        g_string_append_printf (names, "\n• %s", fl_snapshot_get_path (snap));
      g_ptr_array_add (seen, g_object_ref (snap));
    }
  if (seen->len == 0)
    return;
  if (seen->len > 10)
    g_string_append (names, "\n• …");

  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Remove %u orphaned file?",
                                        "Remove %u orphaned files?", seen->len), seen->len);
  body = g_strdup_printf (_("These temp and graveyard files were left by processes that are "
                            "gone; nothing will ever use them:%s\n\nWhat happens: libfl checks "
                            "each file again and deletes it only if it is still the very file "
                            "listed and its creator is still gone. No lock is affected."),
                          names->str);
  dialog = confirm_dialog (self, CONFIRM_CLEAN_ORPHANS, title, body, _("_Remove"));
  g_object_set_data_full (G_OBJECT (dialog), "inspector-snapshots", g_steal_pointer (&seen),
                          (GDestroyNotify) g_ptr_array_unref);
  self->dialog = GTK_WINDOW (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
refresh_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);

  fl_directory_model_rescan (self->model);
  /* In the Kernel Locks view, F5 reads the kernel's table now rather than at the next second. */
  if (gtk_widget_get_mapped (GTK_WIDGET (self->kernel_view)))
    inspector_kernel_view_refresh (self->kernel_view);
}

static void
copy_path_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);
  FlSnapshot *snap = selected_snapshot (self);
  g_autofree char *text = NULL;

  if (snap == NULL)
    return;
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), fl_snapshot_get_path (snap));
  text = g_strdup_printf (_("Copied “%s” to the clipboard."), fl_snapshot_get_path (snap));
  _inspector_window_show_banner (self, TRUE, text);
}

static void
help_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  InspectorWindow *self = INSPECTOR_WINDOW (widget);

  if (self->help == NULL)
    {
      self->help = inspector_help_new (GTK_WINDOW (self));
      g_object_add_weak_pointer (G_OBJECT (self->help), (gpointer *) &self->help);
    }
  gtk_window_present (self->help);
}

static void
stop_work_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  _inspector_window_stop_work (INSPECTOR_WINDOW (widget));
}

static void
focus_search_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  gtk_widget_grab_focus (GTK_WIDGET (INSPECTOR_WINDOW (widget)->search_entry));
}

void
_inspector_window_install_actions (GtkWidgetClass *widget_class)
{
  _inspector_window_install_folder_actions (widget_class);
  gtk_widget_class_install_action (widget_class, "win.refresh", NULL, refresh_action);
  gtk_widget_class_install_action (widget_class, "win.reclaim", NULL, reclaim_action);
  gtk_widget_class_install_action (widget_class, "win.force-reclaim", NULL, force_reclaim_action);
  gtk_widget_class_install_action (widget_class, "win.remove-orphan", NULL, remove_orphan_action);
  gtk_widget_class_install_action (widget_class, "win.clean-orphans", NULL, clean_orphans_action);
  gtk_widget_class_install_action (widget_class, "win.copy-path", NULL, copy_path_action);
  gtk_widget_class_install_action (widget_class, "win.stop-work", NULL, stop_work_action);
  gtk_widget_class_install_action (widget_class, "win.help", NULL, help_action);
  gtk_widget_class_install_action (widget_class, "win.focus-search", NULL, focus_search_action);
  gtk_widget_class_install_action (widget_class, "win.dismiss-banner", NULL,
                                   dismiss_banner_action);
  gtk_widget_class_install_property_action (widget_class, "win.problems-only", "problems-only");

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F5, 0, "win.refresh", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F1, 0, "win.help", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.refresh",
                                       NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK,
                                       "win.focus-search", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_p, GDK_CONTROL_MASK,
                                       "win.problems-only", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_c, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "win.copy-path", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete,
                                       GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.clean-orphans",
                                       NULL);
}
