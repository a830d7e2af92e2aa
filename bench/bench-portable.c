/* bench-portable.c: libfl against a bare dotlock, on every platform libfl builds for
 *
 * fl-bench (bench-main.c and friends) needs fork(), flock(2), strace and /proc, so it is Linux
 * only. This program measures the two rows of it that make sense everywhere, with libfl and
 * GLib only plus one #ifdef'd baseline, so that the same figures come from Linux and from
 * Windows (under wine here):
 *
 *   uncontended  one process, acquire + release of a free lock, libfl and the dotlock
 *                interleaved round by round (the order alternates);
 *   contended    P processes (this program again, run with --worker through GSubprocess) x K
 *                read-increment-write critical sections on one counter file, the count checked
 *                exactly after every run.
 *
 * The dotlock is the floor of any lock that is a name: create the name exclusively, write the
 * PID, close; delete it to release. On Windows CreateFileW (CREATE_NEW, every share mode) +
 * WriteFile + CloseHandle / DeleteFileW; elsewhere open (O_CREAT | O_EXCL) + write + close /
 * unlink. Its waiters retry without sleeping, yielding the processor between attempts
 * (SwitchToThread / sched_yield): a spin is the fastest a dotlock can hand over, so the
 * contended ratio is against the dotlock's best case, not against the original module's 15 ms
 * poll (that one is in fl-bench's "original" column on Linux).
 *
 * Each figure is the median of the rounds with their min-max spread; a ratio is libfl's median
 * over the baseline's, from the same run. Workers report "ready" and wait for the start; the
 * clock runs from the start to the last "done", so process start-up and exit (slow under wine)
 * are not counted.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>
#include <libfl/fl.h>

#ifdef G_OS_WIN32
# include <io.h>
# include <windows.h>
#else
# include <sched.h>
# include <unistd.h>
#endif

#ifndef O_BINARY
# define O_BINARY 0
#endif

#define COUNTER_NAME "counter"
#define COUNTER_WIDTH 20
#define LOCK_TIMEOUT_MS 60000   /* a bench that times out has found a bug, not a figure */

typedef enum
{
  METHOD_DOTLOCK,
  METHOD_LIBFL,
  N_METHODS,
} MethodId;

static const char *const method_names[N_METHODS] = { "dotlock", "libfl" };

typedef struct
{
  MethodId       id;
  char          *target;        /* what libfl is given */
  char          *dotlock;       /* target.dotlock: a name of its own, libfl's is target.lock */
#ifdef G_OS_WIN32
  gunichar2     *dotlock_w;
#endif
  char           pid_text[24];
  gsize          pid_len;
  FlLockOptions *options;
  FlLock        *held;
} Locker;

