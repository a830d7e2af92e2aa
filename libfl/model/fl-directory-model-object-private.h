/* fl-directory-model-object-private.h: the model's fields and the helpers its files share
 *
 * For the files that make up the object (fl-directory-model.c, fl-directory-model-reclaim.c);
 * tests use fl-directory-model-private.h, everyone else the public API.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "fl-directory-model.h"
#include "model/fl-model-monitor-private.h"
#include "model/fl-model-owner-private.h"
#include "model/fl-model-reader-private.h"
#include "model/fl-model-roots-private.h"
#include "model/fl-model-scanner-private.h"
#include "model/fl-model-store-private.h"
#include "model/fl-model-tally-private.h"
#include "model/fl-model-watch-private.h"
#include "fl-options.h"

G_BEGIN_DECLS

struct _FlDirectoryModel
{
  GObject         parent_instance;

  FlLockOptions  *options;
  GPtrArray      *roots;     /* FlModelRoot * */
  FlModelStore    store;
  FlModelTally    tally;
  FlModelWatch    watch;
  FlModelMonitor  monitor;
  FlModelScanner  scanner;

  FlClockFunc     clock;
  gpointer        clock_data;
  GDestroyNotify  clock_destroy;

  char           *problems_said;   /* the problems last notified, joined */
  guint           missing_poll_id; /* looking for a watched directory that is gone */
};

/* After a scan set a root's problems: TRUE if FlDirectoryModel:problems changed; looks for a
 * missing root while there is one (fl-directory-model-problems.c). */
gboolean _fl_directory_model_problems_update (FlDirectoryModel *self);
/* Notifies the n-* properties whose counts changed. */
void   _fl_directory_model_notify_counts  (FlDirectoryModel *self);
/* Reads @path again and applies it to the store, if a root covers it. */
void   _fl_directory_model_refresh_path   (FlDirectoryModel *self,
                                           FlModelReader    *reader,
                                           const char       *path,
                                           guint             flags,
                                           gint64            now_us);

/* The followers' reclaimed and removed slots (fl-model-follower-private.h), in
 * fl-directory-model-reclaim.c: a directory's row follows the reclaim at once; a root read
 * whole is read again. */
void     _fl_directory_model_reclaimed_path  (FlDirectoryModel *self,
                                              FlModelRoot      *root,
                                              const char       *path,
                                              gboolean          ok);
void     _fl_directory_model_reclaimed_whole (FlDirectoryModel *self,
                                              FlModelRoot      *root,
                                              const char       *path,
                                              gboolean          ok);
gboolean _fl_directory_model_removed_path    (FlDirectoryModel *self,
                                              FlModelRoot      *root,
                                              FlSnapshot       *snapshot);
gboolean _fl_directory_model_removed_whole   (FlDirectoryModel *self,
                                              FlModelRoot      *root,
                                              FlSnapshot       *snapshot);

G_END_DECLS
