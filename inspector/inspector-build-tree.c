/* inspector-build-tree.c: fl-inspector run from its build tree, without installing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-build-tree.h"

/* The build tree is recognised from where the program is, not by a path compiled in: an
 * installed fl-inspector carries no build-tree path (build-aux/check-packaging checks it), so
 * it is the same whichever directory a distribution built it in. */
char *
inspector_dup_build_root (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *exe_dir = exe != NULL ? g_path_get_dirname (exe) : NULL;
  g_autofree char *root = NULL;
  g_autofree char *marker = NULL;
  g_autofree char *dir_name = NULL;

  if (exe_dir == NULL)
    return NULL;
  dir_name = g_path_get_basename (exe_dir);
  root = g_path_get_dirname (exe_dir);
  marker = g_build_filename (root, "meson-private", NULL);
  if (!g_str_equal (dir_name, "inspector") || !g_file_test (marker, G_FILE_TEST_IS_DIR))
    return NULL;
  return g_steal_pointer (&root);
}

void
inspector_setup_uninstalled (void)
{
  g_autofree char *root = inspector_dup_build_root ();
  g_autofree char *schemas = NULL;
  g_autofree char *locales = NULL;

  if (root == NULL)
    return;
  schemas = g_build_filename (root, "data", NULL);
  locales = g_build_filename (root, "po", NULL);
  g_setenv ("GSETTINGS_SCHEMA_DIR", schemas, FALSE);
  bindtextdomain (GETTEXT_PACKAGE, locales);
}
