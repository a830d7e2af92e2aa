/* test-etcd-faults.c: etcd:// locks through a 3-member cluster, under faults (suite 'etcd')
 *
 * One cluster per run of this program (tests/etcd/etcd-test-util.c); every test leaves all
 * three members running. Holders and workers are child processes (this program with a
 * --role argument); waiters are acquire_async calls in the test process. Nothing waits by
 * sleeping: each wait is for a condition, with a deadline.
 *
 * The fenced counter is the resource the locks protect: a file that remembers the highest
 * fencing token it accepted and rejects a write with a lower one (docs/fencing.md), kept
 * atomic by its own flock() so that it can judge the locks rather than trust them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "etcd-test-util.h"
#include "fl-test-util.h"
#include "model/fl-directory-model-private.h"

#define PROCESSES 8
#define SECTIONS  200
/* The minimum, scaled (a starved keepalive on a busy machine must not lose a holder that the
 * test expects to hold): every expiry below costs about this much. */
#define TTL_S     etcd_test_ttl_s (2)

static EtcdCluster *cluster;
static char *skip_reason;
static const char *self_path;

#define NEED_CLUSTER() G_STMT_START { if (cluster == NULL) { g_test_skip (skip_reason); return; } } G_STMT_END

/* The fenced counter */

typedef struct
{
  guint64 value;
  guint64 highest;     /* the highest token accepted */
  guint64 rejected;    /* writes refused for a token below it */
  guint64 inside;      /* holders between enter and leave now */
  guint64 max_inside;  /* ... at most, ever: 1 unless two held at once */
} Fenced;

typedef enum
{
  FENCED_READ,
  FENCED_WRITE,
  FENCED_ENTER,
  FENCED_LEAVE,
} FencedOp;

/* One atomic step on the counter file. FENCED_WRITE stores *value if @token is not below
 * the highest accepted, else counts a rejection and returns FALSE. */
static gboolean
fenced_apply (const char *path,
              FencedOp    op,
              guint64     token,
              Fenced     *state)
{
  Fenced f = { 0 };
  char text[256];
  gboolean accepted = TRUE;
  int fd = etcd_test_counter_open (path, text, sizeof text);

  if (text[0] != '\0')
    g_assert_cmpint (sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                             G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT,
                             &f.value, &f.highest, &f.rejected, &f.inside, &f.max_inside),
                     ==, 5);
  switch (op)
    {
    case FENCED_READ:
      break;
    case FENCED_WRITE:
      accepted = token >= f.highest;
      if (accepted)
        {
          f.highest = token;
          f.value = state->value;
        }
      else
        f.rejected++;
      break;
    case FENCED_ENTER:
      f.inside++;
      f.max_inside = MAX (f.max_inside, f.inside);
      break;
    case FENCED_LEAVE:
      g_assert_cmpuint (f.inside, >, 0);
      f.inside--;
      break;
    }
  if (op != FENCED_READ)
    {
      g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                  G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
                  f.value, f.highest, f.rejected, f.inside, f.max_inside);
      etcd_test_counter_store (fd, text);
    }
  close (fd);  /* drops the flock */
  if (op == FENCED_READ)
    *state = f;
  return accepted;
}

/* A critical section on the counter: read, then write value+1 under @token. */
static gboolean
fenced_increment (const char *path,
                  guint64     token)
{
  Fenced f;

  fenced_apply (path, FENCED_READ, 0, &f);
  g_thread_yield ();  /* widen the window a second holder would need */
  f.value++;
  return fenced_apply (path, FENCED_WRITE, token, &f);
}

static char *
fenced_new (char **dir)
{
  g_autoptr(GError) error = NULL;

  char *path;

  *dir = g_dir_make_tmp ("fl-etcd-faults-XXXXXX", &error);
  g_assert_no_error (error);
  path = g_build_filename (*dir, "counter", NULL);
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  return path;
}

