/* test-demo.c: `fl-inspector --demo` leaves nothing behind when it quits, under Xvfb
 *
 * The demo stops asynchronously (inspector_demo_stop() runs from dispose and must not spin the
 * main loop): the application is held until flctl demo and its holders have exited and the
 * demo's folder is removed, so g_application_run() returns only then.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <signal.h>

#include "inspector-application.h"
#include "ui-test-util.h"

#define LOAD_TIMEOUT_US (30 * G_USEC_PER_SEC)

typedef struct
{
  GApplication *application;
  gint64        deadline;
  char         *directory;
  GArray       *holders;     /* pid_t of the demo's live holders */
  gboolean      timed_out;
  gboolean      shut_down;
  guint         n_alive_at_shutdown;
  gboolean      directory_at_shutdown;
  gboolean      logo_found;
} Run;

static gboolean
demo_loaded (InspectorWindow *window)
{
  gboolean loading = TRUE;

  if (window->demo == NULL || inspector_demo_get_directory (window->demo) == NULL)
    return FALSE;
  g_object_get (window->model, "loading", &loading, NULL);
  return !loading && g_list_model_get_n_items (G_LIST_MODEL (window->model)) >= 9;
}

/* Polls the condition from inside the application's own main loop, with a deadline. */
static gboolean
check_cb (gpointer user_data)
{
  Run *run = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (run->application));
  InspectorWindow *window = windows != NULL ? windows->data : NULL;
  GListModel *list;

  if (g_get_monotonic_time () > run->deadline)
    {
      run->timed_out = TRUE;
      g_action_group_activate_action (G_ACTION_GROUP (run->application), "quit", NULL);
      return G_SOURCE_REMOVE;
    }
  if (window == NULL || !demo_loaded (window))
    return G_SOURCE_CONTINUE;

  run->directory = g_strdup (inspector_demo_get_directory (window->demo));
  /* The About window's logo, from the build tree as much as installed. */
  run->logo_found = gtk_icon_theme_has_icon (
    gtk_icon_theme_get_for_display (gtk_widget_get_display (GTK_WIDGET (window))),
    "org.libfl.Inspector");
  list = G_LIST_MODEL (window->model);
  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (list, i);
      FlSnapshot *snap = fl_entry_get_snapshot (entry);
      pid_t pid = fl_snapshot_get_pid (snap);

      if (fl_snapshot_get_state (snap) == FL_ENTRY_STATE_HELD && pid > 0)
        g_array_append_val (run->holders, pid);
    }
  /* As Ctrl+Q does. */
  g_action_group_activate_action (G_ACTION_GROUP (run->application), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static void
activate_cb (GApplication *application,
             Run          *run)
{
  g_timeout_add (20, check_cb, run);
}

/* "shutdown" is emitted when the application's use count reached zero, before run() returns
 * and before it flushes the main context: without the hold, the children would still be
 * running here. */
static void
shutdown_cb (GApplication *application,
             Run          *run)
{
  run->shut_down = TRUE;
  for (guint i = 0; i < run->holders->len; i++)
    run->n_alive_at_shutdown += kill (g_array_index (run->holders, pid_t, i), 0) == 0;
  run->directory_at_shutdown = run->directory != NULL
                               && g_file_test (run->directory, G_FILE_TEST_EXISTS);
}

static void
test_quit_ends_demo (void)
{
  g_autoptr(InspectorApplication) application = inspector_application_new ();
  char *argv[] = { (char *) "fl-inspector", (char *) "--demo", NULL };
  Run run = { G_APPLICATION (application), 0, NULL, NULL, FALSE };
  int status;

  run.deadline = g_get_monotonic_time () + LOAD_TIMEOUT_US;
  run.holders = g_array_new (FALSE, FALSE, sizeof (pid_t));
  /* After the application's own activate handler, which made the window. */
  g_signal_connect_after (application, "activate", G_CALLBACK (activate_cb), &run);
  g_signal_connect (application, "shutdown", G_CALLBACK (shutdown_cb), &run);

  status = g_application_run (G_APPLICATION (application), 2, argv);
  g_assert_cmpint (status, ==, 0);
  g_assert_false (run.timed_out);
  g_assert_nonnull (run.directory);
  /* flctl demo's three live holders */
  g_assert_cmpuint (run.holders->len, ==, 3);
  g_assert_true (run.logo_found);

  /* When the application shuts down, the holders are gone (flctl demo reaped them, it was
   * reaped itself) and so is the folder. */
  g_assert_true (run.shut_down);
  g_assert_cmpuint (run.n_alive_at_shutdown, ==, 0);
  g_assert_false (run.directory_at_shutdown);
  for (guint i = 0; i < run.holders->len; i++)
    {
      pid_t pid = g_array_index (run.holders, pid_t, i);

      g_test_message ("holder %d", (int) pid);
      g_assert_cmpint (kill (pid, 0), ==, -1);
      g_assert_cmpint (errno, ==, ESRCH);
    }
  g_assert_false (g_file_test (run.directory, G_FILE_TEST_EXISTS));

  g_array_unref (run.holders);
  g_free (run.directory);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/demo/quit-ends-demo", test_quit_ends_demo);

  return g_test_run ();
}
