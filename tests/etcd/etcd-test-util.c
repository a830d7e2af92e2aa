/* etcd-test-util.c: what the etcd tests share: their server, holders and queue waits
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "etcd-test-util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fl-test-dir.h"

int
etcd_test_hold (const char *uri)
{
  g_autoptr(GError) error = NULL;
  /* The defaults (30 s, TTL 10 s), scaled: a busy machine must not make it lose the lock. */
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (30000),
                                                        etcd_test_ttl_s (FL_DEFAULT_LEASE_TTL_S));
  g_autoptr(FlLock) lock = fl_lock_acquire (uri, options, NULL, &error);
  char buf[16];

  if (lock == NULL)
    g_error ("hold: %s", error->message);
  while (fread (buf, 1, sizeof buf, stdin) > 0)
    ;
  if (!fl_lock_release (lock, &error))
    g_error ("hold: release: %s", error->message);
  return 0;
}

GSubprocess *
etcd_test_spawn_holder (const char *self_path,
                        const char *uri)
{
  g_autoptr(GError) error = NULL;
  GSubprocess *child = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE, &error, self_path,
                                         "--hold", uri, NULL);

  g_assert_no_error (error);
  return child;
}

void
etcd_test_finish_holder (GSubprocess *child)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_close (g_subprocess_get_stdin_pipe (child), NULL, NULL);
  g_assert_true (g_subprocess_wait_check (child, NULL, &error));
  g_assert_no_error (error);
  g_object_unref (child);
}

int
etcd_test_child_pid (GSubprocess *child)
{
  return (int) g_ascii_strtoll (g_subprocess_get_identifier (child), NULL, 10);
}

/* The single-node server of a test program */

EtcdServer *etcd_test_server;
const char *etcd_test_self_path;
char *etcd_test_skip_reason;

int
etcd_test_run_with_server (const char *argv0)
{
  int ret;

  etcd_test_self_path = argv0;
  etcd_test_server = etcd_server_start (&etcd_test_skip_reason);
  ret = g_test_run ();
  etcd_server_stop (etcd_test_server);
  etcd_test_server = NULL;
  g_clear_pointer (&etcd_test_skip_reason, g_free);
  return ret;
}

static void
set_flag_cb (FlLock   *lock,
             gpointer  flag)
{
  *(gboolean *) flag = TRUE;
}

void
etcd_test_watch_lost (FlLock   *lock,
                      gboolean *lost)
{
  g_signal_connect (lock, "lost", G_CALLBACK (set_flag_cb), lost);
}

gboolean
etcd_test_is_true (gpointer flag)
{
  return *(gboolean *) flag;
}

FlLock *
etcd_test_acquire_watched (const char          *uri,
                           const FlLockOptions *options,
                           gboolean            *lost)
{
  g_autoptr(GError) error = NULL;
  FlLock *lock = fl_lock_acquire (uri, options, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  etcd_test_watch_lost (lock, lost);
  return lock;
}

int
etcd_test_counter_open (const char *path,
                        char       *text,
                        gsize       size)
{
  int fd = open (path, O_RDWR | O_CLOEXEC);
  ssize_t n;

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX), ==, 0);
  n = pread (fd, text, size - 1, 0);
  if (n < 0)
    g_error ("cannot read the counter %s: %s", path, g_strerror (errno));
  text[n] = '\0';
  return fd;
}

void
etcd_test_counter_store (int         fd,
                         const char *text)
{
  ssize_t len = (ssize_t) strlen (text);

  g_assert_cmpint (pwrite (fd, text, (size_t) len, 0), ==, len);
  g_assert_cmpint (ftruncate (fd, len), ==, 0);
}

guint
etcd_test_ttl_s (guint ttl_s)
{
  return (guint) (fl_test_scaled_ms ((gint64) ttl_s * 1000) / 1000);
}

FlLockOptions *
etcd_test_options (gint64 timeout_ms,
                   guint  ttl_s)
{
  FlLockOptions *options = fl_lock_options_new ();

  fl_lock_options_set_timeout_ms (options, timeout_ms);
  fl_lock_options_set_lease_ttl_s (options, ttl_s);
  return options;
}

gboolean
etcd_test_queue_has_length (const char *lock_name,
                            guint       length)
{
  g_autoptr(GPtrArray) queue = etcd_server_queue (etcd_test_server, lock_name);

  return queue->len == length;
}

typedef struct
{
  const char *name;
  guint       length;
} QueueLength;

static gboolean
queue_length_reached (gpointer data)
{
  QueueLength *q = data;

  return etcd_test_queue_has_length (q->name, q->length);
}

gboolean
etcd_test_wait_queue (const char *lock_name,
                      guint       length,
                      guint       timeout_ms)
{
  QueueLength q = { lock_name, length };

  return etcd_wait_for (queue_length_reached, &q, timeout_ms);
}

typedef struct
{
  FlDirectoryModel *model;
  const char       *target;
  gboolean          present;
} InModel;

static gboolean
in_model_is (gpointer data)
{
  InModel *m = data;

  return (fl_directory_model_lookup (m->model, m->target) != NULL) == m->present;
}

gboolean
etcd_test_wait_in_model (FlDirectoryModel *model,
                         const char       *target,
                         gboolean          present,
                         guint             timeout_ms)
{
  InModel m = { model, target, present };

  return etcd_wait_for (in_model_is, &m, timeout_ms);
}
