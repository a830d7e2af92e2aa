/* fl-options.c: FlLockOptions, a small boxed value
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "fl-options-private.h"

G_DEFINE_BOXED_TYPE (FlLockOptions, fl_lock_options, fl_lock_options_copy, fl_lock_options_free)

static const FlLockOptions default_options = {
  .timeout_ms = FL_DEFAULT_TIMEOUT_MS,
  .stale_after_ms = FL_DEFAULT_STALE_AFTER_MS,
  .backoff_min_ms = FL_DEFAULT_BACKOFF_MIN_MS,
  .backoff_max_ms = FL_DEFAULT_BACKOFF_MAX_MS,
  .create_dirs = FALSE,
};

const FlLockOptions *
_fl_lock_options_or_default (const FlLockOptions *options)
{
  return options != NULL ? options : &default_options;
}

/**
 * fl_lock_options_new:
 *
 * Returns: (transfer full): options with the defaults: wait 30 s, a lock whose content is not a
 *   PID is stale after 30 s, missing directories are an error, back off between 1 ms and 1 s
 */
FlLockOptions *
fl_lock_options_new (void)
{
  return g_memdup2 (&default_options, sizeof default_options);
}

FlLockOptions *
fl_lock_options_copy (const FlLockOptions *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return g_memdup2 (self, sizeof *self);
}

void
fl_lock_options_free (FlLockOptions *self)
{
  g_free (self);
}

/**
 * fl_lock_options_set_timeout_ms:
 * @timeout_ms: how long fl_lock_acquire() waits; 0 means one try, as fl_lock_try_acquire();
 *   a negative value means forever
 */
void
fl_lock_options_set_timeout_ms (FlLockOptions *self,
                                gint64         timeout_ms)
{
  g_return_if_fail (self != NULL);

  self->timeout_ms = timeout_ms;
}

gint64
fl_lock_options_get_timeout_ms (const FlLockOptions *self)
{
  return _fl_lock_options_or_default (self)->timeout_ms;
}

/**
 * fl_lock_options_set_stale_after_ms:
 * @stale_after_ms: how old a lock whose content is not a valid PID must be before it counts
 *   as stale. Locks with a PID are judged by their holder, never by age.
 */
void
fl_lock_options_set_stale_after_ms (FlLockOptions *self,
                                    gint64         stale_after_ms)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (stale_after_ms >= 0);

  self->stale_after_ms = stale_after_ms;
}

gint64
fl_lock_options_get_stale_after_ms (const FlLockOptions *self)
{
  return _fl_lock_options_or_default (self)->stale_after_ms;
}

/**
 * fl_lock_options_set_create_dirs:
 * @create_dirs: whether acquiring creates the lock's missing parent directories (mode 0777
 *   less the umask), as the Node module does
 */
void
fl_lock_options_set_create_dirs (FlLockOptions *self,
                                 gboolean       create_dirs)
{
  g_return_if_fail (self != NULL);

  self->create_dirs = !!create_dirs;
}

gboolean
fl_lock_options_get_create_dirs (const FlLockOptions *self)
{
  return _fl_lock_options_or_default (self)->create_dirs;
}

/**
 * fl_lock_options_set_backoff_ms:
 * @min_ms: the first retry interval where no events can be watched, or where the process
 *   keeping a lock's kernel lock cannot be watched (it is not the PID in the file)
 * @max_ms: the longest retry interval, and the period of the safety re-check while waiting
 *   on events
 *
 * Waiting is driven by events (see docs/protocol.md, section 5); these bounds matter only
 * where events are unavailable, and as a safety net.
 */
void
fl_lock_options_set_backoff_ms (FlLockOptions *self,
                                gint64         min_ms,
                                gint64         max_ms)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (min_ms >= 1);
  g_return_if_fail (max_ms >= min_ms);

  self->backoff_min_ms = min_ms;
  self->backoff_max_ms = max_ms;
}

void
fl_lock_options_get_backoff_ms (const FlLockOptions *self,
                                gint64              *min_ms,
                                gint64              *max_ms)
{
  self = _fl_lock_options_or_default (self);

  if (min_ms != NULL)
    *min_ms = self->backoff_min_ms;
  if (max_ms != NULL)
    *max_ms = self->backoff_max_ms;
}
