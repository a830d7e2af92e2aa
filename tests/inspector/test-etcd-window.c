/* test-etcd-window.c: an etcd prefix watched in the Lock Inspector beside a folder (suites
 * 'ui' and 'etcd', under Xvfb)
 *
 * A real single-node etcd on free loopback ports, holders that are `flctl hold` processes.
 * The window links the shared libfl, so etcd is started here with GLib alone, and is known to
 * be up when libfl can list the prefix. Without the etcd binary the test skips and says why
 * (CI fails on a skipped etcd test).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>

#include "inspector-state.h"
#include "ui-test-util.h"

static GSubprocess *etcd;
static char *etcd_dir;
static char *etcd_hostport;

static guint16
free_port (void)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) effective = NULL;
  g_autoptr(GError) error = NULL;

  g_socket_listener_add_address (listener, address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &effective, &error);
  g_assert_no_error (error);
  return g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (effective));
}

static gboolean
etcd_answers (gpointer data)
{
  g_autoptr(GPtrArray) listed = fl_scan_directory (data, 0, NULL, NULL, NULL);

  return listed != NULL;
}

/* NULL when there is no etcd binary: the reason to skip. */
static char *
start_etcd (void)
{
  g_autofree char *binary = g_find_program_in_path ("etcd");
  g_autoptr(GError) error = NULL;
  g_autofree char *client = NULL;
  g_autofree char *peer = NULL;
  g_autofree char *metrics = NULL;
  g_autofree char *cluster = NULL;
  g_autofree char *data = NULL;
  g_autofree char *probe = NULL;
  guint16 client_port = free_port ();
  guint16 peer_port = free_port ();
  guint16 metrics_port = free_port ();

  if (binary == NULL)
    return g_strdup ("no etcd binary: install Debian's etcd-server");
  etcd_dir = g_dir_make_tmp ("fl-ui-etcd-XXXXXX", &error);
  g_assert_no_error (error);
  data = g_build_filename (etcd_dir, "data", NULL);
  client = g_strdup_printf ("http://127.0.0.1:%u", client_port);
  peer = g_strdup_printf ("http://127.0.0.1:%u", peer_port);
  metrics = g_strdup_printf ("http://127.0.0.1:%u", metrics_port);
  cluster = g_strdup_printf ("ui=%s", peer);
  etcd = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE,
                           &error, binary, "--name", "ui", "--data-dir", data,
                           "--listen-client-urls", client, "--advertise-client-urls", client,
                           "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                           "--initial-cluster", cluster, "--initial-cluster-state", "new",
                           "--listen-metrics-urls", metrics, NULL);
  g_assert_no_error (error);
  etcd_hostport = g_strdup_printf ("127.0.0.1:%u", client_port);
  probe = g_strdup_printf ("etcd://%s/fl-ui-probe", etcd_hostport);
  g_assert_true (fl_test_wait_until (etcd_answers, probe, 20000));
  return NULL;
}

static void
stop_etcd (void)
{
  if (etcd == NULL)
    return;
  g_subprocess_send_signal (etcd, SIGTERM);
  g_subprocess_wait (etcd, NULL, NULL);
  g_clear_object (&etcd);
  fl_test_rm_rf (etcd_dir);
  g_clear_pointer (&etcd_dir, g_free);
  g_clear_pointer (&etcd_hostport, g_free);
}

/* `flctl hold --name NAME URI`, once it says it holds. */
static GSubprocess *
hold (const char *uri,
      const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;
  GSubprocess *holder;

  holder = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, FLCTL_BUILD_PATH, "hold",
                             "--name", name, uri, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (holder));
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (out), FALSE);
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (line, "held "));
  return holder;
}

/* Starts etcd and `flctl hold --name HOLDER_NAME etcd://.../PREFIX/NAME`; sets the root and the
 * target. NULL, the test skipped, when there is no etcd. */
static GSubprocess *
start_holding (const char  *prefix,
               const char  *name,
               const char  *holder_name,
               char       **root,
               char       **target)
{
  g_autofree char *reason = start_etcd ();

  if (reason != NULL)
    {
      g_test_skip (reason);
      return NULL;
    }
  *root = g_strdup_printf ("etcd://%s/%s", etcd_hostport, prefix);
  *target = g_strdup_printf ("%s/%s", *root, name);
  return hold (*target, holder_name);
}

static int
pid_of (GSubprocess *process)
{
  return (int) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
}

