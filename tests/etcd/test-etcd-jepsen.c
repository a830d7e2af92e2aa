/* test-etcd-jepsen.c: 8 fenced clients on one etcd:// lock while a nemesis partitions, pauses,
 * kills and restarts the members of a 3-member cluster (suite 'jepsen', issue 30)
 *
 * Not in a plain `meson test` (it runs for minutes): run it by name,
 *   FL_JEPSEN_SECONDS=300 meson test -C build --suite jepsen
 * (300 s by default). The cluster lives in network namespaces this program makes
 * (tests/etcd/etcd-netns.h); needs root, skips without.
 *
 * Each client (this program with --client) loops: acquire (5 s timeout, 3 s lease), then a
 * critical section on a fenced counter (read under flock, then write value + 1 only if its
 * token is not below the highest the counter has accepted), then release. Every step is one
 * line appended (O_APPEND, one write each) to a shared log, so the log's order is the order the
 * steps happened in. The nemesis, meanwhile, every 1-3 s: heals everything, or cuts a member
 * from its peers, or from the clients, or pauses it (SIGSTOP), or kills and restarts it, or
 * cuts two members from their peers (no quorum), or pauses a client (SIGSTOP) for 3-6 s, past
 * its lease, so that another client is granted the lock while it still believes it holds.
 *
 * The checker, once every client has ended:
 * - every overlap of two sections was told to the older holder: it saw fl_lock_is_held()
 *   FALSE before its write, or its write was refused for a stale token, or its release said
 *   FL_ERROR_LOST ("0 untold overlaps");
 * - the counter's value is the number of writes it accepted ("0 lost increments": an untold
 *   overlap inside the read-write window loses one);
 * - every client ended within its last acquire's timeout of the end ("0 waiters blocked");
 * - a section that began after another had ended has a larger token ("tokens increasing").
 * With FL_JEPSEN_NO_LOCK=1 the clients take no lock (each section's token is its own count):
 * the checks then fail, which shows that they can.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "etcd-netns.h"
#include "etcd-test-util.h"
#include "fl-test-util.h"

#define CLIENTS         8
#define TTL_S           3
#define ACQUIRE_MS      5000
#define DEFAULT_SECONDS 300

static char *skip_reason;
static const char *self_path;

/* One line to the log, in one write(2) on an O_APPEND descriptor. */
static void
log_line (int         fd,
          const char *format,
          ...) G_GNUC_PRINTF (2, 3);

static void
log_line (int         fd,
          const char *format,
          ...)
{
  g_autofree char *line = NULL;
  va_list args;
  int len;

  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);
  len = (int) strlen (line);
  if (write (fd, line, (size_t) len) != len)
    g_error ("cannot append to the log: %s", g_strerror (errno));
}

/* The fenced counter, "VALUE HIGHEST ACCEPTED": one flock'd step, a read or a write, each
 * refused (FALSE) if @token is below the highest the counter has seen, and raising it. The read
 * is fenced too: with only the write fenced, a holder paused between its read and its write
 * could still write once a successor has read, and one increment would be lost. */
static gboolean
counter_step (const char *path,
              gboolean    write_value,
              guint64    *value,
              guint64     token)
{
  guint64 v = 0, highest = 0, accepted = 0;
  char text[128];
  gboolean ok = TRUE;
  int fd = etcd_test_counter_open (path, text, sizeof text);

  if (text[0] != '\0')
    g_assert_cmpint (sscanf (text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                             G_GUINT64_FORMAT, &v, &highest, &accepted), ==, 3);
  if (token < highest)
    ok = FALSE;
  else
    {
      if (!write_value)
        *value = v;
      else
        {
          v = *value;
          accepted++;
        }
      g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                  G_GUINT64_FORMAT "\n", v, token, accepted);
      etcd_test_counter_store (fd, text);
    }
  close (fd);
  return ok;
}

/* --client URI LOG COUNTER END_US: sections until END_US on the monotonic clock, which all
 * processes share. Log lines: "B pid token" (the section begins), "W pid token
 * ok|refused|lost-before-write", "X pid token" (it ends), "R pid token ok|lost|error" (the
 * release's result), "E pid domain" for an acquire that failed. */
