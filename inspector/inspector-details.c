/* inspector-details.c: the details pane of the selected lock
 *
 * The list shows the model's snapshots, made without the holder's command line so that
 * 100,000 files load fast. The pane reads the one selected file again with every detail.
 *
 * The pane follows the selected entry's snapshot through a GSignalGroup. An etcd holder is
 * read again by libfl once a second while it is shown (inspector-etcd-reread.c): the lease's
 * countdown moves while etcd reports nothing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-details.h"
#include "inspector-etcd-reread.h"
#include "inspector-state.h"

struct _InspectorDetails
{
  GtkWidget         parent_instance;

  GtkStack         *stack;
  GtkImage         *state_icon;
  GtkLabel         *name_label;
  GtkLabel         *state_label;
  GtkGrid          *file_grid;
  GtkGrid          *holder_grid;
  GtkLabel         *evidence_label;
  GtkLabel         *related_label;
  GtkButton        *copy_button;
  GtkButton        *reclaim_button;
  GtkButton        *force_reclaim_button;
  GtkButton        *remove_button;
  GtkLabel         *age_value;
  GtkLabel         *ttl_value;

  FlDirectoryModel *model;
  FlEntry          *entry;
  GSignalGroup     *entry_signals;
  FlSnapshot       *reread;        /* libfl's last reading of the etcd lock shown, or NULL */
  GCancellable     *rereading;     /* while a reading is under way */
  gboolean          shown_exited;  /* what the Holder rows say */
};

G_DEFINE_FINAL_TYPE (InspectorDetails, inspector_details, GTK_TYPE_WIDGET)

static GtkLabel *
add_row (GtkGrid    *grid,
         int         row,
         const char *key,
         const char *value)
{
  GtkWidget *key_label = gtk_label_new (key);
  GtkWidget *value_label = gtk_label_new (value);

  gtk_label_set_xalign (GTK_LABEL (key_label), 0);
  gtk_label_set_yalign (GTK_LABEL (key_label), 0);
  gtk_widget_add_css_class (key_label, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (value_label), 0);
  gtk_label_set_wrap (GTK_LABEL (value_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (value_label), PANGO_WRAP_WORD_CHAR);
  /* Selectable with the mouse, to copy a path or PID; not a Tab stop each (the pane has
   * about twenty of them between the list and the buttons). */
  gtk_label_set_selectable (GTK_LABEL (value_label), TRUE);
  gtk_widget_set_focusable (value_label, FALSE);
  gtk_widget_set_hexpand (value_label, TRUE);
  /* Read as "Path: /the/path" by a screen reader. */
  gtk_accessible_update_relation (GTK_ACCESSIBLE (value_label),
                                  GTK_ACCESSIBLE_RELATION_LABELLED_BY, key_label, NULL, -1);
  gtk_grid_attach (grid, key_label, 0, row, 1, 1);
  gtk_grid_attach (grid, value_label, 1, row, 1, 1);
  return GTK_LABEL (value_label);
}

static void
clear_grid (GtkGrid *grid)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (grid))) != NULL)
    gtk_grid_remove (grid, child);
}

static char *
format_age_of (InspectorDetails *self,
               FlSnapshot       *snap)
{
  gint64 now = fl_directory_model_get_now (self->model);
  g_autofree char *when = inspector_format_time (fl_snapshot_get_mtime (snap));
  g_autofree char *age = fl_format_age (fl_snapshot_get_age_at (snap, now));

  /* TRANSLATORS: "<date and time> (<age> ago)" */
  return g_strdup_printf (_("%s (%s ago)"), when, age);
}

static char *
describe_related (InspectorDetails *self)
{
  g_autoptr(GPtrArray) related = fl_directory_model_dup_related (self->model, self->entry);
  GString *text;

  if (related->len == 0)
    return g_strdup (_("None."));

  text = g_string_new (NULL);
  for (guint i = 0; i < related->len; i++)
    {
      FlSnapshot *snap = fl_entry_get_snapshot (related->pdata[i]);
      const char *kind = fl_entry_kind_get_label (fl_snapshot_get_kind (snap));
      g_autofree char *state = fl_snapshot_dup_state_summary (snap);

      g_string_append_printf (text, "%s%s — %s, %s", i > 0 ? "\n" : "",
                              fl_snapshot_get_name (snap), kind, state);
    }
  return g_string_free (text, FALSE);
}

/* The size of the file itself, for binary content shown by its head only; -1 if unknown. */
static gint64
file_size_of (FlSnapshot *snap)
{
  g_autoptr(GFile) file = g_file_new_for_path (fl_snapshot_get_path (snap));
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                 G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);

  return info != NULL ? g_file_info_get_size (info) : -1;
}

/* The entry's snapshot, or libfl's later reading of the same acquisition (lease and token)
 * when there is one: a new holder is the model's to show. */
