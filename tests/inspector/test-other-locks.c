/* test-other-locks.c: other programs' lock files in the Lock Inspector, under Xvfb: their rows
 * name the owner the format records, the details explain them, and Reclaim stays off even
 * for one whose owner is gone (docs/other-lock-files.md)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "ui-test-util.h"

typedef struct
{
  GtkWidget  *root;
  const char *text;
} LabelQuery;

static GtkWidget *
find_label (GtkWidget  *root,
            const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (ui_text_of (child) != NULL && gtk_widget_get_mapped (child) &&
          strstr (ui_text_of (child), text) != NULL)
        return child;
      found = find_label (child, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
label_shown (gpointer data)
{
  LabelQuery *query = data;

  return find_label (query->root, query->text) != NULL;
}

static void
test_emacs_row (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  g_autofree char *path = ui_demo_path (window, ".#notes.txt");
  g_autofree char *target = g_strdup_printf ("alice@%s.%d", g_get_host_name (), (int) fl_test_dead_pid ());
  g_autofree char *owner = g_strdup_printf ("Emacs: alice@%s, PID", g_get_host_name ());
  GtkWidget *reclaim = ui_find_actionable (GTK_WIDGET (window->details), "win.reclaim");
  LabelQuery in_list = { GTK_WIDGET (window), owner };
  LabelQuery in_details = { GTK_WIDGET (window->details), "An Emacs edit lock" };
  FlEntry *entry;
  char link[256];

  g_assert_no_errno (symlink (target, path));
  g_assert_true (ui_wait_listed (window, path, 10000));
  entry = fl_directory_model_lookup (window->model, path);
  /* The owner is gone: stale, as the row says, yet never libfl's to reclaim. */
  g_assert_cmpint (fl_snapshot_get_state (fl_entry_get_snapshot (entry)), ==,
                   FL_ENTRY_STATE_STALE);
  g_assert_true (fl_test_wait_until (label_shown, &in_list, 10000));

  g_assert_true (_inspector_window_select_path (window, path));
  g_assert_true (fl_test_wait_until (label_shown, &in_details, 10000));
  g_assert_nonnull (reclaim);
  g_assert_false (gtk_widget_get_sensitive (reclaim));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL);
  g_assert_null (_inspector_window_get_dialog (window));

  /* Untouched: still the link Emacs wrote. */
  g_assert_cmpint (readlink (path, link, sizeof link - 1), ==, strlen (target));

  ui_window_close (window);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/other-locks/emacs-row", test_emacs_row);

  return g_test_run ();
}
