/* test-flctl-etcd.c: flctl status, list, reclaim and run on etcd locks (suite 'etcd')
 *
 * The real flctl binary against one real single-node etcd on free loopback ports (Debian's
 * etcd-etcd_test_server). Without the etcd binary every test skips and says why. Holders are `flctl
 * hold` processes, waiters `flctl run -w`; each test has its own names.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <libfl/fl.h>

#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "../etcd/etcd-test-util.h"
#include "flctl-test-util.h"

typedef struct
{
  const char *uri;
  int         pid;
} WaiterIs;

/* `flctl run -w` tries first, then waits: a key in the queue may be the try's, gone again. */
static gboolean
first_waiter_is (gpointer data)
{
  WaiterIs *w = data;
  g_autoptr(FlSnapshot) snapshot = fl_snapshot_new_for_target (w->uri, NULL, NULL);
  GPtrArray *waiters = snapshot != NULL ? fl_snapshot_get_waiters (snapshot) : NULL;

  return waiters != NULL && waiters->len == 1 &&
         fl_snapshot_get_pid (waiters->pdata[0]) == w->pid;
}

/* `flctl hold --name NAME URI`, once it holds. */
static GSubprocess *
hold (const char *uri,
      const char *name)
{
  GSubprocess *holder = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE, "hold", "--name", name,
                                          uri, NULL);
  g_autofree char *line = flctl_test_read_line (g_subprocess_get_stdout_pipe (holder),
                                                FLCTL_TEST_TIMEOUT_MS);

  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "held "));
  return holder;
}

/* A holder whose lease was revoked exits with an error on release: only its end matters. */
static void
stop (GSubprocess *process)
{
  g_subprocess_send_signal (process, SIGTERM);
  flctl_test_wait (process, FLCTL_TEST_TIMEOUT_MS);
  g_object_unref (process);
}

static JsonObject *
status_json (const char *uri)
{
  g_autoptr(FlctlResult) r = flctl_test_run (0, NULL, "status", "--records", uri, NULL);
  g_autoptr(JsonArray) array = NULL;

  g_assert_cmpint (r->status, ==, 0);
  array = flctl_test_parse_array (r->out);
  g_assert_cmpuint (json_array_get_length (array), ==, 1);
  return json_object_ref (json_array_get_object_element (array, 0));
}

static gint64
lease_of_first (const char *lock_name)
{
  g_autoptr(GPtrArray) queue = etcd_server_queue (etcd_test_server, lock_name);

  g_assert_cmpuint (queue->len, >, 0);
  return g_ascii_strtoll (json_object_get_string_member (queue->pdata[0], "lease"), NULL, 10);
}

/* status shows the holder (host, PID, process, lease, TTL, token) and the waiter, in text
 * and JSON. */
