/* inspector-help.h: the user guide's window
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

GtkWindow *inspector_help_new (GtkWindow *parent);

G_END_DECLS
