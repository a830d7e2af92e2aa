/* fl-scan.h: one pass over a directory, every lock, temp and graveyard file in it
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <gio/gio.h>

#include "fl-version-macros.h"
#include "fl-options.h"

G_BEGIN_DECLS

/**
 * FlScanFlags:
 * @FL_SCAN_NONE: only the directory itself.
 * @FL_SCAN_RECURSIVE: also every directory below it (symbolic links to directories are not
 *   followed).
 *
 * Which directories fl_scan_directory() reads.
 *
 * Since: 0.1
 */
typedef enum
{
  FL_SCAN_NONE      = 0,
  FL_SCAN_RECURSIVE = 1 << 0,
} FlScanFlags;

FL_AVAILABLE_IN_0_1
GPtrArray *fl_scan_directory (const char          *directory,
                              FlScanFlags          flags,
                              const FlLockOptions *options,
                              GCancellable        *cancellable,
                              GError             **error);
FL_AVAILABLE_IN_0_1
GPtrArray *fl_scan_directory_full (const char          *directory,
                                   FlScanFlags          flags,
                                   const FlLockOptions *options,
                                   GCancellable        *cancellable,
                                   GPtrArray          **errors,
                                   GError             **error);

G_END_DECLS