static void
fenced_free (char *path,
             char *dir)
{
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

/* The child processes */

/* --exclusion URI COUNTER: SECTIONS critical sections, each fenced. */
static int
role_exclusion (const char *uri,
                const char *counter)
{
  /* Nothing here waits for a lease to end: a long one, scaled, so that a worker starved on a
   * busy machine does not lose its lock (a 2 s lease failed 3 of 8 ASan runs at load 20). */
  g_autoptr(FlLockOptions) options = etcd_test_options (120000,
                                                        etcd_test_ttl_s (10));

  for (guint i = 0; i < SECTIONS; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = fl_lock_acquire (uri, options, NULL, &error);

      if (lock == NULL)
        g_error ("exclusion worker: %s", error->message);
      fenced_apply (counter, FENCED_ENTER, 0, NULL);
      fenced_increment (counter, fl_lock_get_fencing_token (lock));
      fenced_apply (counter, FENCED_LEAVE, 0, NULL);
      if (!fl_lock_release (lock, &error))
        g_error ("exclusion worker: release: %s", error->message);
    }
  return 0;
}

/* --hold URI COUNTER TTL: acquires, says "held TOKEN" and waits for a line on stdin:
 * "go" writes to the counter only if the lock is still held (what a careful holder does),
 * "force" writes in any case (a holder that did not look, so that the counter must refuse
 * it). Then releases and says what it saw: "held=B lost=B write=W release=R". */
static int
role_hold (const char *uri,
           const char *counter,
           guint       ttl_s)
{
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (30000), ttl_s);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = fl_lock_acquire (uri, options, NULL, &error);
  char line[32] = "";
  gboolean lost = FALSE, held, write;
  const char *wrote = "none";
  const char *released;

  if (lock == NULL)
    g_error ("holder: %s", error->message);
  etcd_test_watch_lost (lock, &lost);
  printf ("held %" G_GUINT64_FORMAT "\n", fl_lock_get_fencing_token (lock));
  fflush (stdout);
  if (fgets (line, sizeof line, stdin) == NULL)
    return 1;

  held = fl_lock_is_held (lock);
  if (!held)  /* ::lost comes on this thread's main context: let it in */
    etcd_wait_for (etcd_test_is_true, &lost, fl_test_scaled_ms (5000));
  write = held || g_str_has_prefix (line, "force");
  if (write)
    {
      if (held)
        fenced_apply (counter, FENCED_ENTER, 0, NULL);
      wrote = fenced_increment (counter, fl_lock_get_fencing_token (lock))
              ? "accepted" : "rejected";
      if (held)
        fenced_apply (counter, FENCED_LEAVE, 0, NULL);
    }
  if (fl_lock_release (lock, &error))
    released = "ok";
  else if (g_error_matches (error, FL_ERROR, FL_ERROR_LOST))
    released = "LOST";
  else
    released = error->message;
  printf ("held=%d lost=%d write=%s release=%s\n", held, lost, wrote, released);
  return 0;
}

/* Driving a holder from the test */

typedef struct
{
  GSubprocess      *process;
  GDataInputStream *out;
  guint64           token;
} Holder;

static Holder *
holder_start (const char *uri,
              const char *counter,
              guint       ttl_s)
{
  g_autofree char *ttl = g_strdup_printf ("%u", ttl_s);
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;
  Holder *h = g_new0 (Holder, 1);

  h->process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                 &error, self_path, "--hold", uri, counter, ttl, NULL);
  g_assert_no_error (error);
  h->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (h->process));
  /* It says so once it holds, or dies (and the read ends). */
  line = g_data_input_stream_read_line (h->out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_assert_true (g_str_has_prefix (line, "held "));
  h->token = g_ascii_strtoull (line + 5, NULL, 10);
  g_assert_cmpuint (h->token, >, 0);
  return h;
}

/* Sends @command and returns the holder's report. */
static char *
holder_finish (Holder     *h,
               const char *command)
{
  g_autoptr(GError) error = NULL;
  GOutputStream *in = g_subprocess_get_stdin_pipe (h->process);
  char *report;

  g_assert_true (g_output_stream_write_all (in, command, strlen (command), NULL, NULL, &error));
  g_assert_true (g_output_stream_write_all (in, "\n", 1, NULL, NULL, &error));
  g_assert_no_error (error);
  report = g_data_input_stream_read_line (h->out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (report);
  g_assert_true (g_subprocess_wait_check (h->process, NULL, &error));
  g_assert_no_error (error);
  return report;
}

static void
holder_free (Holder *h)
{
  g_subprocess_force_exit (h->process);
  g_subprocess_wait (h->process, NULL, NULL);
  g_object_unref (h->out);
  g_object_unref (h->process);
  g_free (h);
}

/* A waiter in this process */

typedef struct
{
  FlLock *lock;
  GError *error;
  gint64  done_at;  /* monotonic, 0 while it waits */
} Pending;

static void
pending_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  Pending *p = data;

  p->lock = fl_lock_acquire_finish (result, &p->error);
  p->done_at = g_get_monotonic_time ();
}

static gboolean
pending_done (gpointer data)
{
  return ((Pending *) data)->done_at != 0;
}

/* Whether it is still waiting, once every completion already queued has been delivered. */
static gboolean
pending_waits (Pending *p)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
  return !pending_done (p);
}

static void
pending_clear (Pending *p)
{
  g_clear_object (&p->lock);
  g_clear_error (&p->error);
}

typedef struct
{
  const char *name;  /* fl-test/NAME */
  guint       length;
} Queue;

static gboolean
queue_is (gpointer data)
{
  Queue *q = data;
  g_autoptr(GPtrArray) keys = etcd_server_queue (etcd_cluster_any (cluster), q->name);

  return keys->len == q->length;
}

/* The tests */

