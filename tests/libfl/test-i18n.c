/* test-i18n.c: the shared libfl binds its gettext domain itself, so that a program that
 * never heard of 'libfl' (any service, a Python script through GI) gets its words translated
 * and in UTF-8
 *
 * Links the shared library and binds nothing until the domain is checked: what it finds bound,
 * libfl bound. Then, bound to the catalogue compiled in the build tree, libfl's own errors, and
 * the reasons it gives for a lock's state, come in German, as a person running a program with
 * LANGUAGE=de reads them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <locale.h>
#include <string.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include <libfl/fl.h>

#include "fl-test-util.h"

static void
test_domain_bound (void)
{
  /* Any libfl call: the library is loaded, whatever the linker does with unused ones. */
  g_autofree char *age = fl_format_age (0);

  g_assert_cmpstr (age, ==, "0 s");
  g_assert_cmpstr (bindtextdomain (GETTEXT_PACKAGE, NULL), ==, LOCALEDIR);
  g_assert_cmpstr (bind_textdomain_codeset (GETTEXT_PACKAGE, NULL), ==, "UTF-8");
}

/* The errors of the lock protocol are German; without the catalogue, or without the message
 * marked for translation, they are English and the test fails. */
static void
test_errors_german (void)
{
  static const struct
  {
    const char *target;
    int         code;  /* g_assert_error() compares it with a GError code, an int */
    const char *message;
  } cases[] = {
    { "/nonexistent/fl-test/target", FL_ERROR_NOT_DIRECTORY,
      "Der Sperrordner „/nonexistent/fl-test“ existiert nicht: legen Sie ihn zuerst an" },
    { "", FL_ERROR_INVALID_TARGET,
      "Das Sperrziel ist leer: geben Sie den Pfad der zu sperrenden Datei an" },
    { "/tmp/", FL_ERROR_INVALID_TARGET,
      "Das Sperrziel „/tmp/“ endet mit einem Schrägstrich: nennen Sie eine Datei, keinen "
      "Ordner" },
  };

  bindtextdomain (GETTEXT_PACKAGE, FL_LOCALE_BUILD_DIR);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = fl_lock_try_acquire (cases[i].target, NULL, &error);

      g_assert_null (lock);
      g_assert_error (error, FL_ERROR, cases[i].code);
      g_assert_cmpstr (error->message, ==, cases[i].message);
    }
}

/* The reason a snapshot gives is German too: a lock file whose PID names no process. Without
 * the catalogue, or without the verdict's words marked for translation, it is English. */
static void
test_reason_german (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("fl-i18n-XXXXXX", &error);
  g_autofree char *target = NULL;
  g_autofree char *lock_path = NULL;
  g_autofree char *content = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  int pid = (int) fl_test_dead_pid ();

  g_assert_no_error (error);
  target = g_build_filename (dir, "data", NULL);
  lock_path = g_strconcat (target, ".lock", NULL);
  content = g_strdup_printf ("%d", pid);
  g_assert_true (g_file_set_contents (lock_path, content, -1, &error));
  g_assert_no_error (error);

  bindtextdomain (GETTEXT_PACKAGE, FL_LOCALE_BUILD_DIR);
  snapshot = fl_snapshot_new (lock_path, NULL, &error);
  g_assert_no_error (error);
  g_test_message ("%s", fl_snapshot_get_reason (snapshot));
  g_assert_true (fl_snapshot_get_stale (snapshot));
  expected = g_strdup_printf ("der Inhaber PID %d ist fort (kein solcher Prozess)", pid);
  g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), expected));

  g_assert_cmpint (g_unlink (lock_path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  /* As a person running `LANGUAGE=de program` in a C.UTF-8 session: nothing is translated
   * until the domain is bound to a catalogue, so the first test is not affected. */
  g_setenv ("LANGUAGE", "de", TRUE);
  setlocale (LC_ALL, "C.UTF-8");

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/libfl/i18n/domain-bound", test_domain_bound);
  g_test_add_func ("/libfl/i18n/errors-german", test_errors_german);
  g_test_add_func ("/libfl/i18n/reason-german", test_reason_german);
  return g_test_run ();
}
