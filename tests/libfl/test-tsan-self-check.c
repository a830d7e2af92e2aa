/* test-tsan-self-check.c: the ThreadSanitizer stage can fail
 *
 * Built only under -Db_sanitize=thread (suite 'tsan'). The stage ignores what happens inside
 * GLib (build-aux/tsan.supp), and libfl states the GTask hand-offs it relies on
 * (libfl/fl-tsan-private.h). These tests show that the suppressions hide no race in code of
 * ours: data handed to a GTask worker without that statement is reported, and with it is not.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <gio/gio.h>

#include "support/fl-tsan-private.h"

typedef struct
{
  int      value;
  gboolean annotated;
  gboolean done;
} Shared;

static void
worker_cb (GTask        *task,
           gpointer      source_object,
           gpointer      task_data,
           GCancellable *cancellable)
{
  Shared *shared = task_data;

  if (shared->annotated)
    _fl_tsan_acquire (shared);
  shared->value++;
  if (shared->annotated)
    _fl_tsan_release (shared);
  g_task_return_boolean (task, TRUE);
}

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Shared *shared = user_data;

  shared->done = TRUE;
}

/* The main thread writes, a pool thread increments, the main thread reads back. */
static void
hand_over (gboolean annotated)
{
  Shared *shared = g_new0 (Shared, 1);
  g_autoptr(GTask) task = NULL;
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  shared->annotated = annotated;
  shared->value = 41;
  task = g_task_new (NULL, NULL, done_cb, shared);
  g_task_set_task_data (task, shared, NULL);
  if (annotated)
    _fl_tsan_release (shared);
  g_task_run_in_thread (task, worker_cb);
  g_clear_object (&task);

  while (!shared->done && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (shared->done);
  if (annotated)
    _fl_tsan_acquire (shared);
  g_assert_cmpint (shared->value, ==, 42);
  g_free (shared);
}

static void
test_unannotated_is_reported (void)
{
  if (g_test_subprocess ())
    {
      hand_over (FALSE);
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*WARNING: ThreadSanitizer: data race*worker_cb*");
}

static void
test_annotated_is_clean (void)
{
  if (g_test_subprocess ())
    {
      hand_over (TRUE);
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr_unmatched ("*ThreadSanitizer*");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/tsan/unannotated-hand-off-is-reported", test_unannotated_is_reported);
  g_test_add_func ("/tsan/annotated-hand-off-is-clean", test_annotated_is_clean);

  return g_test_run ();
}
