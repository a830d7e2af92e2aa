/* bench-libfl.c: libfl behind the same four calls as the baselines
 *
 * Only the public API, as a service would use it: fl_lock_acquire() with a generous deadline
 * (a benchmark that times out has found a bug, not a figure), fl_lock_release(), unref.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <libfl/fl.h>

#include "bench.h"

#define LIBFL_BENCH_TIMEOUT_MS 60000

static BenchLocker *
libfl_open (const char  *dir,
            const char  *target_name,
            GError     **error)
{
  BenchLocker *self = bench_locker_new (&bench_method_libfl, dir, target_name, error);
  FlLockOptions *options;

  if (self == NULL)
    return NULL;
  options = fl_lock_options_new ();
  fl_lock_options_set_timeout_ms (options, LIBFL_BENCH_TIMEOUT_MS);
  self->data = options;
  return self;
}

static gboolean
libfl_acquire (BenchLocker  *self,
               GError      **error)
{
  g_assert (self->held == NULL);
  self->held = fl_lock_acquire (self->target, self->data, NULL, error);
  return self->held != NULL;
}

static gboolean
libfl_release (BenchLocker  *self,
               GError      **error)
{
  g_autoptr(FlLock) lock = g_steal_pointer (&self->held);

  g_assert (lock != NULL);
  return fl_lock_release (lock, error);
}

static void
libfl_close (BenchLocker *self)
{
  g_clear_object ((FlLock **) &self->held);
  g_clear_pointer ((FlLockOptions **) &self->data, fl_lock_options_free);
  bench_locker_free (self);
}

const BenchMethod bench_method_libfl = {
  BENCH_LIBFL, "libfl", "libfl", TRUE,
  libfl_open, libfl_acquire, libfl_release, libfl_close,
};