/* P processes x SECTIONS sections, each process through a different first member. */
static void
test_exclusion (void)
{
  g_autofree char *dir = NULL;
  char *counter;
  GSubprocess *workers[PROCESSES];
  g_autoptr(GError) error = NULL;
  Fenced f;
  gint64 start = g_get_monotonic_time ();

  NEED_CLUSTER ();
  counter = fenced_new (&dir);
  for (guint i = 0; i < PROCESSES; i++)
    {
      g_autofree char *uri = etcd_cluster_uri (cluster, i % ETCD_CLUSTER_SIZE, "exclusion");

      workers[i] = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, self_path,
                                     "--exclusion", uri, counter, NULL);
      g_assert_no_error (error);
    }
  for (guint i = 0; i < PROCESSES; i++)
    {
      g_assert_true (g_subprocess_wait_check (workers[i], NULL, &error));
      g_assert_no_error (error);
      g_object_unref (workers[i]);
    }

  fenced_apply (counter, FENCED_READ, 0, &f);
  g_test_message ("%u x %u sections in %.1f s", PROCESSES, SECTIONS,
                  (g_get_monotonic_time () - start) / 1e6);
  g_assert_cmpuint (f.value, ==, PROCESSES * SECTIONS);  /* no lost update */
  g_assert_cmpuint (f.rejected, ==, 0);                  /* no stale token */
  g_assert_cmpuint (f.max_inside, ==, 1);                /* never two holders */
  g_assert_cmpuint (f.inside, ==, 0);
  fenced_free (counter, g_steal_pointer (&dir));
}

static gint64
lease_ttl_left_s (gint64 lease)
{
  g_autofree char *body = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", lease);
  g_autoptr(JsonObject) res = etcd_server_call (etcd_cluster_any (cluster),
                                                "/v3/lease/timetolive", body);

  return g_ascii_strtoll (json_object_get_string_member_with_default (res, "TTL", "0"), NULL,
                          10);
}

static gint64
oldest_lease (const char *name)
{
  g_autoptr(GPtrArray) keys = etcd_server_queue (etcd_cluster_any (cluster), name);

  g_assert_cmpuint (keys->len, >, 0);
  return g_ascii_strtoll (json_object_get_string_member (keys->pdata[0], "lease"), NULL, 10);
}

/* A holder SIGKILLed: its lease runs out in etcd, and only then does the waiter get in. */
static void
test_holder_killed (void)
{
  g_autofree char *dir = NULL;
  char *counter;
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (20000), TTL_S);
  Queue two = { "fl-test/killed", 2 };
  Pending w = { 0 };
  Holder *h;
  gint64 killed, left_s, waited_us;

  NEED_CLUSTER ();
  counter = fenced_new (&dir);
  uri = etcd_cluster_uri (cluster, 1, "killed");
  h = holder_start (uri, counter, TTL_S);
  fl_lock_acquire_async (uri, options, NULL, pending_cb, &w);
  g_assert_true (etcd_wait_for (queue_is, &two, fl_test_scaled_ms (10000)));

  left_s = lease_ttl_left_s (oldest_lease (two.name));
  killed = g_get_monotonic_time ();
  g_assert_true (pending_waits (&w));
  g_subprocess_send_signal (h->process, SIGKILL);
  g_assert_true (etcd_wait_for (pending_done, &w, fl_test_scaled_ms (15000)));
  g_assert_no_error (w.error);
  g_assert_true (fl_lock_is_held (w.lock));
  g_assert_cmpuint (fl_lock_get_fencing_token (w.lock), >, h->token);

  /* Not before the lease ran out: etcd said left_s whole seconds were left at the kill
   * (it rounds down), and a keepalive is sent every (TTL - margin)/3, under TTL/3. */
  waited_us = w.done_at - killed;
  g_test_message ("the waiter got the lock %" G_GINT64_FORMAT " ms after the kill; "
                  "%" G_GINT64_FORMAT " s of the lease were left", waited_us / 1000, left_s);
  g_assert_cmpint (waited_us, >=, left_s * G_USEC_PER_SEC - 50 * 1000);
  g_assert_cmpint (waited_us, >=, (TTL_S * G_USEC_PER_SEC) * 2 / 3 - 100 * 1000);
  g_assert_cmpint (waited_us, <, (TTL_S + 5) * G_USEC_PER_SEC);

  g_assert_true (fl_lock_release (w.lock, NULL));
  pending_clear (&w);
  holder_free (h);
  fenced_free (counter, g_steal_pointer (&dir));
}

