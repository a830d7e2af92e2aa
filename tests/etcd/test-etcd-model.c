/* test-etcd-model.c: an etcd prefix in FlDirectoryModel, beside a directory, live through
 * etcd's watch (suite 'etcd')
 *
 * One single-node etcd per run, on free loopback ports. Holders and waiters are real child
 * processes (this program with --hold). The model's periodic rescan is off in every test, so
 * a change that shows arrived through the watch, not through the repair that would find it
 * anyway.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "etcd-test-util.h"
#include "model/fl-directory-model-private.h"
#include "fl-test-util.h"


/* A model that follows events only: no periodic rescan. */
static FlDirectoryModel *
model_new (void)
{
  FlDirectoryModel *model = fl_directory_model_new (NULL);

  _fl_directory_model_set_periodic (model, FALSE);
  return model;
}

/* What a test waits for: the entry of @target holds @pid with @n_waiters behind it, or (pid
 * 0) there is no entry for @target. */
typedef struct
{
  FlDirectoryModel *model;
  const char       *target;
  int               pid;
  guint             n_waiters;
} Expect;

static gboolean
entry_is (gpointer data)
{
  Expect *e = data;
  FlEntry *entry = fl_directory_model_lookup (e->model, e->target);
  FlSnapshot *snap;

  if (e->pid == 0)
    return entry == NULL;
  if (entry == NULL)
    return FALSE;
  snap = fl_entry_get_snapshot (entry);
  return fl_snapshot_get_pid (snap) == e->pid && fl_snapshot_get_waiters (snap) != NULL &&
         fl_snapshot_get_waiters (snap)->len == e->n_waiters;
}

static void
wait_entry (FlDirectoryModel *model,
            const char       *target,
            int               pid,
            guint             n_waiters)
{
  Expect e = { model, target, pid, n_waiters };

  g_assert_true (etcd_wait_for (entry_is, &e, (guint) fl_test_scaled_ms (20000)));
}

static guint
count_etcd_entries (FlDirectoryModel *model)
{
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (G_LIST_MODEL (model), i);

      if (fl_snapshot_get_revision (fl_entry_get_snapshot (entry)) > 0)
        n++;
    }
  return n;
}

/* A lock file and an etcd lock in one model; the etcd one follows its holder, a waiter
 * queuing, the hand-over and the release, each from the watch alone. */
