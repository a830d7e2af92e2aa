/* fl-model-reclaimer-private.h: many confirmed snapshots reclaimed in a worker thread, the
 * outcome reported in batches on the model's main context
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "fl-options.h"
#include "fl-snapshot.h"

G_BEGIN_DECLS

/* A batch holds at most this many snapshots, and at most one batch waits for the main
 * context while the worker fills the next: the files removed and not yet reported are never
 * more than twice this many, however busy the main context (the model's counts lag the disk
 * by at most that). Small enough for a batch's rows to leave within a frame. */
#define FL_MODEL_RECLAIM_BATCH 64

/* What happened since the previous batch. */
typedef struct
{
  GPtrArray *removed;   /* FlSnapshot *: removed by this reclaim */
  GPtrArray *refused;   /* FlSnapshot *: left alone (changed, alive again, not allowed) */
  GPtrArray *untried;   /* FlSnapshot *: never tried, the work was cancelled (last batch) */
  guint      done;      /* snapshots handled so far, in all batches */
  guint      total;
  gboolean   last;      /* no batch follows */
} FlModelReclaimBatch;

/* Called on @context for each batch, in order; @destroy runs after the last one. */
typedef void (*FlModelReclaimReport) (const FlModelReclaimBatch *batch,
                                      gpointer                   user_data);

void _fl_model_reclaimer_start (GPtrArray            *snapshots,
                                const FlLockOptions  *options,
                                GCancellable         *cancellable,
                                GMainContext         *context,
                                FlModelReclaimReport  report,
                                gpointer              user_data,
                                GDestroyNotify        destroy);

G_END_DECLS
