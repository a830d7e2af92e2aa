/* fl-model-tally-private.h: the model's counts (n-held, n-stale, n-orphans, n-foreign,
 * n-unknown, n-active, n-free, n-leftovers): every state, each entry in one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

#include "fl-snapshot.h"

G_BEGIN_DECLS

typedef enum
{
  FL_MODEL_COUNT_HELD,
  FL_MODEL_COUNT_STALE,
  FL_MODEL_COUNT_ORPHANS,
  FL_MODEL_COUNT_FOREIGN,
  FL_MODEL_COUNT_UNKNOWN,
  FL_MODEL_COUNT_ACTIVE,    /* temps and graveyards being written, etcd waiters */
  FL_MODEL_COUNT_FREE,      /* other programs' lock files that nobody holds */
  FL_MODEL_COUNT_LEFTOVERS, /* other programs' lock files whose owner is gone: never libfl's
                             * to reclaim, so never in the stale count */
  FL_MODEL_N_COUNTS
} FlModelCount;

typedef struct
{
  guint counts[FL_MODEL_N_COUNTS];
  guint notified[FL_MODEL_N_COUNTS];
} FlModelTally;

FlModelCount _fl_model_tally_classify (FlSnapshot        *snap);
void         _fl_model_tally_add      (FlModelTally      *tally,
                                       FlSnapshot        *snap,
                                       int                sign);
guint        _fl_model_tally_get      (FlModelTally      *tally,
                                       FlModelCount       count);
/* Notifies @pspecs[count] on @object for every count that changed since the last call. */
void         _fl_model_tally_notify   (FlModelTally      *tally,
                                       GObject           *object,
                                       GParamSpec *const *pspecs);

G_END_DECLS