static void
test_live (void)
{
  g_autoptr(FlDirectoryModel) model = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) file_lock = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *file_target = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  GSubprocess *holder, *waiter;
  int holder_pid, waiter_pid;
  FlEntry *entry;
  FlSnapshot *snap;
  guint n_held = 0;

  ETCD_TEST_NEED ();
  dir = g_dir_make_tmp ("fl-etcd-model-XXXXXX", &error);
  g_assert_no_error (error);
  file_target = g_build_filename (dir, "db", NULL);
  file_lock = fl_lock_acquire (file_target, NULL, NULL, &error);
  g_assert_no_error (error);

  root = g_strdup_printf ("etcd://%s/fl-model-live", etcd_test_server->hostport);
  target = g_strdup_printf ("%s/queue", root);
  model = model_new ();
  g_assert_true (fl_directory_model_add_directory (model, dir, FALSE, &error));
  g_assert_no_error (error);
  /* With a trailing slash: the same root as without. */
  {
    g_autofree char *slashed = g_strconcat (root, "/", NULL);

    g_assert_true (fl_directory_model_add_directory (model, slashed, FALSE, &error));
    g_assert_no_error (error);
  }
  g_assert_true (fl_directory_model_add_directory (model, root, FALSE, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  {
    g_auto(GStrv) roots = fl_directory_model_dup_directories (model);

    g_assert_cmpuint (g_strv_length (roots), ==, 2);
    g_assert_cmpstr (roots[1], ==, root);
  }

  holder = etcd_test_spawn_holder (etcd_test_self_path, target);
  holder_pid = etcd_test_child_pid (holder);
  wait_entry (model, target, holder_pid, 0);
  entry = fl_directory_model_lookup (model, target);
  snap = fl_entry_get_snapshot (entry);
  g_assert_cmpint (fl_snapshot_get_state (snap), ==, FL_ENTRY_STATE_HELD);
  g_assert_cmpstr (fl_snapshot_get_host (snap), ==, g_get_host_name ());
  g_assert_cmpint (fl_snapshot_get_lease_id (snap), >, 0);
  g_assert_cmpuint (fl_snapshot_get_fencing_token (snap), >, 0);
  g_assert_cmpstr (fl_snapshot_get_target (snap), ==, target);
  /* Both the file lock and the etcd lock are counted as held. */
  g_object_get (model, "n-held", &n_held, NULL);
  g_assert_cmpuint (n_held, ==, 2);
  /* A pidfd watches the lock file's holder (this process), and the etcd holder too: its
   * identity record proves it runs on this machine (another machine's PID is never watched:
   * /etcd-inspect/identity-elsewhere), and its exit is read at once (docs/etcd.md). */
  g_assert_cmpuint (_fl_directory_model_get_n_pid_watches (model), ==, 2);

  /* A waiter queues: the same entry, updated in place. */
  waiter = etcd_test_spawn_holder (etcd_test_self_path, target);
  waiter_pid = etcd_test_child_pid (waiter);
  wait_entry (model, target, holder_pid, 1);
  g_assert_true (fl_directory_model_lookup (model, target) == entry);
  g_assert_cmpint (fl_snapshot_get_pid (fl_snapshot_get_waiters (
                     fl_entry_get_snapshot (entry))->pdata[0]), ==, waiter_pid);

  /* The holder releases: the waiter holds it. */
  etcd_test_finish_holder (holder);
  wait_entry (model, target, waiter_pid, 0);

  /* The waiter releases: the entry goes; the lock file stays. */
  etcd_test_finish_holder (waiter);
  wait_entry (model, target, 0, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  {
    g_autofree char *lock_file = g_strconcat (file_target, ".lock", NULL);

    g_assert_nonnull (fl_directory_model_lookup (model, lock_file));
  }

  g_assert_true (fl_lock_release (file_lock, &error));
  g_assert_no_error (error);
  fl_test_rm_rf (dir);
}

/* entry-changed says what happened to an etcd lock, as for a file: created, then released. */
typedef struct
{
  GPtrArray *changes;  /* of FlChange, as pointers */
} Changes;

static void
entry_changed_cb (FlDirectoryModel *model,
                  FlEntry          *entry,
                  FlChange          change,
                  gpointer          user_data)
{
  Changes *c = user_data;

  g_ptr_array_add (c->changes, GINT_TO_POINTER (change));
}

static gboolean
has_change (gpointer data)
{
  Changes *c = data;

  for (guint i = 0; i < c->changes->len; i++)
    if (GPOINTER_TO_INT (c->changes->pdata[i]) == FL_CHANGE_RELEASED)
      return TRUE;
  return FALSE;
}

static void
test_entry_changed (void)
{
  g_autoptr(FlDirectoryModel) model = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  g_autoptr(GPtrArray) changes = g_ptr_array_new ();
  Changes c = { changes };
  GSubprocess *holder;
  FlEntry *entry;

  ETCD_TEST_NEED ();
  root = g_strdup_printf ("etcd://%s/fl-model-changed", etcd_test_server->hostport);
  target = g_strdup_printf ("%s/a/b", root);  /* a '/' in the name: still one lock */
  model = model_new ();
  g_signal_connect (model, "entry-changed", G_CALLBACK (entry_changed_cb), &c);
  g_assert_true (fl_directory_model_add_directory (model, root, FALSE, &error));
  g_assert_no_error (error);

  holder = etcd_test_spawn_holder (etcd_test_self_path, target);
  wait_entry (model, target, etcd_test_child_pid (holder), 0);
  g_assert_cmpuint (changes->len, >=, 1);
  g_assert_cmpint (GPOINTER_TO_INT (changes->pdata[0]), ==, FL_CHANGE_CREATED);
  /* Asked for again as recursive, and not: the same root (read whole, it covers every name
   * under it however it is asked for), never removed and added again (which would drop the
   * entry it covers and make a new one). */
  entry = fl_directory_model_lookup (model, target);
  for (int recursive = TRUE; recursive >= FALSE; recursive--)
    {
      g_assert_true (fl_directory_model_add_directory (model, root, recursive, &error));
      g_assert_no_error (error);
      g_assert_true (fl_directory_model_lookup (model, target) == entry);
    }
  etcd_test_finish_holder (holder);
  g_assert_true (etcd_wait_for (has_change, &c, (guint) fl_test_scaled_ms (20000)));
  g_assert_cmpuint (count_etcd_entries (model), ==, 0);
}

typedef struct
{
  const char *target;
  int         pid;
} HeldBy;

/* Asks etcd itself, not the model. */
static gboolean
held_by (gpointer data)
{
  HeldBy *h = data;
  g_autoptr(FlSnapshot) seen = fl_snapshot_new_for_target (h->target, NULL, NULL);

  return seen != NULL && fl_snapshot_get_pid (seen) == h->pid;
}

/* Removing the root drops its entries and stops its watch: a lock taken after that does not
 * come back. */
static void
test_remove (void)
{
  g_autoptr(FlDirectoryModel) model = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  g_autofree char *other = NULL;
  GSubprocess *holder, *second;

  ETCD_TEST_NEED ();
  root = g_strdup_printf ("etcd://%s/fl-model-remove", etcd_test_server->hostport);
  target = g_strdup_printf ("%s/one", root);
  other = g_strdup_printf ("%s/two", root);
  model = model_new ();
  g_assert_true (fl_directory_model_add_directory (model, root, FALSE, &error));
  g_assert_no_error (error);
  holder = etcd_test_spawn_holder (etcd_test_self_path, target);
  wait_entry (model, target, etcd_test_child_pid (holder), 0);

  g_assert_true (fl_directory_model_remove_directory (model, root));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 0);

  /* Another lock under the prefix, seen in etcd; the model, no longer watching, stays empty
   * while the main context runs everything that was queued. */
  second = etcd_test_spawn_holder (etcd_test_self_path, other);
  {
    HeldBy h = { other, etcd_test_child_pid (second) };

    g_assert_true (etcd_wait_for (held_by, &h, (guint) fl_test_scaled_ms (20000)));
  }
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 0);
  etcd_test_finish_holder (second);
  etcd_test_finish_holder (holder);
}

/* A root that cannot be read is an error naming it, and is not watched. */
static void
test_bad_root (void)
{
  g_autoptr(FlDirectoryModel) model = model_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *dead = g_strdup_printf ("etcd://127.0.0.1:%u/fl-model-dead",
                                           etcd_free_port ());
  g_auto(GStrv) roots = NULL;

  g_assert_false (fl_directory_model_add_directory (model, "etcd://127.0.0.1:1", FALSE,
                                                    &error));
  g_assert_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET);
  g_assert_nonnull (strstr (error->message, "etcd://127.0.0.1:1"));
  g_clear_error (&error);

  g_assert_false (fl_directory_model_add_directory (model, dead, FALSE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "127.0.0.1"));
  roots = fl_directory_model_dup_directories (model);
  g_assert_cmpuint (g_strv_length (roots), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--hold") == 0)
    return etcd_test_hold (argv[2]);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/etcd-model/live", test_live);
  g_test_add_func ("/etcd-model/entry-changed", test_entry_changed);
  g_test_add_func ("/etcd-model/remove", test_remove);
  g_test_add_func ("/etcd-model/bad-root", test_bad_root);

  return etcd_test_run_with_server (argv[0]);
}
