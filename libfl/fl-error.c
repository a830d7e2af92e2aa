/* fl-error.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fl-error.h"

G_DEFINE_QUARK (fl-error-quark, fl_error)
