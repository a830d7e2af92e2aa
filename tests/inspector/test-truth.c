/* test-truth.c: every sentence of the details pane true, under Xvfb (issue 34, items 4, 5, 8
 * and 9): the evidence is libfl's reason, the same flctl status prints for the file; what a
 * foreign entry is; a serial port's UUCP lock listed with its owner's process; binary content
 * as a size and a hex prefix; a forced reclaim where libfl offers one, with its stronger
 * confirmation; a take-over under an open confirmation named as one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "inspector-state.h"
#include "ui-test-util.h"

typedef struct
{
  InspectorWindow *window;
  const char      *path;
  FlEntryState     state;
} Wanted;

typedef struct
{
  InspectorWindow *window;
  const char      *text;
} Said;

static gboolean
is_in_state (gpointer data)
{
  Wanted *wanted = data;
  FlEntry *entry = fl_directory_model_lookup (wanted->window->model, wanted->path);

  return entry != NULL && fl_snapshot_get_state (fl_entry_get_snapshot (entry)) == wanted->state;
}

static gboolean
dialog_open (gpointer data)
{
  return _inspector_window_get_dialog (data) != NULL;
}

/* The reason flctl status gives for @path, in English. */
static char *
flctl_reason (const char *path)
{
  const char *argv[] = { FLCTL_BUILD_PATH, "status", "--records", path, NULL };
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) flctl = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *out = NULL;
  JsonArray *records;

  g_subprocess_launcher_setenv (launcher, "LANGUAGE", "C", TRUE);
  g_subprocess_launcher_setenv (launcher, "LC_ALL", "C.UTF-8", TRUE);
  flctl = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (flctl, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  g_assert_no_error (error);
  records = json_node_get_array (json_parser_get_root (parser));
  return g_strdup (json_object_get_string_member (json_array_get_object_element (records, 0),
                                                  "reason"));
}

/* The pane's evidence holds flctl's reason (its first letter capitalised), and nothing that
 * contradicts it: one judge. */
static void
assert_evidence_is_flctls (InspectorWindow *window,
                           const char      *path)
{
  g_autofree char *reason = flctl_reason (path);
  const char *evidence;

  g_assert_true (_inspector_window_select_path (window, path));
  evidence = inspector_details_get_evidence (window->details);
  g_test_message ("%s\n  flctl: %s\n  pane: %s", path, reason, evidence);
  g_assert_nonnull (strstr (evidence, reason + 1));
  g_assert_null (strstr (evidence, "becomes stale when"));
  g_assert_null (strstr (evidence, "will not judge it stale"));
}

static void
test_evidence_is_flctls (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  const char *names[] = { "database.sqlite.lock", "report.csv.lock", "session.db.lock",
                          "upload.part.lock", "legacy.lock" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = ui_demo_path (window, names[i]);

      assert_evidence_is_flctls (window, path);
    }
  ui_window_close (window);
}

/* A symbolic link named like a lock says that it is one, and where it points. */
static void
test_foreign_link (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "pointer.lock");
  Wanted wanted = { window, path, FL_ENTRY_STATE_FOREIGN };
  const char *evidence;

  g_assert_no_errno (symlink ("/nowhere/else", path));
  g_assert_true (fl_test_wait_until (is_in_state, &wanted, 10000));
  assert_evidence_is_flctls (window, path);
  evidence = inspector_details_get_evidence (window->details);
  g_assert_nonnull (strstr (evidence, "A symbolic link to “/nowhere/else”"));
  ui_window_close (window);
}

/* `printf '%10d\n' PID > LCK..ttyUSB0`, as minicom writes it: listed, held while the process
 * runs, with its process shown, and stale as soon as it exits. */