static G_GNUC_NORETURN G_GNUC_PRINTF (1, 2) void
die (const char *format,
     ...)
{
  va_list args;

  fputs ("fl-bench-portable: ", stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  exit (1);
}

static Locker *
locker_new (MethodId    id,
            const char *target)
{
  Locker *self = g_new0 (Locker, 1);
  unsigned long pid;

  self->id = id;
  self->target = g_strdup (target);
  self->dotlock = g_strconcat (target, ".dotlock", NULL);
#ifdef G_OS_WIN32
  self->dotlock_w = g_utf8_to_utf16 (self->dotlock, -1, NULL, NULL, NULL);
  if (self->dotlock_w == NULL)
    die ("%s: not UTF-8", self->dotlock);
  pid = GetCurrentProcessId ();
#else
  pid = (unsigned long) getpid ();
#endif
  self->pid_len = (gsize) g_snprintf (self->pid_text, sizeof self->pid_text, "%lu\n", pid);
  self->options = fl_lock_options_new ();
  fl_lock_options_set_timeout_ms (self->options, LOCK_TIMEOUT_MS);
  return self;
}

static void
locker_free (Locker *self)
{
  g_clear_object (&self->held);
  fl_lock_options_free (self->options);
  g_free (self->target);
  g_free (self->dotlock);
#ifdef G_OS_WIN32
  g_free (self->dotlock_w);
#endif
  g_free (self);
}

/* One exclusive create: TRUE if taken, FALSE if the name exists (busy); dies on anything else. */
static gboolean
dotlock_try (Locker *self)
{
#ifdef G_OS_WIN32
  HANDLE h = CreateFileW (self->dotlock_w, GENERIC_WRITE,
                          FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                          CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
  DWORD written;

  if (h == INVALID_HANDLE_VALUE)
    {
      DWORD code = GetLastError ();

      /* Access denied is what a name pending deletion answers on real Windows: busy too. */
      if (code == ERROR_FILE_EXISTS || code == ERROR_ALREADY_EXISTS
          || code == ERROR_ACCESS_DENIED)
        return FALSE;
      die ("%s: CreateFileW: error %lu", self->dotlock, (unsigned long) code);
    }
  if (!WriteFile (h, self->pid_text, (DWORD) self->pid_len, &written, NULL)
      || written != self->pid_len)
    die ("%s: WriteFile: error %lu", self->dotlock, (unsigned long) GetLastError ());
  CloseHandle (h);
#else
  int fd = open (self->dotlock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

  if (fd < 0)
    {
      if (errno == EEXIST)
        return FALSE;
      die ("%s: open: %s", self->dotlock, g_strerror (errno));
    }
  if (write (fd, self->pid_text, self->pid_len) != (gssize) self->pid_len)
    die ("%s: write: %s", self->dotlock, g_strerror (errno));
  close (fd);
#endif
  return TRUE;
}

static void
dotlock_release (Locker *self)
{
#ifdef G_OS_WIN32
  if (!DeleteFileW (self->dotlock_w))
    die ("%s: DeleteFileW: error %lu", self->dotlock, (unsigned long) GetLastError ());
#else
  if (unlink (self->dotlock) < 0)
    die ("%s: unlink: %s", self->dotlock, g_strerror (errno));
#endif
}

static void
yield_cpu (void)
{
#ifdef G_OS_WIN32
  SwitchToThread ();
#else
  sched_yield ();
#endif
}

static void
locker_acquire (Locker *self)
{
  if (self->id == METHOD_LIBFL)
    {
      g_autoptr(GError) error = NULL;

      g_assert (self->held == NULL);
      self->held = fl_lock_acquire (self->target, self->options, NULL, &error);
      if (self->held == NULL)
        die ("libfl: %s", error->message);
      return;
    }

  /* Sleep-free retry; the clock is read every 1024 attempts so it costs nothing. */
  gint64 deadline = 0;

  for (guint64 attempt = 0; !dotlock_try (self); attempt++)
    {
      if (attempt == 0)
        deadline = g_get_monotonic_time () + LOCK_TIMEOUT_MS * G_GINT64_CONSTANT (1000);
      else if (attempt % 1024 == 0 && g_get_monotonic_time () > deadline)
        die ("dotlock: %s still taken after %d ms", self->dotlock, LOCK_TIMEOUT_MS);
      yield_cpu ();
    }
}

static void
locker_release (Locker *self)
{
  if (self->id == METHOD_LIBFL)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = g_steal_pointer (&self->held);

      if (!fl_lock_release (lock, &error))
        die ("libfl: release: %s", error->message);
      return;
    }
  dotlock_release (self);
}

/* The counter: fixed width, so a critical section is one read and one write in place. */

static guint64
counter_read (int fd)
{
  char buf[COUNTER_WIDTH + 1];
  int n;

  if (lseek (fd, 0, SEEK_SET) != 0)
    die ("counter: lseek: %s", g_strerror (errno));
  n = read (fd, buf, COUNTER_WIDTH);
  if (n != COUNTER_WIDTH)
    die ("counter: short read (%d bytes)", n);
  buf[n] = '\0';
  return g_ascii_strtoull (buf, NULL, 10);
}

static void
counter_write (int     fd,
               guint64 value)
{
  char buf[COUNTER_WIDTH + 1];

  g_snprintf (buf, sizeof buf, "%0*" G_GUINT64_FORMAT, COUNTER_WIDTH, value);
  if (lseek (fd, 0, SEEK_SET) != 0 || write (fd, buf, COUNTER_WIDTH) != COUNTER_WIDTH)
    die ("counter: write: %s", g_strerror (errno));
}

static int
counter_open (const char *path)
{
  int fd = g_open (path, O_RDWR | O_BINARY, 0);

  if (fd < 0)
    die ("%s: %s", path, g_strerror (errno));
  return fd;
}

static MethodId
method_lookup (const char *name)
{
  for (guint m = 0; m < N_METHODS; m++)
    if (g_str_equal (name, method_names[m]))
      return (MethodId) m;
  die ("unknown method %s", name);
}

/* --worker METHOD TARGET COUNTER SECTIONS: prints "ready", waits for a byte (or EOF) on stdin,
 * does its sections, prints "done". */
static int
worker_main (char **argv)
{
  Locker *locker = locker_new (method_lookup (argv[0]), argv[1]);
  int fd = counter_open (argv[2]);
  guint64 sections = g_ascii_strtoull (argv[3], NULL, 10);

  /* One cycle before the start pays for first use (type registration, the process identity)
   * outside the clock. The counter is not touched. */
  locker_acquire (locker);
  locker_release (locker);
  fputs ("ready\n", stdout);
  fflush (stdout);
  (void) getchar ();

  for (guint64 i = 0; i < sections; i++)
    {
      locker_acquire (locker);
      counter_write (fd, counter_read (fd) + 1);
      locker_release (locker);
    }

  fputs ("done\n", stdout);
  fflush (stdout);
  close (fd);
  locker_free (locker);
  return 0;
}

/* The parent */

typedef struct
{
  const char *self_exe;
  char       *dir;
  guint       rounds;
  guint       cycles;
  guint       contended_rounds;
  guint       contended_total;
  guint      *procs;
  guint       n_procs;
} Config;

static void
remove_if_present (const char *path)
{
  if (g_remove (path) < 0 && errno != ENOENT)
    die ("%s: %s", path, g_strerror (errno));
}

static double
uncontended_ns (MethodId    id,
                const char *dir,
                guint       cycles)
{
  g_autofree char *target = g_build_filename (dir, "uncontended", NULL);
  Locker *locker = locker_new (id, target);
  gint64 start, elapsed;

  for (guint i = 0; i < MAX (cycles / 10, 10); i++)
    {
      locker_acquire (locker);
      locker_release (locker);
    }
  start = g_get_monotonic_time ();
  for (guint i = 0; i < cycles; i++)
    {
      locker_acquire (locker);
      locker_release (locker);
    }
  elapsed = g_get_monotonic_time () - start;
  locker_free (locker);
  return (double) elapsed * 1000.0 / cycles;
}

static char *
read_line_or_die (GDataInputStream *in,
                  const char       *expected,
                  const char       *what)
{
  g_autoptr(GError) error = NULL;
  char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);

  if (line == NULL)
    die ("%s: no \"%s\" from a worker: %s", what, expected,
         error != NULL ? error->message : "it closed its output (see its stderr)");
  g_strstrip (line);
  if (!g_str_equal (line, expected))
    die ("%s: a worker said \"%s\", not \"%s\"", what, line, expected);
  return line;
}

/* Nanoseconds per critical section, from the start to the last worker's "done". */
static double
contended_ns (const Config *config,
              MethodId      id,
              guint         p,
              guint         k)
{
  g_autofree char *target = g_build_filename (config->dir, "contended", NULL);
  g_autofree char *counter = g_build_filename (config->dir, COUNTER_NAME, NULL);
  g_autofree char *sections = g_strdup_printf ("%u", k);
  g_autofree GSubprocess **workers = g_new0 (GSubprocess *, p);
  g_autofree GDataInputStream **outs = g_new0 (GDataInputStream *, p);
  const char *name = method_names[id];
  gint64 begin, elapsed;
  guint64 count;
  int fd;

  if (!g_file_set_contents (counter, "00000000000000000000", COUNTER_WIDTH, NULL))
    die ("%s: cannot write", counter);

  for (guint i = 0; i < p; i++)
    {
      g_autoptr(GError) error = NULL;

      workers[i] = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE
                                     | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                     config->self_exe, "--worker", name, target, counter,
                                     sections, NULL);
      if (workers[i] == NULL)
        die ("spawning a worker: %s", error->message);
      outs[i] = g_data_input_stream_new (g_subprocess_get_stdout_pipe (workers[i]));
    }
  for (guint i = 0; i < p; i++)
    g_free (read_line_or_die (outs[i], "ready", name));

  begin = g_get_monotonic_time ();
  for (guint i = 0; i < p; i++)
    {
      GOutputStream *in = g_subprocess_get_stdin_pipe (workers[i]);

      if (!g_output_stream_write_all (in, "g", 1, NULL, NULL, NULL)
          || !g_output_stream_close (in, NULL, NULL))
        die ("%s: cannot start a worker", name);
    }
  for (guint i = 0; i < p; i++)
    g_free (read_line_or_die (outs[i], "done", name));
  elapsed = g_get_monotonic_time () - begin;

  for (guint i = 0; i < p; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!g_subprocess_wait_check (workers[i], NULL, &error))
        die ("%s: a worker failed: %s", name, error->message);
      g_object_unref (outs[i]);
      g_object_unref (workers[i]);
    }

  fd = counter_open (counter);
  count = counter_read (fd);
  close (fd);
  if (count != (guint64) p * k)
    die ("%s, P = %u: LOST UPDATES: the counter reads %" G_GUINT64_FORMAT
         " after %u x %u critical sections", name, p, count, p, k);
  remove_if_present (counter);
  return (double) elapsed * 1000.0 / ((double) p * k);
}

