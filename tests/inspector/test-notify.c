/* test-notify.c: the optional notification when a watched lock turns stale (suite 'ui', under
 * Xvfb): off by default, one when a holder dies with it on, many gathered into one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "ui-test-util.h"

typedef struct
{
  InspectorWindow *window;
  const char      *path;
  FlEntryState     state;
} StateIs;

static gboolean
state_is (gpointer data)
{
  StateIs *s = data;
  FlEntry *entry = fl_directory_model_lookup (s->window->model, s->path);

  return entry != NULL && fl_snapshot_get_state (fl_entry_get_snapshot (entry)) == s->state;
}

static gboolean
notified (gpointer data)
{
  return ((InspectorWindow *) data)->stale_sent > 0;
}

/* Nothing waits to be sent. */
static gboolean
gathered (gpointer data)
{
  return ((InspectorWindow *) data)->stale_gather_id == 0;
}

/* A lock file naming a live process (`sleep`), which the test then kills. */
static GSubprocess *
held_lock (const char *path)
{
  g_autoptr(GError) error = NULL;
  GSubprocess *holder = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "sleep", "600", NULL);
  g_autofree char *content = NULL;

  g_assert_no_error (error);
  content = g_strdup_printf ("%s\n", g_subprocess_get_identifier (holder));
  g_assert_true (g_file_set_contents (path, content, -1, NULL));
  return holder;
}

static void
kill_holder (GSubprocess *holder)
{
  g_subprocess_send_signal (holder, SIGKILL);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
  g_object_unref (holder);
}

static void
test_notify_stale (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
  g_autofree char *dir = g_dir_make_tmp ("notify-XXXXXX", NULL);
  g_autofree char *quiet = g_build_filename (dir, "quiet.db.lock", NULL);
  g_autofree char *loud = g_build_filename (dir, "loud.db.lock", NULL);
  g_autofree char *many[3] = { NULL };
  GSubprocess *quiet_holder = held_lock (quiet);
  GSubprocess *loud_holder = held_lock (loud);
  GSubprocess *many_holders[3];
  InspectorWindow *window;
  StateIs s;

  g_settings_reset (settings, "directories");
  g_settings_reset (settings, "notify-stale");
  /* Off by default. */
  g_assert_false (g_settings_get_boolean (settings, "notify-stale"));
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    {
      many[i] = g_strdup_printf ("%s/job-%u.lock", dir, i);
      many_holders[i] = held_lock (many[i]);
    }
  window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, dir, FALSE, FALSE);
  s = (StateIs) { window, quiet, FL_ENTRY_STATE_HELD };
  g_assert_true (fl_test_wait_until (state_is, &s, 10000));

  /* Off: the lock turns stale, nothing is sent (a wait for what must not come, bounded). */
  kill_holder (quiet_holder);
  s.state = FL_ENTRY_STATE_STALE;
  g_assert_true (fl_test_wait_until (state_is, &s, 10000));
  g_assert_false (fl_test_wait_until (notified, window, 1500));

  /* On, through the main menu's action: one notification in libfl's words. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "prefs.notify-stale", NULL));
  g_assert_true (g_settings_get_boolean (settings, "notify-stale"));
  kill_holder (loud_holder);
  g_assert_true (fl_test_wait_until (notified, window, 10000));
  g_assert_cmpuint (window->stale_sent, ==, 1);
  g_assert_cmpstr (window->stale_title, ==, "A lock turned stale");
  g_test_message ("%s", window->stale_body);
  g_assert_true (g_str_has_prefix (window->stale_body, "“loud.db.lock” in "));
  g_assert_nonnull (strstr (window->stale_body, ": the holder PID "));

  /* Three at once: one notification that counts them. */
  window->stale_sent = 0;
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    kill_holder (many_holders[i]);
  g_assert_true (fl_test_wait_until (notified, window, 10000));
  for (guint i = 0; i < G_N_ELEMENTS (many); i++)
    {
      s = (StateIs) { window, many[i], FL_ENTRY_STATE_STALE };
      g_assert_true (fl_test_wait_until (state_is, &s, 10000));
    }
  g_assert_true (fl_test_wait_until (gathered, window, 10000));
  g_test_message ("%u sent, the last: %s", window->stale_sent, window->stale_title);
  g_assert_cmpuint (window->stale_locks, ==, 1 + G_N_ELEMENTS (many));
  g_assert_cmpuint (window->stale_sent, <, G_N_ELEMENTS (many));

  ui_window_close (window);
  g_settings_reset (settings, "notify-stale");
  g_settings_reset (settings, "directories");
  fl_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;
  g_test_add_func ("/ui/notify/stale", test_notify_stale);
  return g_test_run ();
}