typedef struct
{
  InspectorWindow *window;
  const char      *target;
  int              pid;   /* 0: no row for @target */
} Row;

static gboolean
row_is (gpointer data)
{
  Row *r = data;
  GListModel *rows = _inspector_window_get_rows (r->window);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (rows, i);
      FlSnapshot *snap = fl_entry_get_snapshot (entry);

      if (g_strcmp0 (fl_snapshot_get_target (snap), r->target) == 0)
        return r->pid != 0 && fl_snapshot_get_pid (snap) == r->pid;
    }
  return r->pid == 0;
}

/* Typed into the Watched Folders popover's etcd entry, as a person adds a prefix; returns once
 * the target's row is listed with @pid as its holder. */
static void
watch_prefix (InspectorWindow *window,
              const char      *root,
              const char      *target,
              int              pid)
{
  Row row = { window, target, pid };

  gtk_editable_set_text (GTK_EDITABLE (window->etcd_entry), root);
  g_signal_emit_by_name (window->etcd_entry, "activate");
  g_assert_true (fl_test_wait_until (row_is, &row, 20000));
}

static gboolean
banner_shown (gpointer data)
{
  return gtk_revealer_get_reveal_child (((InspectorWindow *) data)->banner);
}

/* Typed into the Watched Folders popover: the etcd locks join the demo's rows, live, with a
 * Host and a Lease column that are hidden while only folders are watched. */
static void
test_etcd_beside_folder (void)
{
  InspectorWindow *window = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  g_autofree char *lease = NULL;
  g_autofree char *hex = NULL;
  GSubprocess *holder;
  guint n_demo;
  Row row;

  holder = start_holding ("fl-ui", "orders.db", "order-writer", &root, &target);
  if (holder == NULL)
    return;

  window = ui_window_with_demo ();
  n_demo = g_list_model_get_n_items (_inspector_window_get_rows (window));
  g_assert_false (gtk_column_view_column_get_visible (window->host_column));
  g_assert_false (gtk_column_view_column_get_visible (window->lease_column));

  /* Not an etcd URI: said in the banner, nothing added. */
  gtk_editable_set_text (GTK_EDITABLE (window->etcd_entry), "/not/an/etcd/prefix");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.add-etcd-prefix", NULL);
  g_assert_true (fl_test_wait_until (banner_shown, window, 5000));
  g_assert_nonnull (strstr (gtk_label_get_text (window->banner_label), "etcd://"));
  gtk_revealer_set_reveal_child (window->banner, FALSE);

  watch_prefix (window, root, target, pid_of (holder));
  row = (Row) { window, target, pid_of (holder) };
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (window->etcd_entry)), ==, "");
  g_assert_true (gtk_column_view_column_get_visible (window->host_column));
  g_assert_true (gtk_column_view_column_get_visible (window->lease_column));
  g_assert_cmpuint (g_list_model_get_n_items (_inspector_window_get_rows (window)), ==,
                    n_demo + 1);
  {
    g_autoptr(FlEntry) entry = NULL;
    GListModel *rows = _inspector_window_get_rows (window);

    for (guint i = 0; i < g_list_model_get_n_items (rows) && entry == NULL; i++)
      {
        g_autoptr(FlEntry) e = g_list_model_get_item (rows, i);

        if (g_strcmp0 (fl_snapshot_get_target (fl_entry_get_snapshot (e)), target) == 0)
          entry = g_steal_pointer (&e);
      }
    g_assert_nonnull (entry);
    g_assert_cmpint (fl_snapshot_get_state (fl_entry_get_snapshot (entry)), ==,
                     FL_ENTRY_STATE_HELD);
    lease = inspector_format_lease (fl_entry_get_snapshot (entry));
    hex = g_strdup_printf ("%" G_GINT64_MODIFIER "x",
                           fl_snapshot_get_lease_id (fl_entry_get_snapshot (entry)));
    g_assert_true (g_str_has_prefix (lease, hex));
    g_assert_nonnull (strstr (lease, "left"));

    /* The details: a key with a lease, never a file (issue 34, item 7). */
    g_assert_true (_inspector_window_select_path (window, fl_entry_get_path (entry)));
    g_assert_cmpstr (ui_detail (window, "Lease"), ==, hex);
    g_assert_nonnull (strstr (ui_detail (window, "TTL left"), " left"));
    g_assert_cmpstr (ui_detail (window, "Host"), ==, g_get_host_name ());
    g_assert_cmpuint (g_ascii_strtoull (ui_detail (window, "Fencing token"), NULL, 10), >, 0);
    g_assert_cmpstr (ui_detail (window, "Waiters"), ==, "none");
    g_assert_null (ui_detail (window, "Kernel lock"));
    g_assert_null (ui_detail (window, "Content"));
    g_assert_nonnull (strstr (inspector_details_get_evidence (window->details),
                              "which etcd judges alive"));
  }

  /* Remembered with the folders, as typed. */
  {
    g_autoptr(GSettings) settings = g_settings_new ("org.libfl.Inspector");
    g_autoptr(GVariant) dirs = g_settings_get_value (settings, "directories");
    g_autofree char *printed = g_variant_print (dirs, FALSE);

    g_assert_nonnull (strstr (printed, root));
  }

  /* The holder releases: the row goes, through etcd's watch. */
  g_subprocess_send_signal (holder, SIGTERM);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
  g_object_unref (holder);
  row.pid = 0;
  g_assert_true (fl_test_wait_until (row_is, &row, 20000));

  /* Stop watching it: the columns hide again. */
  _inspector_window_remove_directory (window, root);
  g_assert_false (gtk_column_view_column_get_visible (window->host_column));
  ui_window_close (window);
  stop_etcd ();
}

