/* fl-model-owner-private.h: what the model's parts tell the model, called directly
 *
 * The parts (store, watch, monitor, scanner) each serve one FlDirectoryModel and call it back
 * here, by name: following a file event reads straight down the calls, with no table of
 * hooks in between (issue 31). The functions are in fl-directory-model.c; this header needs
 * only the public type, so the parts' headers do not include the object's and the include
 * lines stay a tree.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-directory-model.h"
#include "model/fl-model-roots-private.h"

G_BEGIN_DECLS

/* The model's clock (fl_directory_model_set_clock()), in microseconds of real time. */
gint64 _fl_directory_model_now                  (FlDirectoryModel *self);

/* From the store: @entry holds (@sign +1) or no longer holds (-1) @snap, so the counts and
 * watches follow; and what happened to @entry, after items-changed (never while quiet). */
void   _fl_directory_model_entry_accounted      (FlDirectoryModel *self,
                                                 FlEntry          *entry,
                                                 FlSnapshot       *snap,
                                                 int               sign);
void   _fl_directory_model_entry_changed        (FlDirectoryModel *self,
                                                 FlEntry          *entry,
                                                 FlChange          change);

/* From the watch and the monitor: read @path, or every entry naming @pid, again soon; read
 * a slice of what is queued now (a burst never holds the main loop for more than a frame). */
void   _fl_directory_model_queue_path           (FlDirectoryModel *self,
                                                 const char       *path);
void   _fl_directory_model_queue_pid            (FlDirectoryModel *self,
                                                 int               pid);
void   _fl_directory_model_flush_slice          (FlDirectoryModel *self);

/* From the monitor: the events cannot be trusted (rescan every root in @delay_ms), or another
 * backend's @root changed (rescan it; @root nullable, ignored once removed). */
void   _fl_directory_model_schedule_rescan      (FlDirectoryModel *self,
                                                 gint64            delay_ms);
void   _fl_directory_model_rescan_root          (FlDirectoryModel *self,
                                                 FlModelRoot      *root);

/* From the scanner: a scan found @dirs (char *) under @root, so the monitors follow;
 * entries were merged, so the counts and deadlines follow; FlDirectoryModel:loading may have
 * changed; @root's first scan failed, so it is not watched after all. */
void   _fl_directory_model_root_scanned         (FlDirectoryModel *self,
                                                 FlModelRoot      *root,
                                                 GPtrArray        *dirs);
void   _fl_directory_model_merged               (FlDirectoryModel *self);
void   _fl_directory_model_loading_changed      (FlDirectoryModel *self);
void   _fl_directory_model_initial_scan_failed  (FlDirectoryModel *self,
                                                 FlModelRoot      *root);
/* From the scanner: a root's problems (FlModelRoot:problems, unread, missing) were set
 * again. */
void   _fl_directory_model_problems_changed     (FlDirectoryModel *self);

G_END_DECLS
