/* fl-model-watch-private.h: what changes an entry without a file event (a holder's exit, an
 * unparsable lock's deadline, an exited holder's PID used again), watched so that the model
 * re-reads it in time
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-directory-model.h"

G_BEGIN_DECLS

#define FL_MODEL_MAX_PID_WATCHES 4096  /* and at most a quarter of the descriptors */

typedef struct
{
  GHashTable              *pid_watches;  /* pid -> PidWatch */
  guint                    max_pid_watches;
  GHashTable              *deadlines;    /* FlEntry -> itself: unparsable, not yet stale */
  guint                    deadline_id;
  GHashTable              *dead_pids;    /* pid -> number of entries whose holder exited */
  guint                    dead_id;      /* looking for those PIDs in use again */
  FlDirectoryModel        *model;        /* the owner, which reads the paths again */
} FlModelWatch;

void  _fl_model_watch_init     (FlModelWatch            *watch,
                                FlDirectoryModel        *model);
void  _fl_model_watch_dispose  (FlModelWatch            *watch);
void  _fl_model_watch_finalize (FlModelWatch            *watch);
/* @entry now holds (@sign +1) or no longer holds (-1) @snap. */
void  _fl_model_watch_account  (FlModelWatch            *watch,
                                FlEntry                 *entry,
                                FlSnapshot              *snap,
                                int                      sign);
/* After a batch of changes, or a new clock: when the next deadline falls. */
void  _fl_model_watch_schedule (FlModelWatch            *watch);
guint _fl_model_watch_get_n_pid_watches (FlModelWatch   *watch);
/* The earliest age deadline (the judge's stale time), G_MAXINT64 without one. */
gint64 _fl_model_watch_get_next_deadline (FlModelWatch  *watch);

G_END_DECLS