static void
test_status (void)
{
  g_autofree char *uri = NULL;
  g_autofree char *pid_text = NULL;
  g_autofree char *waiter_text = NULL;
  g_autofree char *lease_hex = NULL;
  g_autoptr(FlctlResult) text = NULL;
  g_autoptr(JsonObject) record = NULL;
  GSubprocess *holder, *waiter;
  JsonArray *waiters;
  JsonObject *w;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "status");
  holder = hold (uri, "etcd-holder");
  waiter = flctl_test_spawn (G_SUBPROCESS_FLAGS_NONE, "run", "-w", "60", uri, "--", "true",
                             NULL);
  {
    WaiterIs queued = { uri, flctl_test_pid (waiter) };

    g_assert_true (etcd_wait_for (first_waiter_is, &queued, FLCTL_TEST_TIMEOUT_MS));
  }
  pid_text = g_strdup_printf ("PID %d (etcd-holder) on %s", flctl_test_pid (holder),
                              g_get_host_name ());
  waiter_text = g_strdup_printf ("1. PID %d ", flctl_test_pid (waiter));
  lease_hex = g_strdup_printf ("%" G_GINT64_MODIFIER "x", lease_of_first ("fl-test/status"));

  text = flctl_test_run (0, NULL, "status", uri, NULL);
  g_test_message ("%s", text->out);
  g_assert_cmpint (text->status, ==, 0);
  g_assert_true (g_str_has_prefix (text->out, "fl-test/status\n"));
  g_assert_nonnull (strstr (text->out, "state:         held"));
  g_assert_nonnull (strstr (text->out, pid_text));
  g_assert_nonnull (strstr (text->out, lease_hex));
  g_assert_nonnull (strstr (text->out, " s left)"));
  g_assert_nonnull (strstr (text->out, "token:"));
  g_assert_nonnull (strstr (text->out, "waiters:       1"));
  g_assert_nonnull (strstr (text->out, waiter_text));

  record = status_json (uri);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, "held");
  g_assert_cmpstr (json_object_get_string_member (record, "target"), ==, uri);
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, flctl_test_pid (holder));
  g_assert_cmpstr (json_object_get_string_member (record, "process"), ==, "etcd-holder");
  g_assert_cmpstr (json_object_get_string_member (record, "host"), ==, g_get_host_name ());
  g_assert_cmpstr (json_object_get_string_member (record, "lease"), ==, lease_hex);
  g_assert_cmpint (json_object_get_int_member (record, "lease_ttl_s"), >, 0);
  g_assert_cmpint (json_object_get_int_member (record, "token"), >, 0);
  g_assert_cmpint (json_object_get_int_member (record, "revision"), >=,
                   json_object_get_int_member (record, "token"));
  g_assert_false (json_object_get_boolean_member (record, "stale"));
  waiters = json_object_get_array_member (record, "waiters");
  g_assert_cmpuint (json_array_get_length (waiters), ==, 1);
  w = json_array_get_object_element (waiters, 0);
  g_assert_cmpint (json_object_get_int_member (w, "pid"), ==, flctl_test_pid (waiter));
  g_assert_true (json_object_get_boolean_member (w, "waiting"));
  g_assert_cmpstr (json_object_get_string_member (w, "state"), ==, "active");
  g_assert_cmpint (json_object_get_int_member (w, "token"), >,
                   json_object_get_int_member (record, "token"));

  /* The holder leaves: the waiter runs its command and exits 0. */
  stop (holder);
  g_assert_cmpint (flctl_test_wait (waiter, FLCTL_TEST_TIMEOUT_MS), ==, 0);
  g_object_unref (waiter);
  g_assert_true (etcd_test_wait_queue ("fl-test/status", 0, FLCTL_TEST_TIMEOUT_MS));
}

static void
test_status_unlocked (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(FlctlResult) text = NULL;
  g_autoptr(JsonObject) record = NULL;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "free");
  text = flctl_test_run (0, NULL, "status", uri, NULL);
  g_assert_cmpint (text->status, ==, 0);
  g_assert_nonnull (strstr (text->out, "unlocked"));
  g_assert_nonnull (strstr (text->out, "no key is queued for it in etcd"));
  record = status_json (uri);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, "unlocked");
  g_assert_true (json_object_get_null_member (record, "lease"));
}

/* list of a prefix: one row per name, `a` and `a/b` apart. */
static void
test_list (void)
{
  g_autofree char *prefix = g_strdup_printf ("list%d", (int) getpid ());
  g_autofree char *uri_a = g_strdup_printf ("etcd://%s/%s/a", etcd_test_server != NULL ? etcd_test_server->hostport
                                                                             : "", prefix);
  g_autofree char *uri_ab = g_strconcat (uri_a, "/b", NULL);
  g_autofree char *root = NULL;
  g_autofree char *row_a = g_strdup_printf (" %s/a\n", prefix);
  g_autofree char *row_ab = g_strdup_printf (" %s/a%%2Fb\n", prefix);
  g_autoptr(FlctlResult) table = NULL;
  g_autoptr(FlctlResult) json = NULL;
  GSubprocess *a, *ab;
  g_autoptr(JsonArray) array = NULL;

  ETCD_TEST_NEED ();
  root = g_strdup_printf ("etcd://%s/%s", etcd_test_server->hostport, prefix);
  a = hold (uri_a, "holds-a");
  ab = hold (uri_ab, "holds-ab");

  table = flctl_test_run (0, NULL, "list", root, NULL);
  g_test_message ("%s", table->out);
  g_assert_cmpint (table->status, ==, 0);
  g_assert_nonnull (strstr (table->out, row_a));
  g_assert_nonnull (strstr (table->out, row_ab));
  g_assert_nonnull (strstr (table->out, "holds-ab"));
  g_assert_null (strstr (table->out, ".fl-meta"));
  g_assert_nonnull (strstr (table->out, "HOST"));
  g_assert_nonnull (strstr (table->out, "WAITERS"));
  {
    g_autofree char *path_ab = g_strdup_printf ("%s/a%%2Fb", prefix);
    g_autofree char *lease_ab = g_strdup_printf ("%" G_GINT64_MODIFIER "x",
                                                 lease_of_first (path_ab));
    /* A cell of its own: libsmartcols puts one space between cells. */
    g_autofree char *host = g_strdup_printf (" %s ", g_get_host_name ());

    g_assert_nonnull (strstr (table->out, lease_ab));
    g_assert_nonnull (strstr (table->out, host));
  }

  json = flctl_test_run (0, NULL, "list", "--records", root, NULL);
  g_assert_cmpint (json->status, ==, 0);
  array = flctl_test_parse_array (json->out);
  g_assert_cmpuint (json_array_get_length (array), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (array, 0),
                                                  "target"), ==, uri_a);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (array, 1),
                                                  "target"), ==, uri_ab);

  stop (a);
  stop (ab);
}