/* A holder paused past its TTL: when it runs again it knows, and the counter refuses it. */
static void
test_holder_paused (void)
{
  g_autofree char *dir = NULL;
  char *counter;
  g_autofree char *uri = NULL;
  g_autofree char *report = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (20000), TTL_S);
  Queue two = { "fl-test/paused", 2 };
  Pending w = { 0 };
  Holder *h;
  Fenced f;

  NEED_CLUSTER ();
  counter = fenced_new (&dir);
  uri = etcd_cluster_uri (cluster, 2, "paused");
  h = holder_start (uri, counter, TTL_S);
  fl_lock_acquire_async (uri, options, NULL, pending_cb, &w);
  g_assert_true (etcd_wait_for (queue_is, &two, fl_test_scaled_ms (10000)));

  g_subprocess_send_signal (h->process, SIGSTOP);
  g_assert_true (etcd_wait_for (pending_done, &w, fl_test_scaled_ms (15000)));
  g_assert_no_error (w.error);
  g_assert_cmpuint (fl_lock_get_fencing_token (w.lock), >, h->token);
  g_assert_true (fenced_increment (counter, fl_lock_get_fencing_token (w.lock)));

  /* Resumed, the old holder looks before writing, then writes anyway ("force"). */
  g_subprocess_send_signal (h->process, SIGCONT);
  report = holder_finish (h, "force");
  g_test_message ("paused holder: %s", report);
  g_assert_cmpstr (report, ==, "held=0 lost=1 write=rejected release=LOST");

  fenced_apply (counter, FENCED_READ, 0, &f);
  g_assert_cmpuint (f.value, ==, 1);  /* only the new holder's write */
  g_assert_cmpuint (f.highest, ==, fl_lock_get_fencing_token (w.lock));
  g_assert_cmpuint (f.rejected, ==, 1);
  g_assert_true (fl_lock_is_held (w.lock));
  g_assert_true (fl_lock_release (w.lock, NULL));
  pending_clear (&w);
  holder_free (h);
  fenced_free (counter, g_steal_pointer (&dir));
}

/* The leader killed while a lock is held and waited for, the waiter blocked through the
 * leader itself: the holder keeps the lock (TTL 5 s outlasts an election) or says it lost
 * it; the waiter gets it after the release, never beside the holder. */
static void
test_leader_killed (void)
{
  g_autofree char *dir = NULL;
  char *counter;
  g_autofree char *holder_uri = NULL;
  g_autofree char *waiter_uri = NULL;
  g_autofree char *report = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (30000), etcd_test_ttl_s (5));
  Queue two = { "fl-test/leader", 2 };
  Pending w = { 0 };
  Holder *h;
  Fenced f;
  int leader, next;

  NEED_CLUSTER ();
  counter = fenced_new (&dir);
  leader = etcd_cluster_leader (cluster, fl_test_scaled_ms (10000));
  g_assert_cmpint (leader, >=, 0);
  holder_uri = etcd_cluster_uri (cluster, (leader + 1) % ETCD_CLUSTER_SIZE, "leader");
  waiter_uri = etcd_cluster_uri (cluster, leader, "leader");
  h = holder_start (holder_uri, counter, 5);
  fl_lock_acquire_async (waiter_uri, options, NULL, pending_cb, &w);
  g_assert_true (etcd_wait_for (queue_is, &two, fl_test_scaled_ms (10000)));

  etcd_cluster_kill (cluster, leader);
  next = etcd_cluster_leader (cluster, fl_test_scaled_ms (15000));
  g_assert_cmpint (next, >=, 0);
  g_assert_cmpint (next, !=, leader);
  g_assert_true (pending_waits (&w));

  report = holder_finish (h, "go");
  g_test_message ("holder across the election: %s", report);
  g_assert_true (g_str_equal (report, "held=1 lost=0 write=accepted release=ok") ||
                 g_str_equal (report, "held=0 lost=1 write=none release=LOST"));

  g_assert_true (etcd_wait_for (pending_done, &w, fl_test_scaled_ms (20000)));
  g_assert_no_error (w.error);
  g_assert_cmpuint (fl_lock_get_fencing_token (w.lock), >, h->token);
  fenced_apply (counter, FENCED_ENTER, 0, NULL);
  g_assert_true (fenced_increment (counter, fl_lock_get_fencing_token (w.lock)));
  fenced_apply (counter, FENCED_LEAVE, 0, NULL);
  fenced_apply (counter, FENCED_READ, 0, &f);
  g_assert_cmpuint (f.rejected, ==, 0);
  g_assert_cmpuint (f.max_inside, ==, 1);
  g_assert_true (fl_lock_release (w.lock, NULL));

  pending_clear (&w);
  holder_free (h);
  etcd_cluster_restart (cluster, leader);
  fenced_free (counter, g_steal_pointer (&dir));
}

/* Two of three killed: acquire fails within its timeout with an error that says where, and
 * nothing is granted; with the two back, it works. */