static int
client (const char *uri,
        const char *log_path,
        const char *counter,
        gint64      end_us)
{
  g_autoptr(FlLockOptions) options = etcd_test_options (ACQUIRE_MS, TTL_S);
  int log_fd = open (log_path, O_WRONLY | O_APPEND | O_CLOEXEC);
  int pid = (int) getpid ();
  gboolean no_lock = g_getenv ("FL_JEPSEN_NO_LOCK") != NULL;
  guint64 count = 0;

  g_assert_cmpint (log_fd, >=, 0);
  while (g_get_monotonic_time () < end_us)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = no_lock ? NULL : fl_lock_acquire (uri, options, NULL, &error);
      guint64 token, value = 0;
      const char *wrote;

      if (lock == NULL && !no_lock)
        {
          log_line (log_fd, "E %d %s\n", pid, g_quark_to_string (error->domain));
          continue;
        }
      token = no_lock ? ++count : fl_lock_get_fencing_token (lock);
      log_line (log_fd, "B %d %" G_GUINT64_FORMAT "\n", pid, token);
      /* A holder that knows it lost the lock does not write: that is the rule the library's
       * users follow (docs/fencing.md); the fence catches one that does not know. */
      if (!counter_step (counter, FALSE, &value, token))
        wrote = "refused";
      else
        {
          /* The work of the section, 0-50 ms: a pause of this client lands inside one often
           * enough to make overlaps (the workload, not a wait for anything). */
          g_usleep (g_random_int_range (0, 50) * 1000);
          value++;
          if (!no_lock && !fl_lock_is_held (lock))
            wrote = "lost-before-write";
          else
            wrote = counter_step (counter, TRUE, &value, token) ? "ok" : "refused";
        }
      log_line (log_fd, "W %d %" G_GUINT64_FORMAT " %s\n", pid, token, wrote);
      /* The section ends here, before the release: a successor may be granted the instant
       * the key goes, before this process could say so. */
      log_line (log_fd, "X %d %" G_GUINT64_FORMAT "\n", pid, token);
      if (no_lock || fl_lock_release (lock, &error))
        log_line (log_fd, "R %d %" G_GUINT64_FORMAT " ok\n", pid, token);
      else
        log_line (log_fd, "R %d %" G_GUINT64_FORMAT " %s\n", pid, token,
                  g_error_matches (error, FL_ERROR, FL_ERROR_LOST) ? "lost" : "error");
    }
  close (log_fd);
  return 0;
}

typedef struct
{
  int      pid;
  guint64  token;
  gboolean told;      /* is_held FALSE before the write, refused, or a LOST release */
  gboolean ended;     /* its X line */
  gboolean accepted;  /* its write was accepted */
} Section;

typedef struct
{
  guint sections, accepted, refused, told_before_write, lost_releases, failed_acquires;
  guint overlaps, untold_overlaps, token_regressions;
} Verdict;

/* Reads the log in order: the checks of the file's header. */
static void
check_log (const char *log_path,
           Verdict    *v)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) open_sections = g_ptr_array_new ();   /* Section *, not ended */
  g_autoptr(GHashTable) sections = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                          g_free);  /* "pid token" */
  g_autoptr(GHashTable) overlapped = g_hash_table_new (NULL, NULL);  /* older Section * */
  guint64 highest_ended = 0;   /* the largest token of a section that had ended */
  GHashTableIter iter;
  gpointer value;

  g_assert_true (g_file_get_contents (log_path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      char kind = lines[i][0];
      int pid = 0;
      guint64 token = 0;
      char what[32] = "";
      g_autofree char *key = NULL;
      Section *s;

      if (kind == 'E')
        {
          v->failed_acquires++;
          continue;
        }
      g_assert_cmpint (sscanf (lines[i] + 2, "%d %" G_GUINT64_FORMAT " %31s", &pid, &token,
                               what), >=, 2);
      key = g_strdup_printf ("%d %" G_GUINT64_FORMAT, pid, token);
      if (kind == 'B')
        {
          s = g_new0 (Section, 1);
          s->pid = pid;
          s->token = token;
          v->sections++;
          if (token <= highest_ended)
            v->token_regressions++;
          for (guint j = 0; j < open_sections->len; j++)
            {
              v->overlaps++;
              g_hash_table_add (overlapped, open_sections->pdata[j]);
            }
          g_ptr_array_add (open_sections, s);
          g_hash_table_insert (sections, g_steal_pointer (&key), s);
          continue;
        }
      s = g_hash_table_lookup (sections, key);
      g_assert_nonnull (s);
      if (kind == 'W')
        {
          s->accepted = strcmp (what, "ok") == 0;
          s->told = s->told || !s->accepted;
          v->accepted += s->accepted;
          v->refused += strcmp (what, "refused") == 0;
          v->told_before_write += strcmp (what, "lost-before-write") == 0;
        }
      else if (kind == 'X')
        {
          s->ended = TRUE;
          highest_ended = MAX (highest_ended, s->token);
          g_ptr_array_remove (open_sections, s);
        }
      else if (kind == 'R')
        {
          s->told = s->told || strcmp (what, "ok") != 0;
          v->lost_releases += strcmp (what, "lost") == 0;
        }
    }
  /* A section cut short by the end (its client killed) is not judged. */
  g_hash_table_iter_init (&iter, sections);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Section *s = value;

      if (s->ended && g_hash_table_contains (overlapped, s) && !s->told)
        v->untold_overlaps++;
    }
}

