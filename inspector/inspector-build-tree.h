/* inspector-build-tree.h: fl-inspector run from its build tree, without installing
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The build tree's top when fl-inspector runs from it (BUILD/inspector/fl-inspector), else
 * NULL. */
char *inspector_dup_build_root    (void);

/* Where the build tree keeps what an installed program finds by itself: used only when
 * fl-inspector runs from the build tree. */
void  inspector_setup_uninstalled (void);

G_END_DECLS