static void
test_quorum_lost (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (3000, TTL_S);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(FlLock) held = NULL;
  g_autofree char *held_uri = NULL;
  Queue none = { "fl-test/quorum", 0 };
  gint64 start, elapsed;

  NEED_CLUSTER ();
  uri = etcd_cluster_uri (cluster, 0, "quorum");
  held_uri = etcd_cluster_uri (cluster, 0, "quorum-held");
  held = fl_lock_acquire (held_uri, options, NULL, &error);
  g_assert_no_error (error);
  etcd_cluster_kill (cluster, 1);
  etcd_cluster_kill (cluster, 2);

  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (uri, options, NULL, &error);
  elapsed = g_get_monotonic_time () - start;
  g_test_message ("without quorum: %s (after %" G_GINT64_FORMAT " ms)",
                  error != NULL ? error->message : "granted", elapsed / 1000);
  g_assert_null (lock);
  g_assert_nonnull (error);
  g_assert_true (g_error_matches (error, FL_ERROR, FL_ERROR_TIMEOUT) ||
                 g_error_matches (error, FL_ERROR, FL_ERROR_FAILED));
  g_assert_nonnull (strstr (error->message, "127.0.0.1:"));
  g_assert_cmpint (elapsed, <, 3000 * 1000 + 2 * G_USEC_PER_SEC);
  g_clear_error (&error);

  /* An operator still sees who holds what: the surviving member's own copy, said to be read
   * without a quorum (no TTL: no member can tell it now). */
  {
    g_autoptr(FlSnapshot) seen = fl_snapshot_new_for_target (held_uri, NULL, &error);
    g_autofree char *root = g_strndup (held_uri, strrchr (held_uri, '/') - held_uri);
    g_autoptr(GPtrArray) listed = NULL;
    gboolean found = FALSE;

    g_assert_no_error (error);
    g_test_message ("without quorum: %s", fl_snapshot_get_reason (seen));
    g_assert_cmpint (fl_snapshot_get_pid (seen), ==, getpid ());
    g_assert_cmpint (fl_snapshot_get_state (seen), ==, FL_ENTRY_STATE_HELD);
    g_assert_nonnull (strstr (fl_snapshot_get_reason (seen), "without a quorum"));
    g_assert_cmpint (fl_snapshot_get_lease_ttl (seen), ==, -1);

    listed = fl_scan_directory (root, 0, NULL, NULL, &error);
    g_assert_no_error (error);
    for (guint i = 0; i < listed->len; i++)
      if (g_strcmp0 (fl_snapshot_get_target (listed->pdata[i]), held_uri) == 0)
        {
          found = TRUE;
          g_assert_nonnull (strstr (fl_snapshot_get_reason (listed->pdata[i]),
                                    "without a quorum"));
        }
    g_assert_true (found);
  }

  etcd_cluster_restart (cluster, 1);
  etcd_cluster_restart (cluster, 2);
  g_assert_true (etcd_cluster_wait_healthy (cluster, fl_test_scaled_ms (30000)));
  /* Nothing was queued for it then, nor turns up now that the raft log moves again. */
  g_assert_true (queue_is (&none));

  lock = fl_lock_acquire (uri, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);

  /* Its keepalives failed for longer than its TTL: it may have been reported lost meanwhile. */
  if (!fl_lock_release (held, &error))
    g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
}

/* --wait URI TIMEOUT_MS: one acquire; says "waited MS code C" (C: the FL_ERROR code, -1 when
 * granted). */
static int
role_wait (const char *uri,
           const char *timeout_ms)
{
  g_autoptr(FlLockOptions) options = etcd_test_options (atoi (timeout_ms), TTL_S);
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  g_autoptr(FlLock) lock = fl_lock_acquire (uri, options, NULL, &error);

  printf ("waited %" G_GINT64_FORMAT " code %d\n", (g_get_monotonic_time () - start) / 1000,
          lock != NULL ? -1 : error->code);
  return 0;
}

/* Quorum lost while a waiter waits with a 3 s timeout: it returns within its timeout (it took
 * 10 s: the revoke after the deadline had a 10 s bound of its own, issue 30 item 4); a
 * try_acquire without quorum gives up within its short bound. */
