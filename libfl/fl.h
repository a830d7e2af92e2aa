/* fl.h: the umbrella header of libfl, cross-process file locks
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define FL_INSIDE
# include "fl-version-macros.h"
# include "fl-error.h"
# include "fl-enums.h"
# include <libfl/fl-enum-types.h>
# include "fl-format.h"
# include "fl-options.h"
# include "fl-lock.h"
# include "fl-snapshot.h"
# include "fl-scan.h"
# include "fl-directory-model.h"
# include "fl-kernel-lock-info.h"
#undef FL_INSIDE