typedef struct
{
  InspectorWindow *window;
  const char      *prefix;   /* what the evidence must begin with, after its bullet */
} Evidence;

static gboolean
evidence_says (gpointer data)
{
  Evidence *e = data;
  const char *text = inspector_details_get_evidence (e->window->details);

  return strstr (text, e->prefix) != NULL;
}

typedef struct
{
  InspectorWindow *window;
  gint64           seconds;  /* the TTL left shown first */
} Countdown;

static gboolean
ttl_below (gpointer data)
{
  Countdown *c = data;
  const char *left = ui_detail (c->window, "TTL left");

  return left != NULL && g_ascii_strtoll (left, NULL, 10) < c->seconds;
}

/* flctl status's reason for @target (its --records JSON), the same words libfl gives. */
static char *
flctl_reason (const char *target)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GSubprocess) flctl = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                                   FLCTL_BUILD_PATH, "status", "--records",
                                                   target, NULL);
  const char *at, *end;

  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (flctl, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  at = strstr (out, "\"reason\"");
  g_assert_nonnull (at);
  at = strchr (at + strlen ("\"reason\""), '"') + 1;
  end = strchr (at, '"');
  return g_strndup (at, end - at);
}

/* A holder SIGKILLed: its lease runs on. libfl says the holder exited and when the lease
 * expires; the details show that reason (flctl status gives the same), the Holder rows say
 * the process exited and the lease keeps the lock, and the TTL counts down until the row
 * goes with the key (issue 34, item 7). */
static void
test_etcd_holder_killed (void)
{
  InspectorWindow *window = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  g_autofree char *expect = NULL;
  g_autofree char *said = NULL;
  g_autofree char *flctl_said = NULL;
  GSubprocess *holder;
  Evidence evidence;
  Countdown countdown;
  Row row;
  int pid;

  holder = start_holding ("fl-ui", "killed.db", "doomed-writer", &root, &target);
  if (holder == NULL)
    return;
  pid = pid_of (holder);

  window = ui_window_with_demo ();
  watch_prefix (window, root, target, pid);
  row = (Row) { window, target, pid };
  g_assert_true (_inspector_window_select_path (window, "fl-ui/killed.db"));
  evidence = (Evidence) { window, "which etcd judges alive" };
  g_assert_true (evidence_says (&evidence));
  g_assert_cmpstr (ui_detail (window, "Process"), !=, "exited");

  g_subprocess_send_signal (holder, SIGKILL);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
  g_object_unref (holder);

  expect = g_strdup_printf ("Holder exited: PID %d on %s is gone; its lease ", pid,
                            g_get_host_name ());
  evidence = (Evidence) { window, expect };
  g_assert_true (fl_test_wait_until (evidence_says, &evidence, 5000));
  g_assert_cmpstr (inspector_details_get_state (window->details), ==, "Held: holder exited");
  g_assert_cmpstr (ui_detail (window, "Process"), ==, "exited");
  g_assert_cmpstr (ui_detail (window, "Lock kept by"), ==, "its lease, until it expires");
  g_assert_nonnull (strstr (inspector_details_get_evidence (window->details), " expires in "));

  /* flctl status says the same (up to the seconds, which move). */
  flctl_said = flctl_reason (target);
  said = g_strdup (strstr (inspector_details_get_evidence (window->details), "Holder exited"));
  g_assert_nonnull (strstr (said, " expires in "));
  *strstr (said, " expires in ") = '\0';
  g_assert_true (g_str_has_prefix (flctl_said, "holder exited"));
  g_assert_true (g_str_has_prefix (flctl_said + 1, said + 1));

  /* The countdown moves while the row is shown. */
  countdown = (Countdown) { window, g_ascii_strtoll (ui_detail (window, "TTL left"), NULL, 10) };
  g_assert_cmpint (countdown.seconds, >, 0);
  g_assert_true (fl_test_wait_until (ttl_below, &countdown, 5000));

  /* The lease expires: etcd deletes the key, the row goes. */
  row.pid = 0;
  g_assert_true (fl_test_wait_until (row_is, &row, 30000));
  ui_window_close (window);
  stop_etcd ();
}