static void
exited_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  *(gboolean *) data = TRUE;
}

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Whether @process ended before @deadline_us (the monotonic clock). */
static gboolean
wait_exit (GSubprocess *process,
           gint64       deadline_us)
{
  gboolean exited = FALSE;
  guint wake = g_timeout_add (100, wake_cb, NULL);

  g_subprocess_wait_async (process, NULL, exited_cb, &exited);
  while (!exited && g_get_monotonic_time () < deadline_us)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (wake);
  if (!exited)
    {
      g_subprocess_force_exit (process);
      while (!exited)
        g_main_context_iteration (NULL, TRUE);
      return FALSE;
    }
  return TRUE;
}

typedef enum
{
  HEAL,
  CUT_FROM_PEERS,
  CUT_FROM_CLIENTS,
  PAUSE,
  RESTART,
  NO_QUORUM,
  PAUSE_CLIENT,
  N_FAULTS,
} Fault;

static const char *fault_names[] = { "heal", "cut-from-peers", "cut-from-clients", "pause",
                                     "restart", "no-quorum", "pause-client" };

/* The PID of a client inside its section now (a B line without its X), or 0. */
static int
holder_now (const char *log_path)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  int pid = 0;

  g_assert_true (g_file_get_contents (log_path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      int line_pid;

      if (lines[i][0] == '\0' || sscanf (lines[i] + 1, "%d", &line_pid) != 1)
        continue;
      if (lines[i][0] == 'B')
        pid = line_pid;
      else if (lines[i][0] == 'X' && line_pid == pid)
        pid = 0;
    }
  return pid;
}

static void
heal (EtcdNetCluster *net,
      gboolean       *paused)
{
  EtcdCluster *cluster = etcd_net_cluster (net);

  for (guint i = 0; i < ETCD_CLUSTER_SIZE; i++)
    {
      etcd_net_cut_from_peers (net, i, FALSE);
      etcd_net_cut_from_clients (net, i, FALSE);
      if (paused[i])
        etcd_server_pause (cluster->members[i], FALSE);
      paused[i] = FALSE;
    }
}