/* reclaim: refused without --force, without --lease and with another lease; with the lease
 * seen it revokes exactly that one. */
static void
test_reclaim (void)
{
  g_autofree char *uri = NULL;
  g_autofree char *lease_hex = NULL;
  g_autoptr(FlctlResult) plain = NULL;
  g_autoptr(FlctlResult) no_lease = NULL;
  g_autoptr(FlctlResult) wrong = NULL;
  g_autoptr(FlctlResult) dry = NULL;
  g_autoptr(FlctlResult) done = NULL;
  g_autoptr(FlctlResult) again = NULL;
  GSubprocess *holder;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "reclaim");
  holder = hold (uri, "etcd-holder");
  lease_hex = g_strdup_printf ("%" G_GINT64_MODIFIER "x", lease_of_first ("fl-test/reclaim"));

  plain = flctl_test_run (0, NULL, "reclaim", "-y", uri, NULL);
  g_assert_cmpint (plain->status, ==, 1);
  g_assert_nonnull (strstr (plain->err, "--force --lease"));
  no_lease = flctl_test_run (0, NULL, "reclaim", "-y", "--force", uri, NULL);
  g_assert_cmpint (no_lease->status, ==, 1);
  g_assert_nonnull (strstr (no_lease->err, lease_hex));
  wrong = flctl_test_run (0, NULL, "reclaim", "-y", "--force", "--lease", "12ab", uri, NULL);
  g_assert_cmpint (wrong->status, ==, 1);
  g_assert_nonnull (strstr (wrong->err, "not the lease"));
  dry = flctl_test_run (0, NULL, "reclaim", "--dry-run", "--force", "--lease", lease_hex, uri,
                        NULL);
  g_assert_cmpint (dry->status, ==, 0);
  g_assert_nonnull (strstr (dry->out, "Would reclaim"));
  g_assert_true (etcd_test_wait_queue ("fl-test/reclaim", 1, FLCTL_TEST_TIMEOUT_MS));

  done = flctl_test_run (0, NULL, "reclaim", "-y", "--force", "--lease", lease_hex, uri, NULL);
  g_test_message ("%s%s", done->out, done->err);
  g_assert_cmpint (done->status, ==, 0);
  g_assert_nonnull (strstr (done->out, "Reclaimed"));
  g_assert_true (etcd_test_wait_queue ("fl-test/reclaim", 0, FLCTL_TEST_TIMEOUT_MS));

  again = flctl_test_run (0, NULL, "reclaim", "-y", "--force", "--lease", lease_hex, uri, NULL);
  g_assert_cmpint (again->status, ==, 1);
  g_assert_nonnull (strstr (again->err, "not locked"));
  stop (holder);
}

/* A lease seen before the lock changed hands is refused; the new holder keeps it. */
static void
test_reclaim_changed (void)
{
  g_autofree char *uri = NULL;
  g_autofree char *old_hex = NULL;
  g_autoptr(FlctlResult) r = NULL;
  GSubprocess *first, *second;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "changed");
  first = hold (uri, "first");
  old_hex = g_strdup_printf ("%" G_GINT64_MODIFIER "x", lease_of_first ("fl-test/changed"));
  stop (first);
  g_assert_true (etcd_test_wait_queue ("fl-test/changed", 0, FLCTL_TEST_TIMEOUT_MS));
  second = hold (uri, "second");

  r = flctl_test_run (0, NULL, "reclaim", "-y", "--force", "--lease", old_hex, uri, NULL);
  g_assert_cmpint (r->status, ==, 1);
  g_assert_nonnull (strstr (r->err, "not the lease"));
  g_assert_true (etcd_test_wait_queue ("fl-test/changed", 1, FLCTL_TEST_TIMEOUT_MS));
  stop (second);
}

/* run holds the etcd lock while COMMAND runs: a status from inside sees it held by run; a
 * second run without waiting is refused with 75. */