typedef struct
{
  InspectorWindow *window;
  const char      *path;   /* the row's lock, as its Lock cell's tooltip names it */
  const char      *state;
} RowState;

/* What the list draws in the row's State cell (not the model's word for it). */
static gboolean
row_state_is (gpointer data)
{
  RowState *r = data;
  g_autoptr(GHashTable) states = ui_rendered_states (GTK_WIDGET (r->window->column_view));

  return g_strcmp0 (g_hash_table_lookup (states, r->path), r->state) == 0;
}

/* A SIGKILLed holder on this machine: etcd keeps its key until the lease ends, but the row
 * (not only the details, which read the shown lock again) says the holder exited at once: the
 * model watches the holder's process and reads the prefix again when it exits. Another row
 * is selected, so the details pane has no part in it. */
static void
test_etcd_row_holder_exited (void)
{
  InspectorWindow *window = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  g_autofree char *other = NULL;
  g_autoptr(FlEntry) entry = NULL;
  GListModel *rows;
  GSubprocess *holder;
  RowState state;
  gint64 killed;

  holder = start_holding ("fl-row", "row.db", "row-writer", &root, &target);
  if (holder == NULL)
    return;

  window = ui_window_with_demo ();
  watch_prefix (window, root, target, pid_of (holder));
  other = ui_demo_path (window, "report.csv.lock");
  g_assert_true (_inspector_window_select_path (window, other));
  state = (RowState) { window, "fl-row/row.db", "Held" };
  g_assert_true (fl_test_wait_until (row_state_is, &state, 5000));

  g_subprocess_send_signal (holder, SIGKILL);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
  g_object_unref (holder);
  killed = g_get_monotonic_time ();

  /* Well before the lease could end (its TTL is tens of seconds): no etcd event brings it. */
  state.state = "Held: holder exited";
  g_assert_true (fl_test_wait_until (row_state_is, &state, 2000));
  g_test_message ("the row said it %.0f ms after the kill",
                  (g_get_monotonic_time () - killed) / 1000.0);
  /* libfl's word, not the window's: held (etcd is the judge), its holder exited. */
  rows = _inspector_window_get_rows (window);
  for (guint i = 0; i < g_list_model_get_n_items (rows) && entry == NULL; i++)
    {
      g_autoptr(FlEntry) item = g_list_model_get_item (rows, i);

      if (g_strcmp0 (fl_snapshot_get_target (fl_entry_get_snapshot (item)), target) == 0)
        entry = g_steal_pointer (&item);
    }
  g_assert_nonnull (entry);
  g_assert_true (fl_snapshot_get_holder_exited (fl_entry_get_snapshot (entry)));
  g_assert_cmpint (fl_snapshot_get_state (fl_entry_get_snapshot (entry)), ==,
                   FL_ENTRY_STATE_HELD);
  ui_window_close (window);
  stop_etcd ();
}

int
main (int    argc,
      char **argv)
{
  if (!ui_test_init (&argc, &argv))
    return 0;
  g_test_add_func ("/inspector/etcd-beside-folder", test_etcd_beside_folder);
  g_test_add_func ("/inspector/etcd-holder-killed", test_etcd_holder_killed);
  g_test_add_func ("/inspector/etcd-row-holder-exited", test_etcd_row_holder_exited);
  return g_test_run ();
}
