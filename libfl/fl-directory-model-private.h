/* fl-directory-model-private.h: what the model's two files and the tests share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-directory-model.h"

G_BEGIN_DECLS

/* fl-entry.c */
FlEntry  *_fl_entry_new                       (FlSnapshot        *snapshot);
void      _fl_entry_set_snapshot              (FlEntry           *self,
                                               FlSnapshot        *snapshot);

/* Test entry points. With monitoring off (set before the first directory is added) the model
 * opens no GFileMonitor and schedules no periodic rescan: a test feeds it events itself and
 * flushes them, so it does not depend on inotify timing. pidfd watches stay on. */
void      _fl_directory_model_set_monitoring  (FlDirectoryModel  *self,
                                               gboolean           monitoring);
void      _fl_directory_model_apply_event     (FlDirectoryModel  *self,
                                               GFileMonitorEvent  event,
                                               const char        *path,
                                               const char        *other_path);
void      _fl_directory_model_flush           (FlDirectoryModel  *self);
guint     _fl_directory_model_get_n_pid_watches (FlDirectoryModel *self);
gboolean  _fl_directory_model_has_pending     (FlDirectoryModel  *self);

G_END_DECLS
