/* test-window-de.c: `LANGUAGE=de fl-inspector --demo` shows no English, under Xvfb
 *
 * A label whose text the catalogue would translate is a string that escaped translation.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "ui-test-util.h"

static void
check_texts (GtkWidget *root,
             guint     *n_checked)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();

  ui_collect_texts (root, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      const char *text = GTK_IS_LABEL (labels->pdata[i])
                         ? gtk_label_get_label (labels->pdata[i])
                         : ui_text_of (labels->pdata[i]);

      if (text == NULL || text[0] == '\0')
        continue;
      if (g_strcmp0 (_(text), text) != 0)
        g_error ("“%s” is shown in English", text);
      (*n_checked)++;
    }
}

static void
test_german (void)
{
  InspectorWindow *window = ui_window_with_demo ();
  guint n_checked = 0;
  g_autofree char *path = ui_demo_path (window, "report.csv.lock");
  const char *title = gtk_window_get_title (GTK_WINDOW (window));

  g_assert_cmpstr (title, ==, "Sperren-Inspektor");
  g_assert_true (_inspector_window_select_path (window, path));
  check_texts (GTK_WIDGET (window), &n_checked);
  g_assert_cmpuint (n_checked, >=, 30);
  g_assert_nonnull (strstr (inspector_details_get_evidence (window->details), "Urteil: veraltet"));

  /* The confirmation too, and its buttons have mnemonics of their own (Abbrechen and
   * Aufheben both took Alt+A). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.reclaim", NULL);
  g_assert_nonnull (_inspector_window_get_dialog (window));
  n_checked = 0;
  check_texts (GTK_WIDGET (_inspector_window_get_dialog (window)), &n_checked);
  g_assert_cmpuint (n_checked, >=, 2);
  {
    GtkDialog *dialog = GTK_DIALOG (_inspector_window_get_dialog (window));
    GtkWidget *cancel = gtk_dialog_get_widget_for_response (dialog, GTK_RESPONSE_CANCEL);
    GtkWidget *accept = gtk_dialog_get_widget_for_response (dialog, GTK_RESPONSE_ACCEPT);
    g_autoptr(GPtrArray) labels = g_ptr_array_new ();
    guint cancel_key, accept_key;

    ui_collect_widgets (cancel, GTK_TYPE_LABEL, labels);
    g_assert_cmpuint (labels->len, ==, 1);
    cancel_key = gtk_label_get_mnemonic_keyval (labels->pdata[0]);
    g_ptr_array_set_size (labels, 0);
    ui_collect_widgets (accept, GTK_TYPE_LABEL, labels);
    g_assert_cmpuint (labels->len, ==, 1);
    accept_key = gtk_label_get_mnemonic_keyval (labels->pdata[0]);
    g_assert_cmpuint (cancel_key, !=, GDK_KEY_VoidSymbol);
    g_assert_cmpuint (accept_key, !=, GDK_KEY_VoidSymbol);
    g_assert_cmpuint (gdk_keyval_to_lower (cancel_key), !=, gdk_keyval_to_lower (accept_key));
  }
  gtk_dialog_response (GTK_DIALOG (_inspector_window_get_dialog (window)), GTK_RESPONSE_CANCEL);

  ui_window_close (window);
}

int
main (int   argc,
      char *argv[])
{
  ui_test_use_german ();

  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/window/german", test_german);
  return g_test_run ();
}