static FlSnapshot *
shown_snapshot (InspectorDetails *self)
{
  FlSnapshot *snap = fl_entry_get_snapshot (self->entry);

  if (self->reread != NULL &&
      fl_snapshot_get_lease_id (self->reread) == fl_snapshot_get_lease_id (snap) &&
      fl_snapshot_get_fencing_token (self->reread) == fl_snapshot_get_fencing_token (snap) &&
      fl_snapshot_get_captured_at (self->reread) > fl_snapshot_get_captured_at (snap))
    return self->reread;
  return snap;
}

static char *
format_ttl (FlSnapshot *snap)
{
  gint64 ttl = fl_snapshot_get_lease_ttl (snap);
  g_autofree char *age = NULL;

  if (ttl <= 0)
    return g_strdup (ttl == 0 ? _("expired") : "—");
  age = fl_format_age (ttl * G_USEC_PER_SEC);
  /* TRANSLATORS: the time left on an etcd lease when it was read, e.g. "8 s left" */
  return g_strdup_printf (_("%s left"), age);
}

/* An etcd lock is a key with a lease, not a file: its lease, the time left on it, its fencing
 * token, host and queue (docs/etcd.md), never "Kernel lock" or the metadata's raw JSON. */
static int
add_etcd_rows (InspectorDetails *self,
               FlSnapshot       *snap,
               int               row)
{
  GPtrArray *waiters = fl_snapshot_get_waiters (snap);
  g_autofree char *lease = g_strdup_printf ("%" G_GINT64_MODIFIER "x",
                                            fl_snapshot_get_lease_id (snap));
  g_autofree char *left = format_ttl (snap);
  g_autofree char *token = g_strdup_printf ("%" G_GUINT64_FORMAT,
                                            fl_snapshot_get_fencing_token (snap));
  g_autofree char *queue = NULL;

  if (waiters == NULL || waiters->len == 0)
    queue = g_strdup (_("none"));
  else
    queue = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u waiting", "%u waiting",
                                          waiters->len), waiters->len);

  add_row (self->file_grid, row++, _("Host"),
           fl_snapshot_get_host (snap) != NULL ? fl_snapshot_get_host (snap) : "—");
  add_row (self->file_grid, row++, _("Lease"), lease);
  self->ttl_value = add_row (self->file_grid, row++, _("TTL left"), left);
  add_row (self->file_grid, row++, _("Fencing token"), token);
  add_row (self->file_grid, row++, _("Waiters"), queue);
  return row;
}