static void
test_run (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(FlctlResult) inner = NULL;
  g_autoptr(FlctlResult) busy = NULL;
  GSubprocess *holder;
  g_autoptr(JsonArray) array = NULL;
  JsonObject *record;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "run");
  inner = flctl_test_run (0, NULL, "run", uri, "--", flctl_test_exe (), "status", "--records", uri,
                          NULL);
  g_assert_cmpint (inner->status, ==, 0);
  array = flctl_test_parse_array (inner->out);
  record = json_array_get_object_element (array, 0);
  g_assert_cmpstr (json_object_get_string_member (record, "state"), ==, "held");
  g_assert_cmpstr (json_object_get_string_member (record, "process"), ==, "flctl");
  g_assert_true (etcd_test_wait_queue ("fl-test/run", 0, FLCTL_TEST_TIMEOUT_MS));

  holder = hold (uri, "etcd-holder");
  busy = flctl_test_run (0, NULL, "run", "-n", uri, "--", "true", NULL);
  g_assert_cmpint (busy->status, ==, 75);
  stop (holder);
}

/* --revoke URI: an operator's forced reclaim of whatever holds URI now. */
static int
revoke_holder (const char *uri)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snapshot = fl_snapshot_new_for_target (uri, NULL, &error);

  if (snapshot == NULL || !fl_snapshot_reclaim_unproven (snapshot, NULL, &error))
    g_error ("revoke: %s", error->message);
  return 0;
}

/* A lease revoked while COMMAND runs: flctl says the lock was lost and exits with 74. */
static void
test_run_lost (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(FlctlResult) r = NULL;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "run-lost");
  r = flctl_test_run (0, NULL, "run", uri, "--", etcd_test_self_path, "--revoke", uri, NULL);
  g_test_message ("%s", r->err);
  g_assert_cmpint (r->status, ==, 74);
  g_assert_nonnull (strstr (r->err, "lost"));
  g_assert_true (etcd_test_wait_queue ("fl-test/run-lost", 0, FLCTL_TEST_TIMEOUT_MS));
}

/* A lease revoked while COMMAND goes on: flctl tells at once and sends COMMAND --lost-signal
 * (TERM by default), which COMMAND sees while it still runs; COMMAND had the lock's fencing
 * token in FL_FENCING_TOKEN, the token flctl status showed for it. flctl exits 74 whatever
 * COMMAND's status. Without the signal (issue 30) a second holder ran beside COMMAND. */
static void
test_run_lost_signals (void)
{
  g_autofree char *uri = NULL;
  g_autofree char *dir = g_dir_make_tmp ("flctl-etcd-lost-XXXXXX", NULL);
  g_autofree char *script = NULL;
  g_autofree char *token_file = g_build_filename (dir, "token", NULL);
  g_autofree char *status_file = g_build_filename (dir, "status", NULL);
  g_autofree char *signal_file = g_build_filename (dir, "signal", NULL);
  g_autofree char *token = NULL;
  g_autofree char *seen = NULL;
  g_autofree char *got = NULL;
  g_autoptr(FlctlResult) r = NULL;
  g_autoptr(FlctlResult) quiet = NULL;
  g_autoptr(JsonArray) array = NULL;

  ETCD_TEST_NEED ();
  uri = etcd_server_uri (etcd_test_server, "run-lost-signals");
  /* COMMAND: notes its token and the token status shows, revokes its own lease, then waits
   * for a signal, notes it and ends its sleep. */
  script = g_strdup (
      "trap 'kill $!; echo TERM > \"$4\"; exit 3' TERM; "
      "echo \"$FL_FENCING_TOKEN\" > \"$1\"; "
      "\"$5\" status --records \"$2\" > \"$3\"; "
      "\"$6\" --revoke \"$2\"; "
      "sleep 3600 & wait $!");
  r = flctl_test_run (0, NULL, "run", uri, "--", "sh", "-c", script, "sh", token_file, uri,
                      status_file, signal_file, flctl_test_exe (), etcd_test_self_path, NULL);
  g_test_message ("%s", r->err);
  g_assert_cmpint (r->status, ==, 74);
  g_assert_nonnull (strstr (r->err, "lost the lock"));
  g_assert_nonnull (strstr (r->err, "sending it signal 15"));

  got = flctl_test_read_file (signal_file);
  g_assert_cmpstr (g_strstrip (got), ==, "TERM");
  token = flctl_test_read_file (token_file);
  g_strstrip (token);
  g_assert_cmpuint (g_ascii_strtoull (token, NULL, 10), >, 0);
  seen = flctl_test_read_file (status_file);
  array = flctl_test_parse_array (seen);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (array, 0),
                                               "token"),
                   ==, g_ascii_strtoll (token, NULL, 10));
  g_assert_true (etcd_test_wait_queue ("fl-test/run-lost-signals", 0, FLCTL_TEST_TIMEOUT_MS));

  /* --lost-signal none: told, not signalled; COMMAND's own status 0 still gives 74. */
  quiet = flctl_test_run (0, NULL, "run", "--lost-signal", "none", uri, "--", "sh", "-c",
                          "\"$1\" --revoke \"$2\"", "sh", etcd_test_self_path, uri, NULL);
  g_test_message ("%s", quiet->err);
  g_assert_cmpint (quiet->status, ==, 74);
  g_assert_nonnull (strstr (quiet->err, "lost"));
  g_assert_null (strstr (quiet->err, "sending it signal"));

  g_unlink (token_file);
  g_unlink (status_file);
  g_unlink (signal_file);
  g_rmdir (dir);
}

