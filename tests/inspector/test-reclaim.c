/* test-reclaim.c: the guarded reclaim and orphan removal, through the window, under Xvfb
 *
 * The confirmation's answer is given the way a person gives it: the test finds the
 * GtkMessageDialog the window opened and emits its response.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "inspector-state.h"
#include "ui-test-util.h"

static GtkWidget *
reclaim_button (InspectorWindow *window)
{
  GtkWidget *button = ui_find_actionable (GTK_WIDGET (window->details), "win.reclaim");

  g_assert_nonnull (button);
  return button;
}

static char *
dialog_text (GtkWindow *dialog)
{
  g_autofree char *text = NULL;
  g_autofree char *secondary = NULL;

  g_object_get (dialog, "text", &text, "secondary-text", &secondary, NULL);
  return g_strconcat (text, "\n", secondary, NULL);
}

/* Enabled only for a lock the library judges stale. */
static void
test_reclaim_enabled (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  FlEntry *alive = ui_lookup (window, "database.sqlite.lock");
  FlEntry *stale = ui_lookup (window, "report.csv.lock");

  g_assert_true (_inspector_window_select_path (window, fl_entry_get_path (alive)));
  g_assert_true (_inspector_window_get_selected (window) == alive);
  g_assert_false (gtk_widget_get_sensitive (reclaim_button (window)));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL);
  g_assert_null (_inspector_window_get_dialog (window));

  g_assert_true (_inspector_window_select_path (window, fl_entry_get_path (stale)));
  g_assert_true (gtk_widget_get_sensitive (reclaim_button (window)));
  g_assert_cmpstr (inspector_details_get_evidence (window->details), !=, "");

  ui_window_close (window);
}

static gboolean
dialog_open (gpointer data)
{
  return _inspector_window_get_dialog (data) != NULL;
}

/* Accepted: the lock is removed, its row goes, the window says so. */
static void
test_reclaim_accepted (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "report.csv.lock");
  FlEntry *stale = ui_lookup (window, "report.csv.lock");
  int pid = fl_snapshot_get_pid (fl_entry_get_snapshot (stale));
  g_autofree char *pid_text = g_strdup_printf ("%d", pid);
  g_autofree char *text = NULL;
  guint rows = g_list_model_get_n_items (_inspector_window_get_rows (window));
  GtkWindow *dialog;

  g_assert_true (_inspector_window_select_path (window, path));
  /* As a person does it: the details pane's Reclaim button has the focus when pressed. */
  g_assert_true (gtk_widget_grab_focus (reclaim_button (window)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL));
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  dialog = _inspector_window_get_dialog (window);
  g_assert_true (GTK_IS_MESSAGE_DIALOG (dialog));

  /* It names the lock, the PID, the evidence and what will happen. */
  text = dialog_text (dialog);
  g_assert_nonnull (strstr (text, "report.csv.lock"));
  g_assert_nonnull (strstr (text, pid_text));
  g_assert_nonnull (strstr (text, "Evidence"));
  g_assert_nonnull (strstr (text, "What happens"));

  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_assert_null (_inspector_window_get_dialog (window));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  /* The keyboard focus is back in the list. */
  {
    GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (window));

    g_assert_nonnull (focus);
    g_assert_true (focus == GTK_WIDGET (window->column_view) ||
                   gtk_widget_is_ancestor (focus, GTK_WIDGET (window->column_view)));
  }
  g_assert_null (fl_directory_model_lookup (window->model, path));
  g_assert_cmpuint (g_list_model_get_n_items (_inspector_window_get_rows (window)), ==, rows - 1);
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "Reclaimed"));
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "report.csv.lock"));

  ui_window_close (window);
}

/* Declined: nothing happens. */
static void
test_reclaim_cancelled (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "report.csv.lock");

  g_assert_true (_inspector_window_select_path (window, path));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  gtk_dialog_response (GTK_DIALOG (_inspector_window_get_dialog (window)), GTK_RESPONSE_CANCEL);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_nonnull (fl_directory_model_lookup (window->model, path));
  g_assert_null (_inspector_window_get_banner_text (window));

  ui_window_close (window);
}

static gboolean
accept_sensitive (GtkWindow *dialog)
{
  GtkWidget *accept = gtk_dialog_get_widget_for_response (GTK_DIALOG (dialog),
                                                          GTK_RESPONSE_ACCEPT);

  g_assert_nonnull (accept);
  return gtk_widget_get_sensitive (accept);
}

/* The lock changes hands while the confirmation is open: the confirmation shows what is true
 * now and when it changed, Reclaim is disabled, nothing is touched, and the refusal (were
 * Reclaim pressed anyway) says when. */
