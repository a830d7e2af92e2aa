/* fl-walk-private.h: the one directory walker, for fl_scan_directory() and the model's scans
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* The deepest directory a recursive walk reads; the root is at depth 0. 64, not 32: it is what
 * fl_scan_directory_full() has always documented, and a deep tree costs one descriptor per
 * level while the walk is in it (64 of the usual 1024), nothing more. */
#define FL_WALK_MAX_DEPTH 64

typedef enum
{
  FL_WALK_UNREADABLE,  /* a directory that opened but could not be listed */
  FL_WALK_UNOPENABLE,  /* a subdirectory that could not be opened (no permission, no fds) */
  FL_WALK_TOO_DEEP,    /* a subdirectory past FL_WALK_MAX_DEPTH: not read */
} FlWalkProblem;

typedef struct
{
  /* One directory, listed: @names (char *) are those that fl_entry_kind_for_name() knows, in
   * listing order. @dir is open until the callback returns. FALSE with @error set stops. */
  gboolean (*directory) (FlDir       *dir,
                         const char  *path,
                         GPtrArray   *names,
                         gpointer     user_data,
                         GError     **error);
  /* A part of the tree left out; @depth is that of @path. FALSE with @error set stops, TRUE
   * goes on without it. NULL: go on silently. */
  gboolean (*problem)   (const char    *path,
                         guint          depth,
                         FlWalkProblem  problem,
                         int            errno_value,
                         gpointer       user_data,
                         GError       **error);
} FlWalkFuncs;

gboolean _fl_walk (FlDir             *dir,
                   const char        *path,
                   gboolean           recursive,
                   const FlWalkFuncs *funcs,
                   gpointer           user_data,
                   GCancellable      *cancellable,
                   GError           **error);

G_END_DECLS