static void
test_uucp_listed (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "LCK..ttyUSB0");
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) owner = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error,
                                                   "sleep", "600", NULL);
  g_autofree char *content = NULL;
  Wanted held = { window, path, FL_ENTRY_STATE_HELD };
  Wanted stale = { window, path, FL_ENTRY_STATE_STALE };
  gint64 killed;

  g_assert_no_error (error);
  content = g_strdup_printf ("%10d\n", atoi (g_subprocess_get_identifier (owner)));
  fl_test_write (path, content, strlen (content));
  g_assert_true (fl_test_wait_until (is_in_state, &held, 10000));
  g_assert_true (_inspector_window_select_path (window, path));
  g_assert_cmpstr (ui_detail (window, "Program"), ==, "UUCP");
  g_assert_cmpstr (ui_detail (window, "Process"), ==, "sleep");
  g_assert_nonnull (strstr (ui_detail (window, "Command line"), "600"));
  g_assert_cmpstr (ui_detail (window, "Started"), !=, "—");

  /* Its exit is seen through the owner's pidfd, not a periodic pass. */
  g_subprocess_force_exit (owner);
  g_assert_true (g_subprocess_wait (owner, NULL, NULL));
  killed = g_get_monotonic_time ();
  g_assert_true (fl_test_wait_until (is_in_state, &stale, 10000));
  g_test_message ("stale after %" G_GINT64_FORMAT " ms", (g_get_monotonic_time () - killed) / 1000);
  g_assert_cmpint (g_get_monotonic_time () - killed, <, fl_test_scaled_ms (1000) * 1000);
  ui_window_close (window);
}

static gboolean
counts_say (gpointer data)
{
  InspectorWindow *window = data;
  const char *text = gtk_label_get_text (window->counts_label);

  return strstr (text, "Free: 1") != NULL && strstr (text, "Others' leftovers: 1") != NULL;
}

/* The counts cover every state (Free too), and Stale stays libfl's reclaimable locks: a serial
 * port lock whose owner is gone is another program's leftover. */
static void
test_counts (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *left = ui_demo_path (window, "LCK..ttyS1");
  g_autofree char *free_port = ui_demo_path (window, "LCK..ttyS2");
  g_autofree char *content = g_strdup_printf ("%10d\n", (int) fl_test_dead_pid ());
  guint stale_before, stale, held, orphans, unknown, foreign, active, free, leftovers;

  g_object_get (window->model, "n-stale", &stale_before, NULL);
  fl_test_write (left, content, strlen (content));
  fl_test_write (free_port, "", 0);
  g_assert_true (fl_test_wait_until (counts_say, window, 10000));
  g_test_message ("%s", gtk_label_get_text (window->counts_label));
  g_object_get (window->model, "n-held", &held, "n-stale", &stale, "n-orphans", &orphans,
                "n-unknown", &unknown, "n-foreign", &foreign, "n-active", &active,
                "n-free", &free, "n-leftovers", &leftovers, NULL);
  g_assert_cmpuint (stale, ==, stale_before);
  g_assert_cmpuint (held + stale + orphans + unknown + foreign + active + free + leftovers, ==,
                    g_list_model_get_n_items (G_LIST_MODEL (window->model)));
  ui_window_close (window);
}

static gboolean
evidence_says_reused (gpointer data)
{
  InspectorWindow *window = data;

  return strstr (inspector_details_get_evidence (window->details), "PID was reused") != NULL;
}

/* The holder exits, then its PID is handed to another process (a real reuse, no file event):
 * the selected row's state and evidence say so within a second of the reuse. */
static void
test_pid_reuse_soon (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *target = ui_demo_path (window, "reused-soon");
  g_autofree char *path = g_strconcat (target, ".lock", NULL);
  g_autoptr(FlTestProc) holder = fl_test_spawn_holder (target);
  Wanted held = { window, path, FL_ENTRY_STATE_HELD };
  Wanted stale = { window, path, FL_ENTRY_STATE_STALE };
  g_autofree char *summary = NULL;
  pid_t pid = holder->pid;
  pid_t again;
  gint64 reused;

  g_assert_true (fl_test_wait_until (is_in_state, &held, 10000));
  g_assert_true (_inspector_window_select_path (window, path));
  fl_test_proc_kill (holder);
  g_assert_true (fl_test_wait_until (is_in_state, &stale, 10000));
  g_assert_null (strstr (inspector_details_get_evidence (window->details), "reused"));

  again = fl_test_fork_with_pid (pid);
  if (again == 0)
    {
      g_test_skip ("cannot fork a process with a chosen PID here (clone3 set_tid needs root)");
      ui_window_close (window);
      return;
    }
  reused = g_get_monotonic_time ();
  g_assert_true (fl_test_wait_until (evidence_says_reused, window, 10000));
  g_test_message ("reuse shown after %" G_GINT64_FORMAT " ms",
                  (g_get_monotonic_time () - reused) / 1000);
  g_assert_cmpint (g_get_monotonic_time () - reused, <, fl_test_scaled_ms (1000) * 1000);
  summary = fl_snapshot_dup_state_summary (
    fl_entry_get_snapshot (_inspector_window_get_selected (window)));
  g_assert_cmpstr (summary, ==, "Stale: PID reused");
  kill (again, SIGKILL);
  g_assert_cmpint (waitpid (again, NULL, 0), ==, again);
  ui_window_close (window);
}

