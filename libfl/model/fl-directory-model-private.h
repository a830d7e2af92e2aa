/* fl-directory-model-private.h: the model's test entry points
 *
 * The model's parts each have their own header (fl-model-*-private.h); see the top of
 * fl-directory-model.c for which calls which.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "fl-directory-model.h"

G_BEGIN_DECLS

/* Test entry points. With monitoring off (set before the first directory is added) the model
 * opens no GFileMonitor and schedules no periodic rescan: a test feeds it events itself and
 * flushes them, so it does not depend on inotify timing. pidfd watches stay on. */
void      _fl_directory_model_set_monitoring  (FlDirectoryModel  *self,
                                               gboolean           monitoring);
/* Events on, the periodic rescan off: a test that a change arrived by its event (a GFileMonitor
 * or an etcd watch), not by the repair that would find it anyway. */
void      _fl_directory_model_set_periodic    (FlDirectoryModel  *self,
                                               gboolean           periodic);
void      _fl_directory_model_apply_event     (FlDirectoryModel  *self,
                                               GFileMonitorEvent  event,
                                               const char        *path,
                                               const char        *other_path);
/* Reads the queued paths now (also what the coalescing timeout calls). */
void      _fl_directory_model_flush           (FlDirectoryModel  *self);
guint     _fl_directory_model_get_n_pid_watches (FlDirectoryModel *self);
/* When the model will next re-judge a lock by age, G_MAXINT64 if it never will. */
gint64    _fl_directory_model_get_next_deadline (FlDirectoryModel *self);
gboolean  _fl_directory_model_has_pending     (FlDirectoryModel  *self);

G_END_DECLS
