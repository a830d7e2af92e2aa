/* test-i18n.c: the shared libfl binds its gettext domain itself, so that a program that
 * never heard of 'libfl' (any service, a Python script through GI) gets its words translated
 * and in UTF-8
 *
 * Links the shared library and binds nothing: what it finds bound, libfl bound.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include <libfl/fl.h>

static void
test_domain_bound (void)
{
  /* Any libfl call: the library is loaded, whatever the linker does with unused ones. */
  g_autofree char *age = fl_format_age (0);

  g_assert_cmpstr (age, ==, "0 s");
  g_assert_cmpstr (bindtextdomain (GETTEXT_PACKAGE, NULL), ==, LOCALEDIR);
  g_assert_cmpstr (bind_textdomain_codeset (GETTEXT_PACKAGE, NULL), ==, "UTF-8");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/libfl/i18n/domain-bound", test_domain_bound);
  return g_test_run ();
}
