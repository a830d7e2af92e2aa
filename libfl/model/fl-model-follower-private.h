/* fl-model-follower-private.h: how a FlDirectoryModel follows a root, one interface for every
 * backend: a directory file by file, or a root read whole
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A root's backend hands the model its follower (FlLockBackend:root_follower) when the root is
 * added, and the model drives the root through it alone: it never asks which backend a root
 * has. The file backend's follower follows a directory as its files change (a GFileMonitor per
 * directory, each event's path read again, a walk that hands the first rows over while it
 * goes on); any other backend's reads its root whole, with the backend's scan(), again
 * whenever the backend's watch says it changed. Each slot lives with the code it shares: the
 * monitor, the scanner and the reclaim include this header and call the slots;
 * fl-model-followers.c, above them, fills the two tables.
 */
#pragma once

#include "fl-directory-model.h"
#include "protocol/fl-lock-backend-private.h"
#include "model/fl-model-roots-private.h"

G_BEGIN_DECLS

/* The parts that drive a follower: fl-model-monitor-private.h, fl-model-scanner-private.h. */
typedef struct _FlModelMonitor FlModelMonitor;
typedef struct _FlModelScanJob FlModelScanJob;

struct _FlRootFollower
{
  /* Whether a root added with @recursive covers the levels below it. A root read whole
   * covers every key under its prefix: a '/' in a lock's name is part of the name. */
  gboolean (*recursive) (gboolean          asked);
  /* Follows @dir_path of @root live: the root itself, or a directory a scan found in it. */
  void     (*watch)     (FlModelMonitor   *monitor,
                         FlModelRoot      *root,
                         const char       *dir_path);
  /* Reads @job's root into it, in any thread (fl-model-scanner.c). */
  void     (*scan)      (FlModelScanJob   *job);
  /* fl_directory_model_reclaim() removed @path under @root (@ok) or was refused: the row
   * follows before it returns, or the root is read again. */
  void     (*reclaimed) (FlDirectoryModel *self,
                         FlModelRoot      *root,
                         const char       *path,
                         gboolean          ok);
  /* The model's reclaim worker removed @snapshot under @root. TRUE when a path was queued to
   * be read again (the caller then reads the queue). */
  gboolean (*removed)   (FlDirectoryModel *self,
                         FlModelRoot      *root,
                         FlSnapshot       *snapshot);
};

G_END_DECLS