/* Statistics and the table, in bench-report.c's format */

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

typedef struct
{
  double median, lo, hi;
} Cell;

static Cell
cell_from (const double *values,
           guint         n)
{
  g_autofree double *sorted = g_memdup2 (values, n * sizeof (double));
  Cell cell;

  qsort (sorted, n, sizeof (double), compare_doubles);
  cell.median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  cell.lo = sorted[0];
  cell.hi = sorted[n - 1];
  return cell;
}

static char *
format_time (double ns)
{
  if (ns < 1e3)
    return g_strdup_printf ("%.0f ns", ns);
  if (ns < 1e4)
    return g_strdup_printf ("%.2f µs", ns / 1e3);
  if (ns < 1e6)
    return g_strdup_printf ("%.1f µs", ns / 1e3);
  if (ns < 1e7)
    return g_strdup_printf ("%.2f ms", ns / 1e6);
  return g_strdup_printf ("%.1f ms", ns / 1e6);
}

/* printf's widths count bytes; µs and ± are two. */
static void
print_padded (const char *text,
              guint       width)
{
  fputs (text, stdout);
  for (glong i = g_utf8_strlen (text, -1); i < (glong) width; i++)
    fputc (' ', stdout);
}

static void
print_cell (Cell cell)
{
  g_autofree char *value = format_time (cell.median);
  g_autofree char *text = NULL;
  double spread = cell.median > 0 ? (cell.hi - cell.lo) / 2 / cell.median * 100 : 0;

  text = g_strdup_printf (spread < 10 ? "%s ±%.1f%%" : "%s ±%.0f%%", value, spread);
  print_padded (text, 19);
}

