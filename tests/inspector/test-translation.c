/* test-translation.c: the German catalogue built in the tree is loaded and used
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-state.h"
#include "ui-test-util.h"

static void
test_loaded (void)
{
  g_assert_cmpstr (_("Lock Inspector"), ==, "Sperren-Inspektor");
  g_assert_cmpstr (_("Stale: holder exited"), ==, "Veraltet: Inhaber beendet");
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%d day", "%d days", 1), ==, "%d Tag");
  g_assert_cmpstr (g_dngettext (GETTEXT_PACKAGE, "%d day", "%d days", 3), ==, "%d Tage");
}

static void
test_formatting (void)
{
  /* libfl's formatter, which flctl shares, in the inspector's language. */
  g_autofree char *age = fl_format_age (3 * G_TIME_SPAN_DAY);
  g_autofree char *hours = fl_format_age (47 * G_TIME_SPAN_HOUR);
  g_autofree char *kind = g_strdup (fl_entry_kind_get_label (FL_ENTRY_GRAVEYARD));

  g_assert_cmpstr (age, ==, "3 Tage");
  g_assert_cmpstr (hours, ==, "47 h");
  g_assert_cmpstr (kind, ==, "Friedhofsdatei");
  g_assert_cmpstr (fl_kernel_lock_get_label (FL_KERNEL_LOCK_HELD), ==, "Gehalten");
}

/* libfl's own messages come from the same catalogue. */
static void
test_library_messages (void)
{
  g_autoptr(FlDirectoryModel) model = fl_directory_model_new (NULL);
  g_autoptr(GError) error = NULL;

  g_assert_false (fl_directory_model_add_directory (model, "/nonexistent/fl-test", FALSE, &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_NOT_DIRECTORY);
  g_assert_nonnull (strstr (error->message, "kann nicht überwacht werden"));
}

int
main (int   argc,
      char *argv[])
{
  ui_test_use_german ();

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/data/translation/loaded", test_loaded);
  g_test_add_func ("/data/translation/formatting", test_formatting);
  g_test_add_func ("/data/translation/library-messages", test_library_messages);
  return g_test_run ();
}
