/* flctl-demo.c: `flctl demo DIR`, a directory with every state an operator may meet
 *
 * The Lock Inspector's demo mode and its screenshots run this same code: they spawn
 * `flctl demo DIR`, wait for the line "ready" on its standard output, and end it with SIGTERM,
 * which ends the live holders too (they get SIGTERM when demo exits, however it exits, and
 * release their locks); demo also ends when the process that started it dies. With --detach,
 * demo exits after "ready" and the holders keep running.
 *
 * Real locks are made by real libfl holders (`flctl hold`, this binary re-executed); only the
 * states libfl itself never writes (a PID that was reused, proven by its identity xattr; an
 * empty lock; orphans) are written here, in the exact on-disk format of docs/protocol.md.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <glib/gstdio.h>

#include "flctl-private.h"

#define HOLDER_START_TIMEOUT_US (20 * G_USEC_PER_SEC)

typedef struct
{
  const char *directory;
  gboolean    detach;
  char       *self_exe;
  pid_t       demo_pid;
  GArray     *holders;   /* GPid of the live holders */
  int         made;
} Demo;

/* Runs in the holder between fork() and exec(): only async-signal-safe calls. */
static void
holder_setup_cb (gpointer user_data)
{
  const Demo *demo = user_data;

  if (demo->detach)
    {
      /* Out of the terminal's process group: Ctrl+C in the shell leaves them running. */
      setsid ();
      return;
    }
  /* Whatever way demo ends, SIGKILL included, its holders end with it. */
  prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
  if (getppid () != demo->demo_pid)
    _exit (1);
}

static char *
read_line (int      fd,
           gint64   deadline_us,
           GError **error)
{
  g_autoptr(GString) line = g_string_new (NULL);

  for (;;)
    {
      GPollFD poll_fd = { fd, G_IO_IN, 0 };
      gint64 left_ms = (deadline_us - g_get_monotonic_time ()) / 1000;
      char c;
      ssize_t n;

      if (left_ms <= 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, _("no answer in time"));
          return NULL;
        }
      if (g_poll (&poll_fd, 1, (int) MIN (left_ms, G_MAXINT)) < 0 && errno != EINTR)
        break;
      if (poll_fd.revents == 0)
        continue;
      n = read (fd, &c, 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      if (c == '\n')
        return g_string_free (g_steal_pointer (&line), FALSE);
      g_string_append_c (line, c);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, _("it exited before holding the lock"));
  return NULL;
}

/* Starts `flctl hold` on TARGET and returns its PID once it holds the lock, or 0. */
static GPid
start_holder (Demo       *demo,
              const char *target,
              const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  char *argv[] = { demo->self_exe, (char *) "hold", (char *) "--name", (char *) name,
                   (char *) target, NULL };
  GSpawnFlags flags = G_SPAWN_DO_NOT_REAP_CHILD;
  GPid pid = 0;
  int out = -1;

  if (demo->detach)
    flags |= G_SPAWN_STDERR_TO_DEV_NULL;
  if (!g_spawn_async_with_pipes (NULL, argv, NULL, flags, holder_setup_cb, demo, &pid, NULL, &out,
                                 NULL, &error))
    {
      flctl_print_error ("demo", _("cannot start a holder: %s"), error->message);
      return 0;
    }
  line = read_line (out, g_get_monotonic_time () + HOLDER_START_TIMEOUT_US, &error);
  close (out);
  if (line == NULL || !g_str_has_prefix (line, "held "))
    {
      flctl_print_error ("demo", _("the holder of %s failed: %s"), target,
                         error != NULL ? error->message : line);
      kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      return 0;
    }
  return pid;
}

static void
report (Demo       *demo,
        const char *state,
        const char *path,
        const char *description)
{
  g_autofree char *shown = flctl_printable (path);

  g_print ("%-8s %-44s %s\n", state, shown, description);
  demo->made++;
}

/* Writes a file the way another process would have left it: CONTENT, written AGE_S ago. */
static gboolean
write_file (const char *path,
            const char *content,
            gint64      age_s)
{
  struct timespec times[2];
  gsize length = strlen (content);
  int fd;

  fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0)
    goto failed;
  if (length > 0 && write (fd, content, length) != (ssize_t) length)
    goto failed_fd;
  times[0].tv_sec = times[1].tv_sec = g_get_real_time () / G_USEC_PER_SEC - age_s;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  if (futimens (fd, times) != 0)
    goto failed_fd;
  close (fd);
  return TRUE;

failed_fd:
  {
    int saved = errno;

    close (fd);
    errno = saved;
  }
failed:
  flctl_print_error ("demo", _("cannot write %s: %s"), path, g_strerror (errno));
  return FALSE;
}

static char *
demo_path (Demo       *demo,
           const char *name)
{
  return g_build_filename (demo->directory, name, NULL);
}

