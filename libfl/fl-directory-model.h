/* fl-directory-model.h: a live GListModel of the lock files in some directories
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <gio/gio.h>

#include "fl-version-macros.h"
#include "fl-enums.h"
#include "fl-options.h"
#include "fl-snapshot.h"

G_BEGIN_DECLS

/**
 * FlChange:
 * @FL_CHANGE_CREATED: an entry appeared (a lock was taken, a temp or graveyard was written).
 * @FL_CHANGE_RELEASED: an entry disappeared (a lock was released, a temp or graveyard removed).
 * @FL_CHANGE_TAKEN_OVER: a lock was moved to a graveyard by a takeover or reclaim.
 * @FL_CHANGE_HOLDER_DIED: an entry's holder or creator exited; the entry is now stale.
 * @FL_CHANGE_UPDATED: anything else about an entry changed (content, kernel lock, verdict).
 *
 * What FlDirectoryModel::entry-changed reports.
 *
 * Since: 0.1
 */
typedef enum
{
  FL_CHANGE_CREATED,
  FL_CHANGE_RELEASED,
  FL_CHANGE_TAKEN_OVER,
  FL_CHANGE_HOLDER_DIED,
  FL_CHANGE_UPDATED,
} FlChange;

/**
 * FlClockFunc:
 * @user_data: the data given with the clock
 *
 * A clock for #FlDirectoryModel (fl_directory_model_set_clock()), called on the model's
 * thread.
 *
 * Returns: the current real time in microseconds, as g_get_real_time() does
 *
 * Since: 0.1
 */
typedef gint64 (*FlClockFunc) (gpointer user_data);

/**
 * FlProgressFunc:
 * @done: how many items are handled so far
 * @total: how many there are in all
 * @user_data: the data given with the function
 *
 * How far a long operation has come, called on the thread-default main context of the call
 * that started it.
 *
 * Since: 0.1
 */
typedef void (*FlProgressFunc) (guint    done,
                                guint    total,
                                gpointer user_data);

#define FL_TYPE_ENTRY (fl_entry_get_type ())

FL_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (FlEntry, fl_entry, FL, ENTRY, GObject)

FL_AVAILABLE_IN_0_1
const char   *fl_entry_get_path         (FlEntry *self);
FL_AVAILABLE_IN_0_1
FlSnapshot   *fl_entry_get_snapshot     (FlEntry *self);
FL_AVAILABLE_IN_0_1
FlSnapshot   *fl_entry_dup_snapshot     (FlEntry *self);

#define FL_TYPE_DIRECTORY_MODEL (fl_directory_model_get_type ())

FL_AVAILABLE_IN_0_1
G_DECLARE_FINAL_TYPE (FlDirectoryModel, fl_directory_model, FL, DIRECTORY_MODEL, GObject)

FL_AVAILABLE_IN_0_1
FlDirectoryModel *fl_directory_model_new               (const FlLockOptions *options);
FL_AVAILABLE_IN_0_1
gboolean          fl_directory_model_add_directory     (FlDirectoryModel    *self,
                                                        const char          *directory,
                                                        gboolean             recursive,
                                                        GError             **error);
FL_AVAILABLE_IN_0_1
void              fl_directory_model_add_directory_async  (FlDirectoryModel    *self,
                                                           const char          *directory,
                                                           gboolean             recursive,
                                                           GCancellable        *cancellable,
                                                           GAsyncReadyCallback  callback,
                                                           gpointer             user_data);
FL_AVAILABLE_IN_0_1
gboolean          fl_directory_model_add_directory_finish (FlDirectoryModel    *self,
                                                           GAsyncResult        *result,
                                                           GError             **error);
FL_AVAILABLE_IN_0_1
gboolean          fl_directory_model_remove_directory  (FlDirectoryModel    *self,
                                                        const char          *directory);
FL_AVAILABLE_IN_0_1
char            **fl_directory_model_dup_directories   (FlDirectoryModel    *self);
FL_AVAILABLE_IN_0_1
char            **fl_directory_model_dup_problems      (FlDirectoryModel    *self,
                                                        const char          *directory);
FL_AVAILABLE_IN_0_1
void              fl_directory_model_set_clock         (FlDirectoryModel    *self,
                                                        FlClockFunc          clock,
                                                        gpointer             user_data,
                                                        GDestroyNotify       destroy);
FL_AVAILABLE_IN_0_1
gint64            fl_directory_model_get_now           (FlDirectoryModel    *self);
FL_AVAILABLE_IN_0_1
void              fl_directory_model_rescan            (FlDirectoryModel    *self);
FL_AVAILABLE_IN_0_1
FlEntry          *fl_directory_model_lookup            (FlDirectoryModel    *self,
                                                        const char          *path);
FL_AVAILABLE_IN_0_1
GPtrArray        *fl_directory_model_dup_related       (FlDirectoryModel    *self,
                                                        FlEntry             *entry);
FL_AVAILABLE_IN_0_1
gboolean          fl_directory_model_reclaim           (FlDirectoryModel    *self,
                                                        FlSnapshot          *snapshot,
                                                        GError             **error);
FL_AVAILABLE_IN_0_1
void              fl_directory_model_reclaim_async     (FlDirectoryModel    *self,
                                                        GPtrArray           *snapshots,
                                                        GCancellable        *cancellable,
                                                        FlProgressFunc       progress,
                                                        gpointer             progress_data,
                                                        GDestroyNotify       progress_destroy,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
FL_AVAILABLE_IN_0_1
gboolean          fl_directory_model_reclaim_finish    (FlDirectoryModel    *self,
                                                        GAsyncResult        *result,
                                                        guint               *n_removed,
                                                        guint               *n_refused,
                                                        GError             **error);

G_END_DECLS