static void
test_jepsen (void)
{
  const char *from_env = g_getenv ("FL_JEPSEN_SECONDS");
  gint64 seconds = from_env != NULL ? g_ascii_strtoll (from_env, NULL, 10) : DEFAULT_SECONDS;
  g_autoptr(EtcdNetCluster) net = NULL;
  g_autofree char *reason = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *counter = NULL;
  g_autofree char *counter_text = NULL;
  g_autofree char *end = NULL;
  GSubprocess *clients[CLIENTS];
  gboolean paused[ETCD_CLUSTER_SIZE] = { FALSE };
  int paused_client = -1;
  guint counts[N_FAULTS] = { 0 };
  EtcdCluster *cluster;
  GRand *rand = g_rand_new ();
  guint64 value = 0, highest = 0, accepted_count = 0;
  Verdict v = { 0 };
  gint64 end_us;

  if (skip_reason != NULL)
    {
      g_test_skip (skip_reason);
      return;
    }
  net = etcd_net_cluster_start (&reason);
  if (net == NULL)
    {
      g_test_skip (reason);
      return;
    }
  cluster = etcd_net_cluster (net);
  dir = g_dir_make_tmp ("fl-etcd-jepsen-XXXXXX", NULL);
  log_path = g_build_filename (dir, "log", NULL);
  counter = g_build_filename (dir, "counter", NULL);
  g_assert_true (g_file_set_contents (log_path, "", 0, NULL));
  g_assert_true (g_file_set_contents (counter, "", 0, NULL));

  end_us = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;
  end = g_strdup_printf ("%" G_GINT64_FORMAT, end_us);
  for (guint i = 0; i < CLIENTS; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *uri = etcd_cluster_uri (cluster, i % ETCD_CLUSTER_SIZE, "jepsen");

      clients[i] = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, self_path, "--client",
                                     uri, log_path, counter, end, NULL);
      g_assert_no_error (error);
    }

  /* The nemesis: a fault, or a heal, every 1-3 s (the workload's pace, not a wait for it). */
  while (g_get_monotonic_time () < end_us)
    {
      Fault fault = g_rand_int_range (rand, 0, N_FAULTS);
      guint i = g_rand_int_range (rand, 0, ETCD_CLUSTER_SIZE);

      counts[fault]++;
      heal (net, paused);
      if (paused_client >= 0)
        g_subprocess_send_signal (clients[paused_client], SIGCONT);
      paused_client = -1;
      switch (fault)
        {
        case HEAL:
          break;
        case CUT_FROM_PEERS:
          etcd_net_cut_from_peers (net, i, TRUE);
          break;
        case CUT_FROM_CLIENTS:
          etcd_net_cut_from_clients (net, i, TRUE);
          break;
        case PAUSE:
          etcd_server_pause (cluster->members[i], TRUE);
          paused[i] = TRUE;
          break;
        case RESTART:
          etcd_cluster_kill (cluster, i);  /* SIGKILL, then started again on its data */
          etcd_net_restart (net, i);
          break;
        case NO_QUORUM:
          etcd_net_cut_from_peers (net, i, TRUE);
          etcd_net_cut_from_peers (net, (i + 1) % ETCD_CLUSTER_SIZE, TRUE);
          break;
        case PAUSE_CLIENT:
          {
            /* The holder, if one is inside its section: Jepsen's "pause the leader". */
            g_autofree char *holder = g_strdup_printf ("%d", holder_now (log_path));

            paused_client = g_rand_int_range (rand, 0, CLIENTS);
            for (guint c = 0; c < CLIENTS; c++)
              if (g_strcmp0 (g_subprocess_get_identifier (clients[c]), holder) == 0)
                paused_client = (int) c;
            g_subprocess_send_signal (clients[paused_client], SIGSTOP);
          }
          break;
        default:
          g_assert_not_reached ();
        }
      /* The nemesis' pace, not a wait for anything; a paused client stays paused past its
       * 3 s lease. */
      g_usleep (g_rand_int_range (rand, fault == PAUSE_CLIENT ? 3000 : 1000,
                                  fault == PAUSE_CLIENT ? 6000 : 3000) * 1000);
    }
  heal (net, paused);
  if (paused_client >= 0)
    g_subprocess_send_signal (clients[paused_client], SIGCONT);

  /* Every client ends within its acquire's timeout and a release's bound (10 s) of the end:
   * none is left blocked. */
  for (guint i = 0; i < CLIENTS; i++)
    {
      gboolean ended = wait_exit (clients[i], end_us +
                                  fl_test_scaled_ms (ACQUIRE_MS + 10000 + 5000) * 1000);

      if (!ended)
        g_test_message ("client %u was still blocked after the end", i);
      g_assert_true (ended);
      g_assert_true (g_subprocess_get_successful (clients[i]));
      g_object_unref (clients[i]);
    }

  check_log (log_path, &v);
  g_assert_true (g_file_get_contents (counter, &counter_text, NULL, NULL));
  if (counter_text[0] != '\0')
    g_assert_cmpint (sscanf (counter_text, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                             G_GUINT64_FORMAT, &value, &highest, &accepted_count), ==, 3);
  g_test_message ("%" G_GINT64_FORMAT " s, %d clients: %u sections, %u writes accepted, %u "
                  "refused by the fence, %u skipped by a holder told it lost, %u releases "
                  "FL_ERROR_LOST, %u acquires failed (timeout, no quorum); %u overlaps, %u "
                  "untold; counter %" G_GUINT64_FORMAT " for %" G_GUINT64_FORMAT " accepted "
                  "writes; %u token regressions",
                  seconds, CLIENTS, v.sections, v.accepted, v.refused, v.told_before_write,
                  v.lost_releases, v.failed_acquires, v.overlaps, v.untold_overlaps, value,
                  accepted_count, v.token_regressions);
  for (guint f = 0; f < N_FAULTS; f++)
    g_test_message ("nemesis: %s x%u", fault_names[f], counts[f]);

  g_assert_cmpuint (v.sections, >, 0);
  g_assert_cmpuint (v.untold_overlaps, ==, 0);
  g_assert_cmpuint (value, ==, accepted_count);            /* no lost increment */
  g_assert_cmpuint (accepted_count, ==, v.accepted);
  g_assert_cmpuint (v.token_regressions, ==, 0);

  g_rand_free (rand);
  g_unlink (log_path);
  g_unlink (counter);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  if (argc == 6 && strcmp (argv[1], "--client") == 0)
    return client (argv[2], argv[3], argv[4], g_ascii_strtoll (argv[5], NULL, 10));

  /* Before any thread: a namespace is entered by the whole process only while it has one. */
  etcd_netns_enter (&skip_reason);
  g_test_init (&argc, &argv, NULL);
  self_path = argv[0];

  g_test_add_func ("/etcd/jepsen/fenced-clients-under-faults", test_jepsen);

  return g_test_run ();
}