static void
test_quorum_lost_while_waiting (void)
{
  const gint64 timeout_ms = 3000;
  const gint64 slack_ms = fl_test_scaled_ms (1000);
  g_autoptr(FlLockOptions) options = etcd_test_options (10000, TTL_S);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) held = NULL;
  g_autoptr(FlLock) tried = NULL;
  g_autoptr(GSubprocess) waiter = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *other = NULL;
  g_autofree char *timeout = g_strdup_printf ("%" G_GINT64_FORMAT, timeout_ms);
  g_autofree char *line = NULL;
  Queue two = { "fl-test/quorum-wait", 2 };
  gint64 waited = -1, start;
  int code = 0;

  NEED_CLUSTER ();
  uri = etcd_cluster_uri (cluster, 0, "quorum-wait");
  other = etcd_cluster_uri (cluster, 0, "quorum-try");
  held = fl_lock_acquire (uri, options, NULL, &error);
  g_assert_no_error (error);
  waiter = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, self_path, "--wait", uri,
                             timeout, NULL);
  g_assert_no_error (error);
  g_assert_true (etcd_wait_for (queue_is, &two, fl_test_scaled_ms (10000)));
  etcd_cluster_kill (cluster, 1);
  etcd_cluster_kill (cluster, 2);

  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (waiter));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_test_message ("waiter without quorum: %s", line);
  g_assert_cmpint (sscanf (line, "waited %" G_GINT64_FORMAT " code %d", &waited, &code), ==, 2);
  g_assert_cmpint (code, !=, -1);
  g_assert_cmpint (waited, <, timeout_ms + slack_ms);

  start = g_get_monotonic_time ();
  tried = fl_lock_try_acquire (other, options, &error);
  g_test_message ("try without quorum: %s after %" G_GINT64_FORMAT " ms",
                  error != NULL ? error->message : "granted",
                  (g_get_monotonic_time () - start) / 1000);
  g_assert_null (tried);
  g_assert_cmpint (g_get_monotonic_time () - start, <, (3000 + slack_ms) * 1000);
  g_clear_error (&error);

  etcd_cluster_restart (cluster, 1);
  etcd_cluster_restart (cluster, 2);
  g_assert_true (etcd_cluster_wait_healthy (cluster, fl_test_scaled_ms (30000)));
  g_assert_true (g_subprocess_wait_check (waiter, NULL, &error));
  g_assert_no_error (error);
  /* Its keepalives failed for longer than its TTL: it may have been reported lost meanwhile. */
  if (!fl_lock_release (held, &error))
    g_assert_error (error, FL_ERROR, FL_ERROR_LOST);
}

/* An acquire that starts just as the leader dies waits for the new leader within its timeout,
 * as one that was already waiting does (it used to fail at once with "request timed out"). */
static void
test_acquire_during_election (void)
{
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (20000), etcd_test_ttl_s (10));
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *uri = NULL;
  int leader;

  NEED_CLUSTER ();
  leader = etcd_cluster_leader (cluster, fl_test_scaled_ms (10000));
  g_assert_cmpint (leader, >=, 0);
  uri = etcd_cluster_uri (cluster, (guint) (leader + 1) % ETCD_CLUSTER_SIZE, "election");
  etcd_cluster_kill (cluster, (guint) leader);

  lock = fl_lock_acquire (uri, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_cmpuint (fl_lock_get_fencing_token (lock), >, 0);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);

  etcd_cluster_restart (cluster, (guint) leader);
  g_assert_true (etcd_cluster_wait_healthy (cluster, fl_test_scaled_ms (30000)));
}

/* A directory model's etcd prefix keeps following when the member its watch streams from is
 * killed: the watch opens again through the next member, and a lock taken and released
 * there is seen, with the periodic rescan off. */
static void
test_watch_member_killed (void)
{
  g_autoptr(FlDirectoryModel) model = NULL;
  /* A long lease: what is tested is the model, not keepalives on a loaded machine. */
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000), etcd_test_ttl_s (10));
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *probe = NULL;
  g_autofree char *root = NULL;
  g_autofree char *target = NULL;
  guint follower;
  int leader;

  NEED_CLUSTER ();
  /* All three members, a follower first: the watch streams from it. */
  leader = etcd_cluster_leader (cluster, fl_test_scaled_ms (10000));
  g_assert_cmpint (leader, >=, 0);
  follower = (guint) (leader + 1) % ETCD_CLUSTER_SIZE;
  probe = etcd_cluster_uri (cluster, follower, "x");
  root = g_strdup_printf ("%.*s/fl-watch", (int) (strstr (probe, "/fl-test/") - probe), probe);
  target = g_strdup_printf ("%s/after-kill", root);
  model = fl_directory_model_new (NULL);
  _fl_directory_model_set_periodic (model, FALSE);
  g_assert_true (fl_directory_model_add_directory (model, root, FALSE, &error));
  g_assert_no_error (error);

  etcd_cluster_kill (cluster, follower);

  lock = fl_lock_acquire (target, options, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (etcd_test_wait_in_model (model, target, TRUE, fl_test_scaled_ms (20000)));

  /* Released once the watch is back: only an event can tell the model now. */
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  g_assert_true (etcd_test_wait_in_model (model, target, FALSE, fl_test_scaled_ms (20000)));

  etcd_cluster_restart (cluster, follower);
  g_assert_true (etcd_cluster_wait_healthy (cluster, fl_test_scaled_ms (30000)));
}

/* A waiter cancelled: told at once, its key leaves etcd with its lease, revoked behind it
 * (docs/etcd.md, "Deadlines"), and the holder is untouched. */
