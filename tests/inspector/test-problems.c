/* test-problems.c: what the Lock Inspector could not read is said on screen for as long as it
 * is true (issue 34, item 6), under Xvfb: a subfolder it may not list, in the banner and the
 * Watched Folders popover, also after F5; a watched folder that is deleted, said to be gone,
 * and its return seen within a second.
 *
 * Root reads every folder, whatever its mode: run as root, the unreadable subfolder is checked
 * by a copy of this test run as nobody (65534), with a copy of the X cookie it may read. Any
 * other user checks it in-process.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <grp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ui-test-util.h"

#define NOBODY 65534

static InspectorWindow *
window_on (const char *directory)
{
  InspectorWindow *window = inspector_window_new (NULL);

  gtk_window_present (GTK_WINDOW (window));
  inspector_window_add_directory (window, directory, TRUE, FALSE);
  return window;
}

typedef struct
{
  InspectorWindow *window;
  const char      *text;
} Said;

static gboolean
banner_says (gpointer data)
{
  Said *said = data;

  return gtk_revealer_get_reveal_child (said->window->banner) &&
         strstr (gtk_label_get_text (said->window->banner_label), said->text) != NULL;
}

static gboolean
banner_gone (gpointer data)
{
  return !gtk_revealer_get_reveal_child (((InspectorWindow *) data)->banner);
}

/* The Watched Folders popover lists @text under its folder. */
static gboolean
popover_says (InspectorWindow *window,
              const char      *text)
{
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (window->directories_list));
       row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *child = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));

      if (GTK_IS_LABEL (child) && strstr (gtk_label_get_text (GTK_LABEL (child)), text) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* The check itself, as a user the subfolder's mode keeps out. */
static void
check_unreadable (const char *dir)
{
  g_autofree char *sub = g_build_filename (dir, "private", NULL);
  g_autofree char *visible = g_build_filename (dir, "open", "x.lock", NULL);
  InspectorWindow *window = window_on (dir);
  Said said = { window, sub };

  g_assert_true (ui_wait_listed (window, visible, 10000));
  g_assert_true (fl_test_wait_until (banner_says, &said, 10000));
  g_test_message ("%s", gtk_label_get_text (window->banner_label));
  g_assert_nonnull (strstr (gtk_label_get_text (window->banner_label), "Cannot list"));
  g_assert_true (popover_says (window, sub));

  /* F5 reads it all again: still said, never dropped. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.refresh", NULL);
  fl_test_wait_until (banner_gone, window, 1000);  /* it must not go: this only waits */
  g_assert_true (banner_says (&said));
  ui_window_close (window);
}

static void
drop_privileges (gpointer unused)
{
  if (setgroups (0, NULL) != 0 || setgid (NOBODY) != 0 || setuid (NOBODY) != 0)
    _exit (99);
}

/* Root: the same check, run by nobody in a copy of this test. */
static void
check_unreadable_as_nobody (const char *self_path,
                            const char *dir)
{
  g_autofree char *home = g_dir_make_tmp ("fl-ui-nobody-XXXXXX", NULL);
  g_autofree char *cookie = g_build_filename (home, "Xauthority", NULL);
  g_autofree char *cookie_data = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  const char *xauthority = g_getenv ("XAUTHORITY");
  gsize cookie_len = 0;
  char **env = g_get_environ ();
  const char *argv[] = { self_path, "--tap", "-p", "/ui/problems/unreadable-subfolder", NULL };
  int status;

  g_assert_nonnull (home);
  g_assert_no_errno (chmod (home, 0777));
  if (xauthority != NULL && g_file_get_contents (xauthority, &cookie_data, &cookie_len, NULL))
    {
      g_assert_true (g_file_set_contents (cookie, cookie_data, cookie_len, NULL));
      g_assert_no_errno (chmod (cookie, 0644));
      env = g_environ_setenv (env, "XAUTHORITY", cookie, TRUE);
    }
  env = g_environ_setenv (env, "HOME", home, TRUE);
  env = g_environ_setenv (env, "XDG_RUNTIME_DIR", home, TRUE);
  env = g_environ_setenv (env, "XDG_CACHE_HOME", home, TRUE);
  env = g_environ_setenv (env, "FL_TEST_UNREADABLE_DIR", dir, TRUE);
  g_assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, drop_privileges, NULL,
                               &out, &err, &status, &error));
  g_assert_no_error (error);
  g_test_message ("as nobody:\n%s%s", out, err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_nonnull (strstr (out, "ok 1 /ui/problems/unreadable-subfolder"));
  g_strfreev (env);
  fl_test_rm_rf (home);
}