static void
test_reclaim_changed (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "session.db.lock");
  g_autofree char *mine = g_strdup_printf ("%d", getpid ());
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *content = NULL;
  g_autofree char *text = NULL;
  GtkWindow *dialog;

  g_assert_true (_inspector_window_select_path (window, path));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  dialog = _inspector_window_get_dialog (window);
  g_assert_true (accept_sensitive (dialog));
  text = dialog_text (dialog);
  /* The reused PID is never named as the holder's process. */
  g_assert_nonnull (strstr (text, "now another process"));
  g_clear_pointer (&text, g_free);

  /* Another process takes the lock: a new file with a live PID. */
  before = inspector_format_clock (g_get_real_time ());
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (g_file_set_contents (path, mine, -1, NULL));
  fl_directory_model_rescan (window->model);
  after = inspector_format_clock (g_get_real_time ());
  text = dialog_text (dialog);
  g_test_message ("%s", text);
  /* A live process holds it now: named as a take-over (issue 34), not a mere change. */
  g_assert_nonnull (strstr (text, "taken over at"));
  g_assert_true (strstr (text, before) != NULL || strstr (text, after) != NULL);
  g_assert_nonnull (strstr (text, "What is true now"));
  g_assert_nonnull (strstr (text, mine));
  g_assert_null (strstr (text, "reused"));
  g_assert_false (accept_sensitive (dialog));

  /* Pressed anyway (a response sent by hand): refused, nothing touched. */
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_assert_true (g_file_get_contents (path, &content, NULL, NULL));
  g_assert_cmpstr (content, ==, mine);
  g_assert_nonnull (fl_directory_model_lookup (window->model, path));

  /* The outcome is reported: a dialog and the banner, in plain words. */
  dialog = _inspector_window_get_dialog (window);
  g_assert_true (GTK_IS_MESSAGE_DIALOG (dialog));
  g_clear_pointer (&text, g_free);
  text = dialog_text (dialog);
  g_assert_nonnull (strstr (text, "Nothing was touched"));
  g_assert_true (strstr (text, before) != NULL || strstr (text, after) != NULL);
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "Nothing was touched"));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CLOSE);
  g_assert_null (_inspector_window_get_dialog (window));

  ui_window_close (window);
}

/* The lock goes away while the confirmation is open: it says so and Reclaim is disabled. */
static void
test_reclaim_gone (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "report.csv.lock");
  g_autofree char *text = NULL;
  GtkWindow *dialog;

  g_assert_true (_inspector_window_select_path (window, path));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  dialog = _inspector_window_get_dialog (window);

  g_assert_cmpint (g_unlink (path), ==, 0);
  fl_directory_model_rescan (window->model);
  text = dialog_text (dialog);
  g_assert_nonnull (strstr (text, "went away at"));
  g_assert_false (accept_sensitive (dialog));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_CANCEL);
  g_assert_null (_inspector_window_get_dialog (window));

  ui_window_close (window);
}

static FlEntry *
find_orphan (InspectorWindow *window,
             FlEntryKind      kind)
{
  GListModel *list = G_LIST_MODEL (window->model);

  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (list, i);

      if (fl_snapshot_get_kind (fl_entry_get_snapshot (entry)) == kind)
        return entry;
    }
  return NULL;
}

static gboolean
work_done (gpointer data)
{
  return INSPECTOR_WINDOW (data)->work == NULL;
}

static gboolean
no_orphans (gpointer data)
{
  guint orphans;

  g_object_get (INSPECTOR_WINDOW (data)->model, "n-orphans", &orphans, NULL);
  return orphans == 0;
}

static void
test_remove_orphans (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  FlEntry *temp = find_orphan (window, FL_ENTRY_TEMP);
  g_autofree char *temp_path = g_strdup (fl_entry_get_path (temp));
  GtkWindow *dialog;
  guint orphans;

  g_assert_cmpint (fl_snapshot_get_state (fl_entry_get_snapshot (temp)), ==, FL_ENTRY_STATE_ORPHAN);
  g_assert_true (_inspector_window_select_path (window, temp_path));
  /* Reclaim is for locks; an orphan has its own action. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL);
  g_assert_null (_inspector_window_get_dialog (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.remove-orphan", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  gtk_dialog_response (GTK_DIALOG (_inspector_window_get_dialog (window)), GTK_RESPONSE_ACCEPT);
  g_assert_false (g_file_test (temp_path, G_FILE_TEST_EXISTS));

  /* The rest at once. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.clean-orphans", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  dialog = _inspector_window_get_dialog (window);
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_assert_true (fl_test_wait_until (work_done, window, 30000));
  /* Said as the work ends, in a banner that leaves after a while: read it now. */
  g_assert_nonnull (_inspector_window_get_banner_text (window));
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "Removed 1"));
  g_assert_true (fl_test_wait_until (no_orphans, window, 30000));
  g_object_get (window->model, "n-orphans", &orphans, NULL);
  g_assert_cmpuint (orphans, ==, 0);
  g_assert_null (find_orphan (window, FL_ENTRY_GRAVEYARD));

  ui_window_close (window);
}

