/* fl-i18n.c: libfl's own gettext domain, bound once when the library is loaded
 *
 * libfl's translated words (ages, reasons, other programs' lock files) are looked up in the
 * 'libfl-1' domain (<glib/gi18n-lib.h>), whatever domain the program uses; as GTK binds its
 * own domain in gtk_init(), libfl binds its domain to where it is installed, and asks for
 * UTF-8, which GLib strings are, in every locale. At load time, not on first use: a program
 * that binds the domain elsewhere afterwards (the Lock Inspector in its build tree) wins.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

__attribute__((constructor)) static void
fl_i18n_bind_domain (void)
{
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
}