static void
print_header (void)
{
  print_padded ("", 31);
  print_padded ("bare dotlock", 19);
  print_padded ("libfl", 19);
  fputs ("libfl/dotlock  per-round ratio (min-max)\n", stdout);
}

/* The per-round ratio pairs the methods of one round, which ran back to back: on a loaded
 * machine it moves less than the ratio of the medians. */
static void
print_row (const char   *label,
           const double *dotlock,
           const double *libfl,
           guint         n)
{
  g_autofree double *ratios = g_new (double, n);
  Cell base = cell_from (dotlock, n), mine = cell_from (libfl, n), ratio;
  g_autofree char *text = NULL;

  for (guint r = 0; r < n; r++)
    ratios[r] = libfl[r] / dotlock[r];
  ratio = cell_from (ratios, n);
  print_padded (label, 31);
  print_cell (base);
  print_cell (mine);
  text = g_strdup_printf ("%.2f×", mine.median / base.median);
  print_padded (text, 15);
  printf ("%.2f× (%.2f-%.2f)\n", ratio.median, ratio.lo, ratio.hi);
}

static const char *
platform_name (void)
{
#ifdef G_OS_WIN32
  typedef const char *(*WineVersionFunc) (void);
  HMODULE ntdll = GetModuleHandleW (L"ntdll.dll");
  WineVersionFunc wine_version = ntdll != NULL
    ? (WineVersionFunc) (void (*) (void)) GetProcAddress (ntdll, "wine_get_version") : NULL;
  static char name[64];

  if (wine_version == NULL)
    return "Windows";
  g_snprintf (name, sizeof name, "Windows under wine %s", wine_version ());
  return name;
#else
  return "Linux";
#endif
}