static gboolean
evidence_says (gpointer data)
{
  Said *said = data;

  return strstr (inspector_details_get_evidence (said->window->details), said->text) != NULL;
}

/* `flctl run` passes its lock to the command it runs; flctl killed, the command keeps the
 * kernel lock: the pane names the process that keeps it, never the exited holder as running,
 * and says what flctl status says. */
static void
test_kept_by_child (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *target = ui_demo_path (window, "kept");
  g_autofree char *path = g_strconcat (target, ".lock", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) run = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error,
                                                 FLCTL_BUILD_PATH, "run", target, "--",
                                                 "sleep", "600", NULL);
  Wanted held = { window, path, FL_ENTRY_STATE_HELD };
  Said kept = { window, "has exited, but its kernel lock is kept by PID" };
  FlSnapshot *snap;
  int keeper;

  g_assert_no_error (error);
  g_assert_true (fl_test_wait_until (is_in_state, &held, 10000));
  g_assert_true (_inspector_window_select_path (window, path));
  g_subprocess_force_exit (run);
  g_assert_true (g_subprocess_wait (run, NULL, NULL));
  g_assert_true (fl_test_wait_until (evidence_says, &kept, 10000));
  snap = fl_entry_get_snapshot (_inspector_window_get_selected (window));
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  keeper = fl_snapshot_get_keeper_pid (snap);
  g_assert_cmpint (keeper, >, 0);
  g_assert_cmpstr (ui_detail (window, "Process"), ==, "exited");
  g_assert_true (g_str_has_suffix (ui_detail (window, "Lock kept by"), "sleep"));
  g_assert_null (strstr (inspector_details_get_evidence (window->details), "is running"));
  assert_evidence_is_flctls (window, path);
  kill (keeper, SIGKILL);
  ui_window_close (window);
}

/* A live process that started after the file was written, without an identity: libfl calls it
 * alive but says that its PID may have been reused; so does the pane. */
static void
test_started_after_caveat (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "late.lock");
  g_autoptr(FlTestProc) waiting = fl_test_spawn_waiting ();
  g_autofree char *content = g_strdup_printf ("%d", (int) waiting->pid);
  Wanted held = { window, path, FL_ENTRY_STATE_HELD };
  Said caveat = { window, "may have been reused" };

  fl_test_write (path, content, -1);
  fl_test_set_mtime_ago (path, 3600);
  g_assert_true (fl_test_wait_until (is_in_state, &held, 10000));
  g_assert_true (_inspector_window_select_path (window, path));
  g_assert_true (fl_test_wait_until (evidence_says, &caveat, 10000));
  assert_evidence_is_flctls (window, path);
  ui_window_close (window);
}

/* git's index.lock holds binary data: a size and a hex prefix, never raw bytes. */
static void
test_binary_content (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "blob.lock");
  static const char blob[] = "DIRC\0\0\0\2\0\0\0\1\xff\xfe";
  const char *content;

  fl_test_write (path, blob, sizeof blob - 1);
  g_assert_true (ui_wait_listed (window, path, 10000));
  g_assert_true (_inspector_window_select_path (window, path));
  content = ui_detail (window, "Content");
  g_assert_nonnull (content);
  g_test_message ("%s", content);
  g_assert_true (g_str_has_prefix (content, "Binary data, 14 bytes"));
  g_assert_nonnull (strstr (content, "44 49 52 43 00 00 00 02"));
  ui_window_close (window);
}

/* An empty lock: libfl never calls it stale before its age, so only a forced reclaim ends it:
 * offered as such, with a confirmation whose button stays off until the person vouches. */
