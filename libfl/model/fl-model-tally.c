/* fl-model-tally.c: the model's counts, kept incrementally, notified when they change
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "model/fl-model-tally-private.h"

/* The one place the model decides which count an entry is in: by the state word that every
 * view shows (fl_snapshot_get_state()), so that each count is the number of rows that say
 * that word. An entry of unknown state (no PID yet, one this host cannot see) has a count of
 * its own: it is neither held nor stale. */
FlModelCount
_fl_model_tally_classify (FlSnapshot *snap)
{
  switch (fl_snapshot_get_state (snap))
    {
    case FL_ENTRY_STATE_HELD:
      return FL_MODEL_COUNT_HELD;
    case FL_ENTRY_STATE_STALE:
      /* A stale count is what a reclaim would end: libfl's own locks only. */
      return fl_snapshot_get_kind (snap) == FL_ENTRY_OTHER_PROGRAM ? FL_MODEL_COUNT_LEFTOVERS
                                                                    : FL_MODEL_COUNT_STALE;
    case FL_ENTRY_STATE_ORPHAN:
      return FL_MODEL_COUNT_ORPHANS;
    case FL_ENTRY_STATE_FOREIGN:
      return FL_MODEL_COUNT_FOREIGN;
    case FL_ENTRY_STATE_UNKNOWN:
      return FL_MODEL_COUNT_UNKNOWN;
    case FL_ENTRY_STATE_FREE:
      return FL_MODEL_COUNT_FREE;
    case FL_ENTRY_STATE_ACTIVE:
    default:
      return FL_MODEL_COUNT_ACTIVE;
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
  for (guint i = 0; i < FL_MODEL_N_COUNTS; i++)
    if (tally->counts[i] != tally->notified[i])
      {
        tally->notified[i] = tally->counts[i];
        g_object_notify_by_pspec (object, pspecs[i]);
      }
}