static void
test_unreadable_subfolder (void)
{
  const char *given = g_getenv ("FL_TEST_UNREADABLE_DIR");
  g_autofree char *dir = NULL;
  g_autofree char *sub = NULL;
  g_autofree char *open_dir = NULL;
  g_autofree char *inside = NULL;
  g_autofree char *visible = NULL;

  if (given != NULL)
    {
      /* The copy run as nobody. */
      g_assert_cmpint (getuid (), ==, NOBODY);
      check_unreadable (given);
      return;
    }

  dir = g_dir_make_tmp ("fl-ui-problems-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_assert_no_errno (chmod (dir, 0755));
  sub = g_build_filename (dir, "private", NULL);
  open_dir = g_build_filename (dir, "open", NULL);
  inside = g_build_filename (sub, "hidden.lock", NULL);
  visible = g_build_filename (open_dir, "x.lock", NULL);
  g_assert_no_errno (g_mkdir (sub, 0755));
  g_assert_no_errno (g_mkdir (open_dir, 0755));
  fl_test_write (inside, "1", 1);
  fl_test_write (visible, "1", 1);
  g_assert_no_errno (chmod (visible, 0644));
  g_assert_no_errno (chmod (sub, 0));

  if (getuid () == 0)
    check_unreadable_as_nobody (g_get_prgname (), dir);
  else
    check_unreadable (dir);

  g_assert_no_errno (chmod (sub, 0755));
  fl_test_rm_rf (dir);
}

/* Deleted, the folder is said to be gone (not "No Lock Files"); made again, it is read within
 * a second. */
static void
test_deleted_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("fl-ui-gone-XXXXXX", NULL);
  g_autofree char *lock = g_build_filename (dir, "a.lock", NULL);
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  InspectorWindow *window;
  Said gone;
  gint64 back, seen;

  fl_test_write (lock, pid, -1);
  window = window_on (dir);
  gone = (Said) { window, "is gone" };
  g_assert_true (ui_wait_listed (window, lock, 10000));

  fl_test_rm_rf (dir);
  g_assert_true (fl_test_wait_until (banner_says, &gone, 10000));
  g_test_message ("%s", gtk_label_get_text (window->banner_label));
  g_assert_nonnull (strstr (gtk_label_get_text (window->banner_label), dir));
  g_assert_true (popover_says (window, "is gone"));
  g_assert_null (fl_directory_model_lookup (window->model, lock));

  g_assert_no_errno (g_mkdir (dir, 0700));
  fl_test_write (lock, pid, -1);
  back = g_get_monotonic_time ();
  g_assert_true (ui_wait_listed (window, lock, 10000));
  seen = g_get_monotonic_time ();
  g_test_message ("seen again after %" G_GINT64_FORMAT " ms", (seen - back) / 1000);
  g_assert_cmpint (seen - back, <, fl_test_scaled_ms (1000) * 1000);
  /* The banner leaves with its cause, and so does the popover's line. */
  g_assert_true (fl_test_wait_until (banner_gone, window, 5000));
  g_assert_false (popover_says (window, "is gone"));

  ui_window_close (window);
  fl_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_set_prgname (argv[0]);
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/problems/unreadable-subfolder", test_unreadable_subfolder);
  g_test_add_func ("/ui/problems/deleted-folder", test_deleted_folder);

  return g_test_run ();
}