static void
test_force_reclaim (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "upload.part.lock");
  GtkWidget *force = ui_find_actionable (GTK_WIDGET (window->details), "win.force-reclaim");
  GtkWidget *reclaim = ui_find_actionable (GTK_WIDGET (window->details), "win.reclaim");
  GtkWindow *dialog;
  GtkCheckButton *check;
  g_autofree char *text = NULL;
  g_autofree char *secondary = NULL;

  g_assert_true (_inspector_window_select_path (window, path));
  g_assert_nonnull (force);
  g_assert_true (gtk_widget_get_visible (force) && gtk_widget_get_sensitive (force));
  g_assert_false (gtk_widget_get_visible (reclaim));
  g_assert_nonnull (strstr (inspector_details_get_evidence (window->details), "Force Reclaim"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.force-reclaim", NULL));
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));
  dialog = _inspector_window_get_dialog (window);
  g_object_get (dialog, "text", &text, "secondary-text", &secondary, NULL);
  g_assert_true (g_str_has_prefix (text, "Force reclaim the lock"));
  g_assert_nonnull (strstr (secondary, "does not call this lock stale"));
  check = g_object_get_data (G_OBJECT (dialog), "inspector-force-check");
  g_assert_nonnull (check);
  /* The accept button is off until the person vouches that no process uses the lock. */
  g_assert_false (gtk_widget_get_sensitive (
    gtk_dialog_get_widget_for_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT)));
  gtk_check_button_set_active (check, TRUE);
  g_assert_true (gtk_widget_get_sensitive (
    gtk_dialog_get_widget_for_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT)));
  gtk_dialog_response (GTK_DIALOG (dialog), GTK_RESPONSE_ACCEPT);
  g_assert_false (fl_test_exists (path));
  g_assert_nonnull (strstr (_inspector_window_get_banner_text (window), "Force-reclaimed"));
  ui_window_close (window);
}

static gboolean
says_taken_over (gpointer data)
{
  GtkWindow *dialog = _inspector_window_get_dialog (data);
  g_autofree char *secondary = NULL;

  if (dialog == NULL)
    return FALSE;
  g_object_get (dialog, "secondary-text", &secondary, NULL);
  return secondary != NULL && strstr (secondary, "taken over") != NULL;
}

static gboolean
selected_is (gpointer data)
{
  Wanted *wanted = data;
  FlEntry *selected = _inspector_window_get_selected (wanted->window);

  return selected != NULL && g_str_equal (fl_entry_get_path (selected), wanted->path) &&
         fl_snapshot_get_state (fl_entry_get_snapshot (selected)) == wanted->state;
}

/* A live holder takes the stale lock over while its Reclaim confirmation is open: the dialog
 * says so, never "released or removed it", and nothing is touched. */
static void
test_take_over_wording (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, "report.csv.lock");
  g_autofree char *target = g_strndup (path, strlen (path) - strlen (".lock"));
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *secondary = NULL;
  Wanted wanted = { window, path, FL_ENTRY_STATE_HELD };

  g_assert_true (_inspector_window_select_path (window, path));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL));
  g_assert_true (fl_test_wait_until (dialog_open, window, 5000));

  lock = fl_lock_try_acquire (target, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_test_wait_until (says_taken_over, window, 10000));
  g_object_get (_inspector_window_get_dialog (window), "secondary-text", &secondary, NULL);
  g_test_message ("%s", secondary);
  g_assert_null (strstr (secondary, "released or removed"));
  gtk_dialog_response (GTK_DIALOG (_inspector_window_get_dialog (window)), GTK_RESPONSE_ACCEPT);
  g_assert_true (fl_test_exists (path));
  /* The selection stayed on the lock's path, now the new holder's file. */
  g_assert_true (fl_test_wait_until (selected_is, &wanted, 5000));
  ui_window_close (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/truth/evidence-is-flctls", test_evidence_is_flctls);
  g_test_add_func ("/ui/truth/foreign-link", test_foreign_link);
  g_test_add_func ("/ui/truth/uucp-listed", test_uucp_listed);
  g_test_add_func ("/ui/truth/binary-content", test_binary_content);
  g_test_add_func ("/ui/truth/counts", test_counts);
  g_test_add_func ("/ui/truth/pid-reuse-soon", test_pid_reuse_soon);
  g_test_add_func ("/ui/truth/kept-by-child", test_kept_by_child);
  g_test_add_func ("/ui/truth/started-after-caveat", test_started_after_caveat);
  g_test_add_func ("/ui/truth/force-reclaim", test_force_reclaim);
  g_test_add_func ("/ui/truth/take-over-wording", test_take_over_wording);

  return g_test_run ();
}