static void
test_waiter_cancelled (void)
{
  g_autofree char *dir = NULL;
  char *counter;
  g_autofree char *uri = NULL;
  g_autofree char *report = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Queue two = { "fl-test/cancelled", 2 };
  Queue one = { "fl-test/cancelled", 1 };
  Pending w = { 0 };
  Holder *h;

  NEED_CLUSTER ();
  counter = fenced_new (&dir);
  uri = etcd_cluster_uri (cluster, 1, "cancelled");
  h = holder_start (uri, counter, TTL_S);
  fl_lock_acquire_async (uri, NULL, cancellable, pending_cb, &w);
  g_assert_true (etcd_wait_for (queue_is, &two, fl_test_scaled_ms (10000)));

  g_cancellable_cancel (cancellable);
  g_assert_true (etcd_wait_for (pending_done, &w, fl_test_scaled_ms (5000)));
  g_assert_null (w.lock);
  g_assert_error (w.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (etcd_wait_for (queue_is, &one, fl_test_scaled_ms (5000)));

  report = holder_finish (h, "go");
  g_assert_cmpstr (report, ==, "held=1 lost=0 write=accepted release=ok");
  pending_clear (&w);
  holder_free (h);
  fenced_free (counter, g_steal_pointer (&dir));
}

/* The first endpoint of the list is down: the next answers, within a bounded time. A
 * follower is the one killed, so that no election is timed with it. */
static void
test_dead_first_endpoint (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (10000), TTL_S);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  gint64 start, elapsed;
  guint dead;

  NEED_CLUSTER ();
  dead = (guint) (etcd_cluster_leader (cluster, fl_test_scaled_ms (10000)) + 1) %
         ETCD_CLUSTER_SIZE;
  etcd_cluster_kill (cluster, dead);
  uri = etcd_cluster_uri (cluster, dead, "dead-first");
  start = g_get_monotonic_time ();
  lock = fl_lock_acquire (uri, options, NULL, &error);
  elapsed = g_get_monotonic_time () - start;
  g_assert_no_error (error);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_cmpuint (fl_lock_get_fencing_token (lock), >, 0);
  g_test_message ("acquired past a dead first member in %" G_GINT64_FORMAT " ms",
                  elapsed / 1000);
  g_assert_cmpint (elapsed, <, fl_test_scaled_ms (2000) * 1000);
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  etcd_cluster_restart (cluster, dead);
}

/* A waiter of etcd's own lock service (/v3/lock/lock: another client, or an older libfl)
 * and libfl's waiters share one queue, each way round. */
static gint64
raw_lease (void)
{
  g_autoptr(JsonObject) res = etcd_server_call (etcd_cluster_any (cluster), "/v3/lease/grant",
                                                "{\"TTL\":10}");

  return g_ascii_strtoll (json_object_get_string_member (res, "ID"), NULL, 10);
}

typedef struct
{
  gint64      lease;
  JsonObject *granted;
  gint        done;
} RawLock;

static gpointer
raw_lock_thread (gpointer data)
{
  RawLock *r = data;
  g_autofree char *name64 = g_base64_encode ((const guchar *) "fl-test/mixed", 13);
  g_autofree char *body = g_strdup_printf ("{\"name\":\"%s\",\"lease\":\"%" G_GINT64_FORMAT
                                           "\"}", name64, r->lease);

  r->granted = etcd_server_try_call (etcd_cluster_any (cluster), "/v3/lock/lock", body, 15,
                                     NULL);
  g_atomic_int_set (&r->done, 1);
  return NULL;
}

static gboolean
raw_done (gpointer data)
{
  return g_atomic_int_get (&((RawLock *) data)->done);
}

static void
raw_revoke (gint64 lease)
{
  g_autofree char *body = g_strdup_printf ("{\"ID\":\"%" G_GINT64_FORMAT "\"}", lease);
  g_autoptr(JsonObject) res = etcd_server_call (etcd_cluster_any (cluster), "/v3/lease/revoke",
                                                body);

  g_assert_nonnull (res);
}

static void
test_mixed_waiters (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = etcd_test_options (fl_test_scaled_ms (15000), TTL_S);
  Queue one = { "fl-test/mixed", 1 };
  Queue two = { "fl-test/mixed", 2 };
  RawLock first = { 0 }, second = { 0 };
  Pending w = { 0 };
  GThread *thread;

  NEED_CLUSTER ();
  uri = etcd_cluster_uri (cluster, 0, "mixed");

  /* etcd's lock holds, libfl waits behind it. */
  first.lease = raw_lease ();
  thread = g_thread_new ("raw", raw_lock_thread, &first);
  g_assert_true (etcd_wait_for (raw_done, &first, fl_test_scaled_ms (10000)));
  g_thread_join (thread);
  g_assert_nonnull (first.granted);
  fl_lock_acquire_async (uri, options, NULL, pending_cb, &w);
  g_assert_true (etcd_wait_for (queue_is, &two, fl_test_scaled_ms (10000)));
  g_assert_true (pending_waits (&w));
  raw_revoke (first.lease);
  g_assert_true (etcd_wait_for (pending_done, &w, fl_test_scaled_ms (10000)));
  g_assert_no_error (w.error);
  g_assert_true (fl_lock_is_held (w.lock));

  /* libfl holds, etcd's lock waits behind it. */
  second.lease = raw_lease ();
  thread = g_thread_new ("raw", raw_lock_thread, &second);
  g_assert_true (etcd_wait_for (queue_is, &two, fl_test_scaled_ms (10000)));
  g_assert_false (raw_done (&second));
  g_assert_true (fl_lock_release (w.lock, NULL));
  g_assert_true (etcd_wait_for (raw_done, &second, fl_test_scaled_ms (10000)));
  g_thread_join (thread);
  g_assert_nonnull (second.granted);
  g_assert_true (queue_is (&one));
  raw_revoke (second.lease);

  json_object_unref (first.granted);
  json_object_unref (second.granted);
  pending_clear (&w);
}