/* Many orphans: the removal runs while the window goes on (the main loop ticks, the progress
 * bar moves), every file goes, and Stop leaves the rest untouched. */
typedef struct
{
  InspectorWindow *window;
  guint            ticks_while_working;
  double           max_fraction_seen;
} Watch;

static gboolean
tick_cb (gpointer data)
{
  Watch *w = data;

  if (w->window->work != NULL)
    {
      w->ticks_while_working++;
      w->max_fraction_seen = MAX (w->max_fraction_seen,
                                  gtk_progress_bar_get_fraction (w->window->work_progress));
    }
  return G_SOURCE_CONTINUE;
}

#define N_MANY 3000

static void
make_many_orphans (InspectorWindow *window)
{
  g_autofree char *dir = ui_demo_path (window, "");
  pid_t dead = fl_test_dead_pid ();

  for (guint i = 0; i < N_MANY; i++)
    {
      g_autofree char *name = g_strdup_printf ("bulk%04u.lock.%d.%08x.tmp", i, (int) dead, i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *content = g_strdup_printf ("%d", (int) dead);

      fl_test_write (path, content, -1);
    }
}

static gboolean
many_orphans_shown (gpointer data)
{
  guint orphans;

  g_object_get (INSPECTOR_WINDOW (data)->model, "n-orphans", &orphans, NULL);
  return orphans >= N_MANY;
}

static guint
bulk_files_left (InspectorWindow *window)
{
  g_autofree char *dir = ui_demo_path (window, "");
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  guint left = 0;

  while ((name = g_dir_read_name (d)) != NULL)
    left += g_str_has_prefix (name, "bulk");
  return left;
}

static void
test_remove_many_orphans (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  Watch w = { window, 0, 0 };
  guint tick_id;

  make_many_orphans (window);
  g_assert_true (fl_test_wait_until (many_orphans_shown, window, 60000));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.clean-orphans", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  tick_id = g_timeout_add (1, tick_cb, &w);
  gtk_dialog_response (GTK_DIALOG (_inspector_window_get_dialog (window)), GTK_RESPONSE_ACCEPT);
  /* The answer returned at once: the files go in a worker, shown in the work bar. */
  g_assert_nonnull (window->work);
  g_assert_true (gtk_revealer_get_reveal_child (window->work_bar));
  g_assert_true (fl_test_wait_until (work_done, window, 60000));
  g_source_remove (tick_id);

  /* The result is said as the work ends, in a banner that leaves after a while: read it now
   * (on a busy machine the model's catching up below can outlast it). */
  g_assert_nonnull (_inspector_window_get_banner_text (window));
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "Removed"));
  g_assert_cmpuint (w.ticks_while_working, >, 0);
  g_assert_false (gtk_revealer_get_reveal_child (window->work_bar));
  g_assert_cmpuint (bulk_files_left (window), ==, 0);
  g_assert_true (fl_test_wait_until (no_orphans, window, 60000));

  ui_window_close (window);
}

static void
test_stop_removing_orphans (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  guint left, orphans;

  make_many_orphans (window);
  g_assert_true (fl_test_wait_until (many_orphans_shown, window, 60000));

  gtk_widget_activate_action (GTK_WIDGET (window), "win.clean-orphans", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  gtk_dialog_response (GTK_DIALOG (_inspector_window_get_dialog (window)), GTK_RESPONSE_ACCEPT);
  /* Stop, as the work bar's button does, before the worker can have reached the end. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop-work", NULL));
  g_assert_true (fl_test_wait_until (work_done, window, 60000));

  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "Stopped"));
  left = bulk_files_left (window);
  g_assert_cmpuint (left, >, 0);
  /* What is left is whole and still listed: nothing half done. */
  g_object_get (window->model, "n-orphans", &orphans, NULL);
  g_assert_cmpuint (orphans, >=, left);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.clean-orphans", NULL);
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));

  ui_window_close (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/reclaim/enabled-only-when-stale", test_reclaim_enabled);
  g_test_add_func ("/ui/reclaim/accepted", test_reclaim_accepted);
  g_test_add_func ("/ui/reclaim/cancelled", test_reclaim_cancelled);
  g_test_add_func ("/ui/reclaim/changed-after-confirmation", test_reclaim_changed);
  g_test_add_func ("/ui/reclaim/gone-after-confirmation", test_reclaim_gone);
  g_test_add_func ("/ui/reclaim/orphans", test_remove_orphans);
  g_test_add_func ("/ui/reclaim/many-orphans-off-main-thread", test_remove_many_orphans);
  g_test_add_func ("/ui/reclaim/stop-removing-orphans", test_stop_removing_orphans);

  return g_test_run ();
}
