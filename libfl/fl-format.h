/* fl-format.h: the words libfl, flctl and the Lock Inspector show for a lock's age
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <glib.h>

#include "fl-version-macros.h"

G_BEGIN_DECLS

FL_AVAILABLE_IN_ALL
char *fl_format_age (gint64 age_us);

G_END_DECLS