static gboolean
live_holder (Demo       *demo,
             const char *target_name,
             const char *process,
             const char *what,
             GPid       *pid_out)
{
  g_autofree char *target = demo_path (demo, target_name);
  g_autofree char *lock = fl_lock_path_for (target);
  g_autofree char *description = NULL;
  GPid pid;

  g_file_set_contents (target, "", 0, NULL);
  pid = start_holder (demo, target, process);
  if (pid == 0)
    return FALSE;
  g_array_append_val (demo->holders, pid);
  description = g_strdup_printf ("PID %d (%s), %s", (int) pid, process, what);
  report (demo, "held", lock, description);
  if (pid_out != NULL)
    *pid_out = pid;
  return TRUE;
}

/* Copies the identity of the live holder's lock @model_name to @path, with start ticks that
 * are not that process's: what an earlier libfl holder under the same PID would have left. */
static gboolean
write_reused_identity (Demo       *demo,
                       const char *model_name,
                       const char *path)
{
  g_autofree char *model = demo_path (demo, model_name);
  g_auto(GStrv) fields = NULL;
  g_autofree char *value = NULL;
  char buf[256];
  gssize n;
  guint64 ticks;

  n = getxattr (model, "user.libfl.holder", buf, sizeof buf - 1);
  if (n <= 0)
    return FALSE;
  buf[n] = '\0';
  /* "2 <pid> <start ticks, hex> <boot id> <pidns> <kernel lock> <time namespace>" */
  fields = g_strsplit (buf, " ", 8);
  if (g_strv_length (fields) != 7)
    return FALSE;
  ticks = g_ascii_strtoull (fields[2], NULL, 16);
  value = g_strdup_printf ("2 %s %" G_GINT64_MODIFIER "x %s %s 0 %s", fields[1],
                           ticks > 0 ? ticks - 1 : ticks + 1, fields[3], fields[4], fields[6]);
  return setxattr (path, "user.libfl.holder", value, strlen (value), 0) == 0;
}

static gboolean
populate (Demo *demo)
{
  g_autofree char *nested = demo_path (demo, "projects/site");
  g_autofree char *dead_target = demo_path (demo, "report.csv");
  g_autofree char *dead_lock = fl_lock_path_for (dead_target);
  g_autofree char *reused_lock = demo_path (demo, "session.db.lock");
  g_autofree char *empty_lock = demo_path (demo, "upload.part.lock");
  g_autofree char *temp = NULL;
  g_autofree char *graveyard = NULL;
  g_autofree char *foreign = demo_path (demo, "legacy.lock");
  g_autofree char *pid_text = NULL;
  g_autofree char *text = NULL;
  GPid reusable;
  GPid dead;

  if (g_mkdir_with_parents (nested, 0755) != 0)
    {
      flctl_print_error ("demo", _("cannot create %s: %s"), nested, g_strerror (errno));
      return FALSE;
    }

  if (!live_holder (demo, "database.sqlite", "db-writer", _("a live holder"), &reusable)
      || !live_holder (demo, "backup.tar", "backup", _("a live holder"), NULL)
      || !live_holder (demo, "projects/site/index.html", "site-builder",
                       _("a live holder in a nested folder"), NULL))
    return FALSE;

  /* A real libfl holder killed outright: its lock stays, its kernel lock went with it. */
  g_file_set_contents (dead_target, "", 0, NULL);
  dead = start_holder (demo, dead_target, "report-gen");
  if (dead == 0)
    return FALSE;
  kill (dead, SIGKILL);
  waitpid (dead, NULL, 0);
  text = g_strdup_printf (_("PID %d (report-gen), killed with SIGKILL"), (int) dead);
  report (demo, "stale", dead_lock, text);
  g_clear_pointer (&text, g_free);

  /* A lock naming a PID that runs now, with the identity (docs/protocol.md, section 1) of an
   * earlier process under that PID: start ticks that differ, so the reuse is proven. A file
   * time proves nothing (issue 18): without the identity this lock would be alive. */
  pid_text = g_strdup_printf ("%d", (int) reusable);
  if (!write_file (reused_lock, pid_text, 24 * 60 * 60))
    return FALSE;
  if (write_reused_identity (demo, "database.sqlite.lock", reused_lock))
    {
      text = g_strdup_printf (_("PID %d, alive, but its identity names an earlier process: "
                                "reused"), (int) reusable);
      report (demo, "stale", reused_lock, text);
    }
  else
    {
      text = g_strdup_printf (_("PID %d, alive; no identity could be written here, so "
                                "nothing proves a reuse"), (int) reusable);
      report (demo, "held", reused_lock, text);
    }
  g_clear_pointer (&text, g_free);

  /* As flock(1) leaves one. The original module goes by its mtime and would take it over at
   * once; libfl by its last change, which touch cannot move back: it is unknown for the first
   * 30 s of the demo (an operator may force it), stale after (docs/protocol.md, J4). */
  if (!write_file (empty_lock, "", 10 * 60))
    return FALSE;
  report (demo, "unknown", empty_lock,
          _("empty, its mtime 10 min ago: stale 30 s after it was made (reclaim --force "
            "before)"));

  g_clear_pointer (&pid_text, g_free);
  pid_text = g_strdup_printf ("%d", (int) dead);
  temp = g_strdup_printf ("%s.%d.%08x.tmp", dead_lock, (int) dead, g_random_int ());
  if (!write_file (temp, pid_text, 5 * 60))
    return FALSE;
  text = g_strdup_printf (_("temp file of the killed PID %d"), (int) dead);
  report (demo, "orphan", temp, text);
  g_clear_pointer (&text, g_free);

  graveyard = g_strdup_printf ("%s/cache.idx.lock.gy.%d.%08x", demo->directory, (int) dead,
                               g_random_int ());
  if (!write_file (graveyard, pid_text, 5 * 60))
    return FALSE;
  text = g_strdup_printf (_("graveyard file of the killed PID %d"), (int) dead);
  report (demo, "orphan", graveyard, text);

  /* Another library's lock (a directory): reported, never touched. */
  if (g_mkdir (foreign, 0755) != 0)
    {
      flctl_print_error ("demo", _("cannot create %s: %s"), foreign, g_strerror (errno));
      return FALSE;
    }
  report (demo, "foreign", foreign, _("a directory named like a lock"));
  return TRUE;
}