void
inspector_details_refresh (InspectorDetails *self)
{
  g_autoptr(FlSnapshot) detailed = NULL;
  g_autofree char *state = NULL;
  const char *kind = NULL;
  g_autofree char *written = NULL;
  g_autofree char *file_owner = NULL;
  g_autofree char *evidence = NULL;
  g_autofree char *related = NULL;
  FlSnapshot *snap;
  const char *content;
  gboolean etcd;
  int row = 0;

  g_return_if_fail (INSPECTOR_IS_DETAILS (self));

  if (self->entry == NULL || self->model == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "none");
      return;
    }

  snap = shown_snapshot (self);
  self->ttl_value = NULL;
  self->shown_exited = fl_snapshot_get_holder_exited (snap);
  /* For the command line; the verdict shown stays the list's, the one a reclaim would use. */
  detailed = fl_snapshot_new (fl_snapshot_get_path (snap), NULL, NULL);

  state = fl_snapshot_dup_state_summary (snap);
  kind = fl_entry_kind_get_label (fl_snapshot_get_kind (snap));
  written = format_age_of (self, snap);
  file_owner = inspector_format_user (fl_snapshot_get_file_uid (snap));
  evidence = inspector_explain (snap);
  related = describe_related (self);
  content = fl_snapshot_get_content (snap);
  etcd = fl_snapshot_get_revision (snap) != 0;

  gtk_image_set_from_icon_name (self->state_icon,
                                inspector_state_icon_name (fl_snapshot_get_state (snap)));
  gtk_label_set_text (self->name_label, fl_snapshot_get_name (snap));
  gtk_label_set_text (self->state_label, state);

  clear_grid (self->file_grid);
  add_row (self->file_grid, row++, _("Path"), fl_snapshot_get_path (snap));
  add_row (self->file_grid, row++, _("Target"), fl_snapshot_get_target (snap));
  add_row (self->file_grid, row++, _("Kind"), kind);
  if (fl_snapshot_get_kind (snap) == FL_ENTRY_OTHER_PROGRAM)
    add_row (self->file_grid, row++, _("Program"),
             fl_lock_format_get_label (fl_snapshot_get_lock_format (snap)));
  if (etcd)
    row = add_etcd_rows (self, snap, row);
  else if (fl_snapshot_get_kind (snap) == FL_ENTRY_FOREIGN)
    {
      /* Never opened: no kernel lock or content to show; a link's target is its content. */
      if (content != NULL && content[0] != '\0')
        add_row (self->file_grid, row++, _("Points to"), content);
    }
  else
    {
      g_autofree char *shown = inspector_format_content (snap, file_size_of (snap));

      add_row (self->file_grid, row++, _("Kernel lock"),
               fl_kernel_lock_get_label (fl_snapshot_get_kernel_lock (snap)));
      add_row (self->file_grid, row++, _("Content"), shown);
    }
  self->age_value = add_row (self->file_grid, row++, etcd ? _("Queued") : _("Written"), written);
  if (!etcd)
    add_row (self->file_grid, row++, _("File owner"), file_owner);

  clear_grid (self->holder_grid);
  row = 0;
  if (fl_snapshot_get_kind (snap) == FL_ENTRY_OTHER_PROGRAM)
    {
      g_autofree char *owner = fl_snapshot_dup_owner_summary (snap);

      add_row (self->holder_grid, row++, _("Recorded owner"), owner);
    }
  if (fl_snapshot_get_pid (snap) > 0)
    {
      FlSnapshot *info = detailed != NULL && fl_snapshot_same_file (detailed, snap) ? detailed
                                                                                    : snap;
      g_autofree char *pid = g_strdup_printf ("%d", fl_snapshot_get_pid (snap));
      g_autofree char *user = inspector_format_user (fl_snapshot_get_process_uid (info));
      g_autofree char *started = inspector_format_time (fl_snapshot_get_process_start_time (info));
      const char *name = fl_snapshot_get_process_name (info);
      const char *cmdline = fl_snapshot_get_process_cmdline (info);

      gboolean reused = fl_snapshot_get_liveness (snap) == FL_LIVENESS_REUSED;

      add_row (self->holder_grid, row++, _("PID"), pid);
      if (fl_snapshot_get_holder_exited (snap))
        {
          /* The holder is gone; a process that inherited its descriptor keeps the lock: named
           * as libfl found it (the same snapshot's verdict), never as the holder. */
          int keeper = fl_snapshot_get_keeper_pid (snap);
          const char *keeper_name = fl_snapshot_get_keeper_name (snap);
          g_autofree char *kept = etcd ? g_strdup (_("its lease, until it expires"))
                                  : keeper <= 0 ? g_strdup (_("a process that inherited its "
                                                              "descriptor (not named here)"))
                                  : keeper_name != NULL
                                  ? g_strdup_printf ("%d · %s", keeper, keeper_name)
                                  : g_strdup_printf ("%d", keeper);

          add_row (self->holder_grid, row++, _("Process"), _("exited"));
          add_row (self->holder_grid, row++, _("Lock kept by"), kept);
        }
      else
        {
          /* A reused PID's process is not the holder: the rows below are the newcomer's. */
          add_row (self->holder_grid, row++, reused ? _("Now used by") : _("Process"),
                   name != NULL ? name : "—");
          add_row (self->holder_grid, row++, _("Command line"),
                   cmdline != NULL && cmdline[0] != '\0' ? cmdline : "—");
          add_row (self->holder_grid, row++, _("User"), user);
          add_row (self->holder_grid, row++, _("Started"), started);
        }
    }
  else if (fl_snapshot_get_kind (snap) != FL_ENTRY_FOREIGN)
    add_row (self->holder_grid, row++, _("PID"), _("none: the file names no process"));

  gtk_label_set_text (self->evidence_label, evidence);
  gtk_label_set_text (self->related_label, related);

  gtk_widget_set_visible (GTK_WIDGET (self->reclaim_button),
                          fl_snapshot_get_kind (snap) == FL_ENTRY_LOCK
                          && !inspector_offers_force_reclaim (snap));
  gtk_widget_set_visible (GTK_WIDGET (self->force_reclaim_button),
                          inspector_offers_force_reclaim (snap));
  gtk_widget_set_visible (GTK_WIDGET (self->remove_button),
                          fl_snapshot_get_kind (snap) == FL_ENTRY_TEMP
                          || fl_snapshot_get_kind (snap) == FL_ENTRY_GRAVEYARD);
  gtk_stack_set_visible_child_name (self->stack, "entry");
}

static void
set_text_if_changed (GtkLabel   *label,
                     const char *text)
{
  /* Setting the same text would drop a selection the user made to copy it. */
  if (label != NULL && g_strcmp0 (gtk_label_get_text (label), text) != 0)
    gtk_label_set_text (label, text);
}

/* libfl's new reading: what moves (the verdict's words, the state, the TTL) is updated in
 * place; the Holder rows are built again only when the holder turned out to have exited. */
