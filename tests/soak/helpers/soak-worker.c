/* soak-worker.c: one of the soak test's processes, looping acquire / critical section / release
 *
 *   soak-worker [--daemon] LOCK_DIR STATE_DIR LOG N_TARGETS SEED
 *
 * Takes the lock of a random target LOCK_DIR/t<k> with the public API, runs the critical section
 * (soak-section.c: a marker that catches two holders, and a counter that catches lost updates)
 * on STATE_DIR/t<k>.count, releases, and appends one line per event to LOG: "cs K",
 * "timeout K", "foreign K", "lost K", "overlap K PID ...", "error K ...". Stops when
 * STATE_DIR/STOP exists. Exit status: 0 when stopped, 3 on an overlap (FL_TEST_EXIT_OVERLAP), 4
 * on a failure.
 *
 * --daemon: one round as daemon() would run it: acquire, fork, the parent exits at once without
 * a release, the child runs the critical section, logs it and exits; its release only closes
 * its copy (it is not the holder), so the lock turns stale when the child is gone.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libfl/fl.h>

#include "fl-test-counter.h"
#include "soak-section.h"

static int log_fd = -1;

static void
log_line (const char *format,
          ...) G_GNUC_PRINTF (1, 2);

static void
log_line (const char *format,
          ...)
{
  g_autofree char *line = NULL;
  va_list args;
  gsize len;

  va_start (args, format);
  line = g_strdup_vprintf (format, args);
  va_end (args);

  /* One write() per line to an O_APPEND file: a SIGKILL never leaves half a line. */
  len = strlen (line);
  if (write (log_fd, line, len) != (gssize) len)
    exit (FL_TEST_EXIT_FAILED);
}

/* Evidence for the report: the other holder as /proc shows it, and the lock now. */
static void
log_overlap (int               k,
             const char       *target,
             const SoakHolder *other)
{
  g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) other->pid);
  g_autofree char *stat = NULL;
  g_autoptr(FlSnapshot) snapshot = fl_snapshot_new_for_target (target, NULL, NULL);

  if (!g_file_get_contents (stat_path, &stat, NULL, NULL))
    stat = g_strdup ("gone");
  g_strdelimit (stat, "\n", ' ');
  log_line ("overlap %d %d (start %" G_GUINT64_FORMAT ", %s); its stat: %.200s; "
            "the lock: PID %d, %s\n", k, (int) other->pid, other->start,
            soak_holder_is_alive (other) ? "alive" : "gone", stat,
            snapshot != NULL ? fl_snapshot_get_pid (snapshot) : -1,
            snapshot != NULL ? fl_snapshot_get_reason (snapshot) : "no lock");
}