static void
run (const Config *config)
{
  guint rounds = config->rounds, crounds = config->contended_rounds;
  g_autofree double *uncontended = g_new0 (double, N_METHODS * rounds);
  g_autofree double *contended = g_new0 (double, config->n_procs * N_METHODS * crounds);
  gint64 started = g_get_monotonic_time ();

#define UNC(m, r) uncontended[(m) * rounds + (r)]
#define CON(c, m, r) contended[((c) * N_METHODS + (m)) * crounds + (r)]

  for (guint r = 0; r < rounds; r++)
    {
      fprintf (stderr, "uncontended: round %u of %u\n", r + 1, rounds);
      for (guint i = 0; i < N_METHODS; i++)
        {
          MethodId m = (MethodId) ((i + r) % N_METHODS);

          UNC (m, r) = uncontended_ns (m, config->dir, config->cycles);
        }
    }
  for (guint r = 0; r < crounds; r++)
    for (guint c = 0; c < config->n_procs; c++)
      {
        guint p = config->procs[c];
        guint k = MAX (config->contended_total / p, 1);

        fprintf (stderr, "contended: round %u of %u, P = %u, K = %u\n", r + 1, crounds, p, k);
        for (guint i = 0; i < N_METHODS; i++)
          {
            MethodId m = (MethodId) ((i + r + c) % N_METHODS);

            CON (c, m, r) = contended_ns (config, m, p, k);
          }
      }

  printf ("fl-bench-portable on %s, libfl %s, in %s\n", platform_name (),
          PACKAGE_VERSION, config->dir);
  printf ("\n1. Uncontended acquire+release, one process\n"
          "  (median of %u rounds of %u cycles, ± half their min-max range; methods "
          "interleaved)\n", rounds, config->cycles);
  print_header ();
  print_row ("cycle", &UNC (METHOD_DOTLOCK, 0), &UNC (METHOD_LIBFL, 0), rounds);

  printf ("\n2. Contended: P processes, one counter\n"
          "  (P processes x K read-increment-write critical sections, K = %u / P, final count "
          "checked exactly; median of %u rounds, ± half their min-max range)\n",
          config->contended_total, crounds);
  print_header ();
  for (guint c = 0; c < config->n_procs; c++)
    {
      g_autofree char *label = g_strdup_printf ("P = %u, per critical section",
                                                config->procs[c]);

      print_row (label, &CON (c, METHOD_DOTLOCK, 0), &CON (c, METHOD_LIBFL, 0), crounds);
    }
  printf ("  lost updates: 0 (every run checked exactly)\n");
  printf ("\nNotes\n"
          "  - bare dotlock: %s + write PID + close / %s; its waiters retry without "
          "sleeping, yielding (%s) between attempts\n"
          "  - libfl: fl_lock_acquire() + fl_lock_release(), timeout %d s, waiting as the "
          "library does\n"
          "  - %.1f s in all\n",
#ifdef G_OS_WIN32
          "CreateFileW (CREATE_NEW)", "DeleteFileW", "SwitchToThread",
#else
          "open (O_CREAT|O_EXCL)", "unlink", "sched_yield",
#endif
          LOCK_TIMEOUT_MS / 1000, (g_get_monotonic_time () - started) / 1e6);
#undef UNC
#undef CON
}