static void
show_reread (InspectorDetails *self)
{
  FlSnapshot *snap = shown_snapshot (self);
  g_autofree char *evidence = NULL;
  g_autofree char *state = NULL;
  g_autofree char *ttl = NULL;

  if (fl_snapshot_get_holder_exited (snap) != self->shown_exited)
    {
      inspector_details_refresh (self);
      return;
    }
  evidence = inspector_explain (snap);
  state = fl_snapshot_dup_state_summary (snap);
  ttl = format_ttl (snap);
  set_text_if_changed (self->evidence_label, evidence);
  set_text_if_changed (self->state_label, state);
  set_text_if_changed (self->ttl_value, ttl);
}

static void
reread_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(InspectorDetails) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snap = inspector_etcd_reread_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->rereading);
  /* Gone (the lease expired) or unreachable: the model's watch says what comes next. */
  if (snap == NULL || self->entry == NULL)
    return;
  g_set_object (&self->reread, snap);
  show_reread (self);
}

static void
cancel_reread (InspectorDetails *self)
{
  if (self->rereading != NULL)
    g_cancellable_cancel (self->rereading);
  g_clear_object (&self->rereading);
  g_clear_object (&self->reread);
}

/* Once a second: the age moves; an etcd holder is asked about again. */
void
inspector_details_tick (InspectorDetails *self)
{
  g_autofree char *written = NULL;
  FlSnapshot *snap;

  g_return_if_fail (INSPECTOR_IS_DETAILS (self));

  if (self->entry == NULL || self->model == NULL || self->age_value == NULL)
    return;
  snap = fl_entry_get_snapshot (self->entry);
  written = format_age_of (self, snap);
  gtk_label_set_text (self->age_value, written);
  if (fl_snapshot_get_revision (snap) != 0 && !fl_snapshot_get_waiting (snap) &&
      self->rereading == NULL)
    {
      self->rereading = g_cancellable_new ();
      inspector_etcd_reread (fl_snapshot_get_target (snap), self->rereading, reread_cb,
                             g_object_ref (self));
    }
}

void
inspector_details_set_entry (InspectorDetails *self,
                             FlDirectoryModel *model,
                             FlEntry          *entry)
{
  g_return_if_fail (INSPECTOR_IS_DETAILS (self));
  g_return_if_fail (entry == NULL || FL_IS_ENTRY (entry));

  if (entry != self->entry)
    cancel_reread (self);
  g_set_object (&self->model, model);
  g_set_object (&self->entry, entry);
  self->age_value = NULL;
  g_signal_group_set_target (self->entry_signals, entry);
  inspector_details_refresh (self);
}

/* The focus on what can be done with the entry: Reclaim or Remove Orphan where they apply,
 * else Copy Path. */
gboolean
inspector_details_focus_action (InspectorDetails *self)
{
  GtkButton *buttons[] = { self->reclaim_button, self->force_reclaim_button, self->remove_button,
                           self->copy_button };

  g_return_val_if_fail (INSPECTOR_IS_DETAILS (self), FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    if (gtk_widget_is_visible (GTK_WIDGET (buttons[i]))
        && gtk_widget_is_sensitive (GTK_WIDGET (buttons[i]))
        && gtk_widget_grab_focus (GTK_WIDGET (buttons[i])))
      return TRUE;
  return FALSE;
}

const char *
inspector_details_get_evidence (InspectorDetails *self)
{
  g_return_val_if_fail (INSPECTOR_IS_DETAILS (self), NULL);

  return gtk_label_get_text (self->evidence_label);
}

const char *
inspector_details_get_state (InspectorDetails *self)
{
  g_return_val_if_fail (INSPECTOR_IS_DETAILS (self), NULL);

  return gtk_label_get_text (self->state_label);
}

static void
inspector_details_dispose (GObject *object)
{
  InspectorDetails *self = INSPECTOR_DETAILS (object);

  cancel_reread (self);
  g_clear_object (&self->entry_signals);
  g_clear_object (&self->entry);
  g_clear_object (&self->model);
  gtk_widget_dispose_template (GTK_WIDGET (self), INSPECTOR_TYPE_DETAILS);

  G_OBJECT_CLASS (inspector_details_parent_class)->dispose (object);
}

static void
inspector_details_class_init (InspectorDetailsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = inspector_details_dispose;

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/libfl/Inspector/inspector-details.ui");
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, stack);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, state_icon);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, name_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, state_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, file_grid);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, holder_grid);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, evidence_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, related_label);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, copy_button);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, reclaim_button);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, force_reclaim_button);
  gtk_widget_class_bind_template_child (widget_class, InspectorDetails, remove_button);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
inspector_details_init (InspectorDetails *self)
{
  self->entry_signals = g_signal_group_new (FL_TYPE_ENTRY);
  g_signal_group_connect_swapped (self->entry_signals, "notify::snapshot",
                                  G_CALLBACK (inspector_details_refresh), self);
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Details of the selected lock"), -1);
}
