/* fl-model-followers.c: the two ways a FlDirectoryModel follows a root, side by side
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The file backend's roots are directories: followed file by file. Any other backend's root
 * (etcd's prefix) is read whole. Each backend names its follower in its FlLockBackend
 * (root_follower); the model calls the follower and never asks which one it has.
 */
#include "config.h"

#include "model/fl-directory-model-object-private.h"
#include "protocol/fl-file-backend-private.h"
#include "model/fl-model-follower-private.h"

static gboolean
recursive_as_asked (gboolean asked)
{
  return asked;
}

static gboolean
recursive_always (gboolean asked)
{
  return TRUE;
}

static const FlRootFollower directory_follower = {
  .recursive = recursive_as_asked,
  .watch = _fl_model_monitor_watch_directory,
  .scan = _fl_model_scan_walk,
  .reclaimed = _fl_directory_model_reclaimed_path,
  .removed = _fl_directory_model_removed_path,
};

static const FlRootFollower whole_follower = {
  .recursive = recursive_always,
  .watch = _fl_model_monitor_watch_whole,
  .scan = _fl_model_scan_whole,
  .reclaimed = _fl_directory_model_reclaimed_whole,
  .removed = _fl_directory_model_removed_whole,
};

const FlRootFollower *
_fl_file_root_follower (void)
{
  return &directory_follower;
}

const FlRootFollower *
_fl_root_follower_whole (void)
{
  return &whole_follower;
}
