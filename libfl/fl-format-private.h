/* fl-format-private.h: fl-format.c's words, for libfl's own messages
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-format.h"

G_BEGIN_DECLS

/* fl_format_age(), for libfl's own messages. */
char       *_fl_format_age                  (gint64       age_us);

/* What another program's lock file is and what to do when it is stuck, for
 * fl_snapshot_dup_other_explanation() and the error of a refused reclaim. */
const char *_fl_lock_format_get_explanation (FlLockFormat format);

G_END_DECLS