static void
stop_holders (Demo *demo)
{
  for (guint i = 0; i < demo->holders->len; i++)
    {
      GPid pid = g_array_index (demo->holders, GPid, i);

      if (pid > 0)
        kill (pid, SIGTERM);
    }
  for (guint i = 0; i < demo->holders->len; i++)
    {
      GPid pid = g_array_index (demo->holders, GPid, i);

      if (pid > 0)
        waitpid (pid, NULL, 0);
    }
  g_array_set_size (demo->holders, 0);
}

static gboolean
check_directory (const char *directory)
{
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GError) error = NULL;

  if (g_mkdir_with_parents (directory, 0755) != 0)
    {
      flctl_print_error ("demo", _("cannot create %s: %s"), directory, g_strerror (errno));
      return FALSE;
    }
  dir = g_dir_open (directory, 0, &error);
  if (dir == NULL)
    {
      flctl_print_error ("demo", "%s", error->message);
      return FALSE;
    }
  if (g_dir_read_name (dir) != NULL)
    {
      flctl_print_error ("demo", _("%s is not empty: demo only fills an empty or new directory"),
                         directory);
      return FALSE;
    }
  return TRUE;
}

static gboolean
quit_cb (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_CONTINUE;
}

int
flctl_demo_main (const FlctlArgs *args)
{
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GError) error = NULL;
  Demo demo = { 0 };
  guint sources[3];
  int status = FLCTL_EXIT_OK;

  demo.directory = args->operands[0];
  demo.detach = args->detach;
  demo.demo_pid = getpid ();
  demo.holders = g_array_new (FALSE, FALSE, sizeof (GPid));
  demo.self_exe = g_file_read_link ("/proc/self/exe", &error);
  if (demo.self_exe == NULL)
    {
      flctl_print_error ("demo", "%s", error->message);
      g_array_unref (demo.holders);
      return FLCTL_EXIT_IO;
    }

  /* Whoever started demo (the inspector, a shell) may die without a word: demo, and so its
   * holders, end with it. */
  if (!demo.detach)
    prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);

  /* Installed before the holders start, so an early SIGTERM still stops them. */
  loop = g_main_loop_new (NULL, FALSE);
  sources[0] = g_unix_signal_add (SIGTERM, quit_cb, loop);
  sources[1] = g_unix_signal_add (SIGINT, quit_cb, loop);
  sources[2] = g_unix_signal_add (SIGHUP, quit_cb, loop);

  if (!check_directory (demo.directory))
    {
      status = FLCTL_EXIT_REFUSED;
    }
  else if (!populate (&demo))
    {
      status = FLCTL_EXIT_IO;
    }
  else
    {
      /* The line the inspector waits for: documented in flctl(1), keep it exactly so. */
      g_print ("ready\n");
      fflush (stdout);
      if (demo.detach)
        {
          g_printerr (_("flctl demo: the live holders keep running; end them with "
                        "'kill %d %d %d'\n"),
                      g_array_index (demo.holders, GPid, 0), g_array_index (demo.holders, GPid, 1),
                      g_array_index (demo.holders, GPid, 2));
          g_array_set_size (demo.holders, 0);
        }
      else
        {
          if (isatty (STDERR_FILENO) == 1)
            g_printerr (_("Press Ctrl+C to end the live holders.\n"));
          g_main_loop_run (loop);
        }
    }

  stop_holders (&demo);
  for (gsize i = 0; i < G_N_ELEMENTS (sources); i++)
    g_source_remove (sources[i]);
  g_array_unref (demo.holders);
  g_free (demo.self_exe);
  return status;
}
