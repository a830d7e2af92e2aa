/* fl-model-monitor-private.h: file events: a GFileMonitor per directory, the paths they name
 * queued and coalesced until the model reads them again; a root read whole, rescanned on its
 * watch
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "fl-directory-model.h"
#include "model/fl-model-roots-private.h"
#include "fl-options.h"

G_BEGIN_DECLS

#define FL_MODEL_COALESCE_MS 10

typedef struct _FlModelMonitor
{
  GPtrArray                 *roots;        /* the model's FlModelRoot *, borrowed */
  const FlLockOptions       *options;      /* the model's, borrowed: for a backend's watch */
  gboolean                   enabled;      /* FALSE in tests: no GFileMonitor */
  GHashTable                *pending;      /* path -> flags */
  guint                      flush_id;
  gint64                     last_flush_us;  /* monotonic */
  FlDirectoryModel          *model;        /* the owner, which reads the queue */
} FlModelMonitor;

/* One path to read again, with its flags (FL_MODEL_TAKEN_OVER). */
typedef struct
{
  char  *path;
  guint  flags;
} FlModelPending;

void     _fl_model_monitor_init          (FlModelMonitor            *monitor,
                                          GPtrArray                 *roots,
                                          FlDirectoryModel          *model);
void     _fl_model_monitor_dispose       (FlModelMonitor            *monitor);
void     _fl_model_monitor_finalize      (FlModelMonitor            *monitor);

void     _fl_model_monitor_queue         (FlModelMonitor            *monitor,
                                          const char                *path,
                                          guint                      flags);
void     _fl_model_monitor_apply_event   (FlModelMonitor            *monitor,
                                          GFileMonitorEvent          event,
                                          const char                *path,
                                          const char                *other_path);
/* The queue is read again as soon as the main loop has nothing more urgent: input and
 * redraws first (a slice of a burst was applied, the rest waits). */
void     _fl_model_monitor_continue      (FlModelMonitor            *monitor);
gboolean _fl_model_monitor_has_pending   (FlModelMonitor            *monitor);
/* The queued paths, sorted (so that neighbours share a directory), and the queue emptied;
 * NULL if there are none, or so many that a rescan (asked for) is cheaper. */
GArray  *_fl_model_monitor_take_pending  (FlModelMonitor            *monitor);

/* In a recursive root, a directory new to the monitors gets one and a rescan. */
void     _fl_model_monitor_check_new_directory (FlModelMonitor      *monitor,
                                                const char          *path);
/* Follows @dir_path of @root live, as the root's follower does (fl-model-follower-private.h):
 * a directory's GFileMonitor on @dir_path, or the backend's watch of a root read whole. */
void     _fl_model_monitor_watch         (FlModelMonitor            *monitor,
                                          FlModelRoot               *root,
                                          const char                *dir_path);
/* The two followers' watch slots (fl-model-followers.c). */
void     _fl_model_monitor_watch_directory (FlModelMonitor          *monitor,
                                            FlModelRoot             *root,
                                            const char              *dir_path);
void     _fl_model_monitor_watch_whole   (FlModelMonitor            *monitor,
                                          FlModelRoot               *root,
                                          const char                *dir_path);
/* Watches exactly @dirs (char *) in @root, and the root itself. */
void     _fl_model_monitor_sync          (FlModelMonitor            *monitor,
                                          FlModelRoot               *root,
                                          GPtrArray                 *dirs);

G_END_DECLS
