/* fl-model-tally.c: the model's counts, kept incrementally, notified when they change
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fl-model-tally-private.h"

/* The one place the model decides which count an entry is in. */
FlModelCount
_fl_model_tally_classify (FlSnapshot *snap)
{
  switch (fl_snapshot_get_kind (snap))
    {
    case FL_ENTRY_LOCK:
      return fl_snapshot_get_stale (snap) ? FL_MODEL_COUNT_STALE : FL_MODEL_COUNT_HELD;
    case FL_ENTRY_TEMP:
    case FL_ENTRY_GRAVEYARD:
      return fl_snapshot_get_stale (snap) ? FL_MODEL_COUNT_ORPHANS : FL_MODEL_COUNT_OTHER;
    case FL_ENTRY_FOREIGN:
    default:
      return FL_MODEL_COUNT_FOREIGN;
    }
}

void
_fl_model_tally_add (FlModelTally *tally,
                     FlSnapshot   *snap,
                     int           sign)
{
  tally->counts[_fl_model_tally_classify (snap)] += sign;
}

guint
_fl_model_tally_get (FlModelTally *tally,
                     FlModelCount  count)
{
  g_assert (count < FL_MODEL_N_COUNTS);
  return tally->counts[count];
}

void
_fl_model_tally_notify (FlModelTally      *tally,
                        GObject           *object,
                        GParamSpec *const *pspecs)
{
  for (guint i = 0; i < FL_MODEL_COUNT_OTHER; i++)
    if (tally->counts[i] != tally->notified[i])
      {
        tally->notified[i] = tally->counts[i];
        g_object_notify_by_pspec (object, pspecs[i]);
      }
}