/* Item 9 of issue 30: the one follower the keeper talks to paused for 3 s, with a short TTL
 * (2 and 3 s; longer on a slow machine, FL_TEST_TIME_SCALE): the keeper moves on to another
 * member in time and the holder keeps its lock. Before, TTL 2 and 3 lost it (TTL 5 did not). */
static void
keepalive_member_paused (guint ttl_s)
{
  g_autofree char *name = g_strdup_printf ("keeper-paused-%u", ttl_s);
  g_autofree char *uri = NULL;
  g_autoptr(FlLockOptions) options = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autoptr(GError) error = NULL;
  gboolean lost = FALSE;
  int leader, follower;

  NEED_CLUSTER ();
  leader = etcd_cluster_leader (cluster, fl_test_scaled_ms (10000));
  g_assert_cmpint (leader, >=, 0);
  follower = (leader + 1) % ETCD_CLUSTER_SIZE;
  /* The follower first, in an order no other test uses: the process remembers, per list of
   * endpoints, the member that last answered, and this one must grant (and renew) the lease. */
  uri = g_strdup_printf ("etcd://%s,%s,%s/fl-test/%s",
                         cluster->members[follower]->hostport,
                         cluster->members[(follower + 2) % ETCD_CLUSTER_SIZE]->hostport,
                         cluster->members[(follower + 1) % ETCD_CLUSTER_SIZE]->hostport, name);
  options = etcd_test_options (fl_test_scaled_ms (10000), etcd_test_ttl_s (ttl_s));
  lock = etcd_test_acquire_watched (uri, options, &lost);

  etcd_server_pause (cluster->members[follower], TRUE);
  /* Not lost while the member is paused (a waited-for event that must not come). */
  g_assert_false (etcd_wait_for (etcd_test_is_true, &lost, 3000));  /* the pause: not scaled */
  etcd_server_pause (cluster->members[follower], FALSE);
  g_assert_true (fl_lock_is_held (lock));
  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
}

static void
test_keepalive_member_paused_ttl2 (void)
{
  keepalive_member_paused (2);
}

static void
test_keepalive_member_paused_ttl3 (void)
{
  keepalive_member_paused (3);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  if (argc == 4 && strcmp (argv[1], "--exclusion") == 0)
    return role_exclusion (argv[2], argv[3]);
  if (argc == 5 && strcmp (argv[1], "--hold") == 0)
    return role_hold (argv[2], argv[3], (guint) atoi (argv[4]));
  if (argc == 4 && strcmp (argv[1], "--wait") == 0)
    return role_wait (argv[2], argv[3]);

  self_path = argv[0];
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/etcd-faults/exclusion", test_exclusion);
  g_test_add_func ("/etcd-faults/holder-killed", test_holder_killed);
  g_test_add_func ("/etcd-faults/holder-paused", test_holder_paused);
  g_test_add_func ("/etcd-faults/leader-killed", test_leader_killed);
  g_test_add_func ("/etcd-faults/quorum-lost", test_quorum_lost);
  g_test_add_func ("/etcd-faults/quorum-lost-while-waiting", test_quorum_lost_while_waiting);
  g_test_add_func ("/etcd-faults/watch-member-killed", test_watch_member_killed);
  g_test_add_func ("/etcd-faults/acquire-during-election", test_acquire_during_election);
  g_test_add_func ("/etcd-faults/waiter-cancelled", test_waiter_cancelled);
  g_test_add_func ("/etcd-faults/dead-first-endpoint", test_dead_first_endpoint);
  g_test_add_func ("/etcd-faults/mixed-waiters", test_mixed_waiters);
  g_test_add_func ("/etcd-faults/keepalive-member-paused/ttl2",
                   test_keepalive_member_paused_ttl2);
  g_test_add_func ("/etcd-faults/keepalive-member-paused/ttl3",
                   test_keepalive_member_paused_ttl3);

  cluster = etcd_cluster_start (&skip_reason);
  ret = g_test_run ();
  etcd_cluster_stop (cluster);
  g_free (skip_reason);
  return ret;
}