static guint *
parse_procs (const char *text,
             guint      *n)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);
  guint *procs = g_new0 (guint, g_strv_length (parts) + 1);

  *n = 0;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint64 p = g_ascii_strtoull (parts[i], NULL, 10);

      if (p < 1 || p > 64)
        die ("--procs: %s is not between 1 and 64", parts[i]);
      procs[(*n)++] = (guint) p;
    }
  if (*n == 0)
    die ("--procs: empty");
  return procs;
}

int
main (int    argc,
      char **argv)
{
  gboolean full = FALSE;
  int rounds = 0, cycles = 0, contended_rounds = 0, contended_total = 0;
  g_autofree char *procs = NULL;
  g_autofree char *dir = NULL;
  GOptionEntry entries[] = {
    { "full", 0, 0, G_OPTION_ARG_NONE, &full, "More rounds and cycles", NULL },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "Uncontended rounds", "N" },
    { "cycles", 0, 0, G_OPTION_ARG_INT, &cycles, "Cycles per uncontended round", "N" },
    { "contended-rounds", 0, 0, G_OPTION_ARG_INT, &contended_rounds, "Contended rounds", "N" },
    { "sections", 0, 0, G_OPTION_ARG_INT, &contended_total,
      "Critical sections per contended run, split over P", "N" },
    { "procs", 0, 0, G_OPTION_ARG_STRING, &procs, "Process counts (default 2,8)", "P,P..." },
    { "dir", 0, 0, G_OPTION_ARG_FILENAME, &dir,
      "Scratch directory (default: a new one in the temporary directory)", "DIR" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  gboolean made_dir = FALSE;
  Config config = { 0 };

  if (argc == 6 && g_str_equal (argv[1], "--worker"))
    return worker_main (argv + 2);

  context = g_option_context_new ("- libfl against a bare dotlock, uncontended and contended");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    die ("%s", error->message);

  config.self_exe = argv[0];
  config.rounds = rounds > 0 ? (guint) rounds : full ? 15 : 7;
  config.cycles = cycles > 0 ? (guint) cycles : full ? 2000 : 500;
  config.contended_rounds = contended_rounds > 0 ? (guint) contended_rounds : full ? 7 : 3;
  config.contended_total = contended_total > 0 ? (guint) contended_total : full ? 4000 : 1000;
  config.procs = parse_procs (procs != NULL ? procs : "2,8", &config.n_procs);
  if (dir == NULL)
    {
      dir = g_dir_make_tmp ("fl-bench-portable-XXXXXX", &error);
      if (dir == NULL)
        die ("%s", error->message);
      made_dir = TRUE;
    }
  config.dir = dir;

  run (&config);

  if (made_dir)
    {
      /* Only the names this program makes; a lock left behind means a bug above. */
      const char *names[] = { "uncontended", "contended" };

      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          g_autofree char *lock = g_build_filename (dir, names[i], NULL);
          g_autofree char *lock_path = fl_lock_path_for (lock);
          g_autofree char *dotlock = g_strconcat (lock, ".dotlock", NULL);

          remove_if_present (lock_path);
          remove_if_present (dotlock);
        }
      if (g_rmdir (dir) < 0)
        fprintf (stderr, "fl-bench-portable: %s left behind: %s\n", dir, g_strerror (errno));
    }
  g_free (config.procs);
  return 0;
}
