/* main.c: fl-inspector, the Lock Inspector
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "inspector-application.h"
#include "inspector-build-tree.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(InspectorApplication) app = NULL;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  inspector_setup_uninstalled ();

  app = inspector_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
