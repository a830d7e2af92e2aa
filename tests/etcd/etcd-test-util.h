/* etcd-test-util.h: what the etcd tests share: their server (harness/etcd-server.h), holders
 * that are processes, queue waits
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

#include "etcd-server.h"

G_BEGIN_DECLS

/* Holders that are real processes: the test program run with `--hold URI`. In that child,
 * etcd_test_hold() takes the lock (waiting as long as it must), holds it until its stdin
 * closes, and releases it. */
int          etcd_test_hold          (const char  *uri);
GSubprocess *etcd_test_spawn_holder  (const char  *self_path,
                                      const char  *uri);
/* Closing its stdin makes the child release and exit; asserts it exited 0. Takes @child. */
void         etcd_test_finish_holder (GSubprocess *child);
int          etcd_test_child_pid     (GSubprocess *child);

/* The single-node etcd of a test program (test-etcd-lock, -inspect, -model, flctl's
 * test-flctl-etcd). After g_test_init() and its g_test_add*(), main() returns
 * etcd_test_run_with_server (argv[0]): it starts the server (etcd_test_server), runs the tests
 * and stops it. A test that needs the server begins with ETCD_TEST_NEED(), which skips saying
 * why when the etcd binary is missing (CI checks that none skipped). */
extern EtcdServer *etcd_test_server;
/* argv[0], to spawn this program as a holder or worker. */
extern const char *etcd_test_self_path;
extern char       *etcd_test_skip_reason;

int          etcd_test_run_with_server (const char *argv0);

#define ETCD_TEST_NEED() \
  G_STMT_START { \
    if (etcd_test_server == NULL) \
      { \
        g_test_skip (etcd_test_skip_reason); \
        return; \
      } \
  } G_STMT_END

/* *@lost becomes TRUE when @lock emits "lost" (in this thread's main context: iterate it, as
 * etcd_wait_for (etcd_test_is_true, lost, ...) does). */
void         etcd_test_watch_lost    (FlLock      *lock,
                                      gboolean    *lost);
gboolean     etcd_test_is_true       (gpointer     flag);
/* fl_lock_acquire() that must succeed, with etcd_test_watch_lost() on the lock. */
FlLock      *etcd_test_acquire_watched (const char          *uri,
                                        const FlLockOptions *options,
                                        gboolean            *lost);

/* @ttl_s scaled by FL_TEST_TIME_SCALE (fl_test_scaled_ms()): for a lease that must outlive
 * what the test does meanwhile, which a starved keepalive on a busy machine can break (issue
 * 30, item 10). Not for a TTL that is what a test is about (a simulated clock's). */
guint        etcd_test_ttl_s         (guint       ttl_s);
/* The fenced counters of the faults and Jepsen tests: a small text file whose every step is
 * made atomic across processes by flock(). _open() takes LOCK_EX on @path and reads it into
 * @text (NUL-terminated, "" while empty); the descriptor's close() drops the lock.
 * _store() replaces the whole file with @text. */
int          etcd_test_counter_open  (const char  *path,
                                      char        *text,
                                      gsize        size);
void         etcd_test_counter_store (int          fd,
                                      const char  *text);
/* Options with this timeout and lease TTL: every etcd test sets both. */
FlLockOptions *etcd_test_options      (gint64      timeout_ms,
                                       guint       ttl_s);
/* Whether @lock_name's queue in etcd_test_server has @length keys now; and waiting (at most
 * @timeout_ms) until it has. */
gboolean     etcd_test_queue_has_length (const char *lock_name,
                                         guint       length);
gboolean     etcd_test_wait_queue      (const char *lock_name,
                                        guint       length,
                                        guint       timeout_ms);

/* Waiting (at most @timeout_ms) until @target is in @model, or (@present FALSE) is not. */
gboolean     etcd_test_wait_in_model   (FlDirectoryModel *model,
                                        const char       *target,
                                        gboolean          present,
                                        guint             timeout_ms);

G_END_DECLS
