/* fl-model-scanner-private.h: whole roots read off the main thread (a directory by the walker,
 * a root read whole by its backend), and merged into the entry store on the main context
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "model/fl-model-roots-private.h"
#include "model/fl-model-store-private.h"

G_BEGIN_DECLS

typedef enum
{
  FL_MODEL_SCAN_INITIAL,  /* a directory's first scan: no entry-changed, it is not news */
  FL_MODEL_SCAN_RESCAN,   /* a repair: every difference is reported */
  FL_MODEL_SCAN_REMOVE,   /* the directory is no longer watched: drop what no other root covers */
} FlModelScanMode;

/* One scan of one root, read by the root's follower (fl-model-follower-private.h). */
typedef struct _FlModelScanJob FlModelScanJob;

typedef struct
{
  FlModelStore              *store;        /* the model's, borrowed */
  GPtrArray                 *roots;        /* the model's FlModelRoot *, borrowed */
  const FlLockOptions       *options;      /* the model's, borrowed; copied into each scan */
  GCancellable              *cancellable;  /* cancelled when the model goes */
  gboolean                   periodic;     /* FALSE in tests: no rescan by itself */
  GHashTable                *touched;      /* paths refreshed while a scan ran, or NULL */
  guint                      n_in_flight;
  guint                      n_initial_in_flight;
  guint                      rescan_id;
  gboolean                   rescan_again; /* asked for while scans were in flight */
  gint64                     interval_ms;
  FlDirectoryModel          *model;        /* the owner: scans in flight hold it weakly */
} FlModelScanner;

void     _fl_model_scanner_init     (FlModelScanner            *scanner,
                                     FlModelStore              *store,
                                     GPtrArray                 *roots,
                                     FlDirectoryModel          *model);
void     _fl_model_scanner_dispose  (FlModelScanner            *scanner);
void     _fl_model_scanner_finalize (FlModelScanner            *scanner);

/* Reads @root now, in this thread, and merges it. */
gboolean _fl_model_scanner_run      (FlModelScanner            *scanner,
                                     FlModelRoot               *root,
                                     FlModelScanMode            mode,
                                     GError                   **error);
/* Reads @root in a worker thread; @task (nullable) returns when it is merged. */
void     _fl_model_scanner_start    (FlModelScanner            *scanner,
                                     FlModelRoot               *root,
                                     FlModelScanMode            mode,
                                     GTask                     *task);
/* Drops @root's entries (those that no other root covers). */
void     _fl_model_scanner_forget   (FlModelScanner            *scanner,
                                     FlModelRoot               *root);
/* A rescan of every root in @delay_ms; the periodic one when @delay_ms is large. */
void     _fl_model_scanner_schedule (FlModelScanner            *scanner,
                                     gint64                     delay_ms);
/* @path was read again meanwhile: a scan in flight must not overwrite it. */
void     _fl_model_scanner_touch    (FlModelScanner            *scanner,
                                     const char                *path);
gboolean _fl_model_scanner_is_loading (FlModelScanner          *scanner);

/* The two followers' scan slots (fl-model-followers.c), in any thread: the walk of a
 * directory, and a root read whole by its backend's scan(). */
void     _fl_model_scan_walk        (FlModelScanJob            *job);
void     _fl_model_scan_whole       (FlModelScanJob            *job);

G_END_DECLS