/* The next JSON record on @stream whose event is @event and path is @path, or NULL past the
 * deadline. */
static JsonObject *
next_watch_event (GInputStream *stream,
                  const char   *event,
                  const char   *path)
{
  gint64 deadline = g_get_monotonic_time () + FLCTL_TEST_TIMEOUT_MS * 1000;

  for (;;)
    {
      gint64 left_ms = (deadline - g_get_monotonic_time ()) / 1000;
      g_autofree char *line = left_ms > 0 ? flctl_test_read_line (stream, left_ms) : NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *record;

      if (line == NULL)
        return NULL;
      g_test_message ("watch: %s", line);
      if (!json_parser_load_from_data (parser, line, -1, NULL) ||
          !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        continue;
      record = json_node_get_object (json_parser_get_root (parser));
      if (g_strcmp0 (json_object_get_string_member_with_default (record, "event", ""), event) == 0
          && g_strcmp0 (json_object_get_string_member_with_default (record, "path", ""), path) == 0)
        return json_object_ref (record);
    }
}

/* watch on an etcd prefix reports a lock taken and released there, through etcd's watch. */
static void
test_watch (void)
{
  g_autofree char *root = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *ready = NULL;
  g_autoptr(GSubprocess) watcher = NULL;
  g_autoptr(JsonObject) created = NULL;
  g_autoptr(JsonObject) released = NULL;
  GSubprocess *holder;
  int holder_pid;

  ETCD_TEST_NEED ();
  root = g_strdup_printf ("etcd://%s/fl-watch", etcd_test_server->hostport);
  uri = g_strdup_printf ("%s/w", root);
  watcher = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                              "watch", "--json", root, NULL);
  ready = flctl_test_read_until (g_subprocess_get_stderr_pipe (watcher), "watching",
                                 FLCTL_TEST_TIMEOUT_MS);
  g_assert_nonnull (ready);

  holder = hold (uri, "watched");
  holder_pid = flctl_test_pid (holder);
  created = next_watch_event (g_subprocess_get_stdout_pipe (watcher), "created", "fl-watch/w");
  g_assert_nonnull (created);
  g_assert_cmpint (json_object_get_int_member (created, "pid"), ==, holder_pid);
  g_assert_cmpstr (json_object_get_string_member (created, "state"), ==, "held");

  stop (holder);
  released = next_watch_event (g_subprocess_get_stdout_pipe (watcher), "released",
                               "fl-watch/w");
  g_assert_nonnull (released);

  g_subprocess_send_signal (watcher, SIGINT);
  g_assert_cmpint (flctl_test_wait (watcher, FLCTL_TEST_TIMEOUT_MS), ==, 0);
}

int
main (int    argc,
      char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--revoke") == 0)
    return revoke_holder (argv[2]);
  flctl_test_init (&argc, &argv);

  g_test_add_func ("/flctl-etcd/status", test_status);
  g_test_add_func ("/flctl-etcd/status-unlocked", test_status_unlocked);
  g_test_add_func ("/flctl-etcd/list", test_list);
  g_test_add_func ("/flctl-etcd/reclaim", test_reclaim);
  g_test_add_func ("/flctl-etcd/reclaim-changed", test_reclaim_changed);
  g_test_add_func ("/flctl-etcd/run", test_run);
  g_test_add_func ("/flctl-etcd/run-lost", test_run_lost);
  g_test_add_func ("/flctl-etcd/run-lost-signals", test_run_lost_signals);
  g_test_add_func ("/flctl-etcd/watch", test_watch);

  return etcd_test_run_with_server (argv[0]);
}
