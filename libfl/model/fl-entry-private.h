/* fl-entry-private.h: what the model's entry store does to an FlEntry
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-directory-model.h"

G_BEGIN_DECLS

FlEntry *_fl_entry_new          (FlSnapshot *snapshot);
void     _fl_entry_set_snapshot (FlEntry    *self,
                                 FlSnapshot *snapshot);

G_END_DECLS