static int
run_daemon (const char    *target,
            const char    *counter,
            int            k,
            FlLockOptions *options)
{
  g_autoptr(GError) error = NULL;
  FlLock *lock = fl_lock_acquire (target, options, NULL, &error);
  SoakHolder other = { 0, 0 };
  pid_t child;
  int ret;

  if (lock == NULL)
    {
      if (g_error_matches (error, FL_ERROR, FL_ERROR_TIMEOUT))
        log_line ("timeout %d\n", k);
      else if (g_error_matches (error, FL_ERROR, FL_ERROR_FOREIGN))
        log_line ("foreign %d\n", k);
      else
        {
          log_line ("error %d acquire %s %d %s\n", k, g_quark_to_string (error->domain),
                    error->code, error->message);
          return FL_TEST_EXIT_FAILED;
        }
      return 0;
    }

  child = fork ();
  if (child < 0)
    return FL_TEST_EXIT_FAILED;
  if (child > 0)
    _exit (0);  /* as daemon(): no release, no cleanup */

  ret = soak_critical_section (counter, &other);
  if (ret == FL_TEST_EXIT_OVERLAP)
    log_overlap (k, target, &other);
  else if (ret != 0)
    log_line ("error %d critical section %d\n", k, ret);
  else
    log_line ("cs %d\n", k);
  if (fl_lock_is_held (lock) || !fl_lock_release (lock, NULL))
    {
      log_line ("error %d the forked child took itself for the holder\n", k);
      ret = FL_TEST_EXIT_FAILED;
    }
  _exit (ret);
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autofree char *stop_path = NULL;
  g_autoptr(GRand) rand = NULL;
  const char *lock_dir, *state_dir;
  gboolean no_lock = g_strcmp0 (g_getenv ("FL_SOAK_NO_LOCK"), "1") == 0;
  gboolean daemon_mode = argc == 7 && g_str_equal (argv[1], "--daemon");
  int n_targets;

  if (daemon_mode)
    {
      argv++;
      argc--;
    }
  if (argc != 6)
    {
      g_printerr ("usage: soak-worker [--daemon] LOCK_DIR STATE_DIR LOG N_TARGETS SEED\n");
      return FL_TEST_EXIT_FAILED;
    }
  lock_dir = argv[1];
  state_dir = argv[2];
  n_targets = atoi (argv[4]);
  rand = g_rand_new_with_seed ((guint32) strtoul (argv[5], NULL, 10) ^ (guint32) getpid ());
  stop_path = g_build_filename (state_dir, "STOP", NULL);

  log_fd = open (argv[3], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (log_fd < 0 || n_targets < 1)
    return FL_TEST_EXIT_FAILED;

  /* Long enough to outlast a SIGSTOPped holder most of the time; a timeout is not a failure. */
  fl_lock_options_set_timeout_ms (options, 3000);

  if (daemon_mode)
    {
      int k = g_rand_int_range (rand, 0, n_targets);
      g_autofree char *target = g_strdup_printf ("%s/t%d", lock_dir, k);
      g_autofree char *counter = g_strdup_printf ("%s/t%d.count", state_dir, k);

      return run_daemon (target, counter, k, options);
    }

  while (!g_file_test (stop_path, G_FILE_TEST_EXISTS))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = NULL;
      g_autofree char *target = NULL;
      g_autofree char *counter = NULL;
      int k = g_rand_int_range (rand, 0, n_targets);
      SoakHolder other = { 0, 0 };
      int ret;

      target = g_strdup_printf ("%s/t%d", lock_dir, k);
      counter = g_strdup_printf ("%s/t%d.count", state_dir, k);

      /* FL_SOAK_NO_LOCK=1 checks the harness: without the lock, it must see overlaps. */
      if (!no_lock)
        lock = fl_lock_acquire (target, options, NULL, &error);
      if (lock == NULL && !no_lock)
        {
          if (g_error_matches (error, FL_ERROR, FL_ERROR_TIMEOUT))
            log_line ("timeout %d\n", k);
          else if (g_error_matches (error, FL_ERROR, FL_ERROR_FOREIGN))
            {
              /* The chaos put a FIFO or a directory where the lock goes: told, not hung.
               * Pace the retries; this is no synchronisation. */
              log_line ("foreign %d\n", k);
              g_usleep (2000);
            }
          else
            {
              log_line ("error %d acquire %s %d %s\n", k, g_quark_to_string (error->domain),
                        error->code, error->message);
              return FL_TEST_EXIT_FAILED;
            }
          continue;
        }

      ret = soak_critical_section (counter, &other);
      if (ret == FL_TEST_EXIT_OVERLAP)
        {
          log_overlap (k, target, &other);
          return ret;
        }
      if (ret != 0)
        {
          log_line ("error %d critical section %d\n", k, ret);
          return FL_TEST_EXIT_FAILED;
        }

      if (lock != NULL && !fl_lock_release (lock, &error))
        {
          log_line ("%s %d %s\n", g_error_matches (error, FL_ERROR, FL_ERROR_LOST) ? "lost" : "error",
                    k, error->message);
          return FL_TEST_EXIT_FAILED;
        }
      log_line ("cs %d\n", k);
    }

  return 0;
}
