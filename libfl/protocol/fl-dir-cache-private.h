/* fl-dir-cache-private.h: the last lock directory, kept open for the next acquire
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* The directory descriptor a release left for the next acquire of @directory (the same
 * string), or NULL. It is never trusted: it may be a directory that was moved or replaced
 * since, so the acquirer checks it is still the one at the path before anything decides
 * (docs/protocol.md, section 3a). The caller owns what it gets. */
FlDir *_fl_dir_cache_take (const char *directory);

/* Keeps @dir, opened for @directory, for the next acquire; takes it (closes it where the
 * platform keeps no directory open, or when another takes its place). */
void   _fl_dir_cache_put  (const char *directory,
                           FlDir      *dir);

G_END_DECLS
