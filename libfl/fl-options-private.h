/* fl-options-private.h: the options' fields, read by the rest of the library
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-options.h"

G_BEGIN_DECLS

struct _FlLockOptions
{
  gint64   timeout_ms;
  gint64   stale_after_ms;
  gint64   backoff_min_ms;
  gint64   backoff_max_ms;
  gboolean create_dirs;
};

/* @options may be NULL: the defaults. Never returns NULL. */
const FlLockOptions *_fl_lock_options_or_default (const FlLockOptions *options);

G_END_DECLS
