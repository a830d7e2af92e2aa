/* bench-main.c: fl-bench, libfl measured against the kernel's lock and the filesystem's floor
 *
 * Usage: fl-bench [--quick | --full] [--only=SECTION,...] [--seed=N]
 *        fl-bench --probe METHOD DIR CYCLES   (cycles one method, for strace and callgrind)
 *        fl-bench --probe-model N             (loads a model of N files once, likewise)
 *
 * build-aux/bench builds and runs it. The table goes to stdout at the end, in one piece;
 * progress goes to stderr.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"

typedef struct
{
  const char *name;
  void      (*run) (const BenchConfig *config, BenchReport *report);
} Section;

static const Section sections[] = {
  { "uncontended", bench_run_uncontended },
  { "contended", bench_run_contended },
  { "handoff", bench_run_handoff },
  { "stale", bench_run_stale },
  { "cpu", bench_run_waiter_cpu },
  { "model", bench_run_model },
};

static void
configure (BenchConfig *config,
           gboolean     full)
{
  config->quick = !full;
  config->uncontended_rounds = full ? 15 : 5;
  config->uncontended_cycles = full ? 4000 : 1000;
  config->syscall_cycles = full ? 5000 : 1000;
  config->contended_rounds = full ? 5 : 2;
  config->contended_total = full ? 8000 : 2000;
  config->handoff_rounds = full ? 5 : 2;
  config->handoff_samples = full ? 60 : 20;
  config->stale_samples = full ? 15 : 3;
  config->zombie_ms = 500;
  config->cpu_rounds = full ? 3 : 1;
  config->cpu_seconds = full ? 5 : 2;
  config->model_rounds = full ? 3 : 1;
  config->model_burst_ms = full ? 5000 : 1000;
  config->model_burst_rate = 1000;
  config->model_sizes[0] = 10000;
  config->model_sizes[1] = 100000;
}

static char *
fs_name (const char *dir)
{
  struct statfs st;

  if (statfs (dir, &st) < 0)
    return g_strdup ("?");
  switch ((unsigned long) st.f_type)
    {
    case TMPFS_MAGIC: return g_strdup ("tmpfs");
    case EXT4_SUPER_MAGIC: return g_strdup ("ext4");
    case XFS_SUPER_MAGIC: return g_strdup ("xfs");
    case BTRFS_SUPER_MAGIC: return g_strdup ("btrfs");
    case OVERLAYFS_SUPER_MAGIC: return g_strdup ("overlayfs");
    case NFS_SUPER_MAGIC: return g_strdup ("nfs");
    default: return g_strdup_printf ("fs 0x%lx", (unsigned long) st.f_type);
    }
}

static char *
cpu_model (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;

  if (!g_file_get_contents ("/proc/cpuinfo", &text, NULL, NULL))
    return g_strdup ("?");
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "model name"))
      {
        const char *colon = strchr (lines[i], ':');

        if (colon != NULL)
          return g_strstrip (g_strdup (colon + 1));
      }
  return g_strdup ("?");
}

static char *
make_scratch (const char *parent)
{
  g_autofree char *tmpl = g_build_filename (parent, "fl-bench-XXXXXX", NULL);

  if (g_mkdtemp_full (tmpl, 0700) == NULL)
    bench_die ("cannot create a directory in %s: %s", parent, g_strerror (errno));
  return g_steal_pointer (&tmpl);
}

static void
remove_scratch (const char *dir)
{
  bench_scratch_clean (dir);
  if (rmdir (dir) < 0)
    g_printerr ("fl-bench: cannot remove %s: %s\n", dir, g_strerror (errno));
}

static gboolean
section_wanted (const char *only,
                const char *name)
{
  g_auto(GStrv) names = NULL;

  if (only == NULL)
    return TRUE;
  names = g_strsplit (only, ",", -1);
  return g_strv_contains ((const char *const *) names, name);
}

int
main (int   argc,
      char *argv[])
{
  gboolean quick = FALSE, full = FALSE, probe = FALSE;
  g_autofree char *only = NULL;
  g_autofree char *tmpfs_parent = NULL;
  g_autofree char *disk_parent = NULL;
  gint64 seed = -1;
  gint probe_model = 0;
  const GOptionEntry entries[] = {
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "A quick run, under a minute (the default)",
      NULL },
    { "full", 0, 0, G_OPTION_ARG_NONE, &full, "The full run, for the figures", NULL },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only,
      "Run only these sections: uncontended,contended,handoff,stale,cpu,model", "LIST" },
    { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "Seed of the random hold times", "N" },
    { "tmpfs-dir", 0, 0, G_OPTION_ARG_FILENAME, &tmpfs_parent,
      "Where the tmpfs directory goes (default /dev/shm)", "DIR" },
    { "disk-dir", 0, 0, G_OPTION_ARG_FILENAME, &disk_parent,
      "Where the disk directory goes (default /var/tmp)", "DIR" },
    { "probe", 0, 0, G_OPTION_ARG_NONE, &probe,
      "Only cycle METHOD's lock in DIR CYCLES times (for strace or callgrind)", NULL },
    { "probe-model", 0, 0, G_OPTION_ARG_INT, &probe_model,
      "Only load a directory model of N files once (for strace or callgrind)", "N" },
    { NULL },
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  BenchConfig config = { 0 };
  BenchReport *report;
  struct utsname uts;
  g_autofree char *cpu = NULL;
  g_autofree char *tmpfs_fs = NULL;
  guint64 started;

  context = g_option_context_new ("- measure libfl against flock(2), O_EXCL (polled and inotify-woken) and the original");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("fl-bench: %s\n", error->message);
      return 2;
    }

  if (probe)
    {
      if (argc != 4)
        {
          g_printerr ("fl-bench: --probe needs METHOD DIR CYCLES\n");
          return 2;
        }
      return bench_syscall_probe_main (argv[1], argv[2], (guint) atoi (argv[3]));
    }
  if (probe_model > 0)
    return bench_model_probe_main (tmpfs_parent != NULL ? tmpfs_parent : "/dev/shm",
                                   (guint) probe_model);
  if (quick && full)
    {
      g_printerr ("fl-bench: --quick or --full, not both\n");
      return 2;
    }

  configure (&config, full);
  config.seed = seed >= 0 ? (guint32) seed : g_random_int ();
  config.self_exe = g_file_read_link ("/proc/self/exe", NULL);
  if (config.self_exe == NULL)
    config.self_exe = g_strdup (argv[0]);
  config.tmpfs_dir = make_scratch (tmpfs_parent != NULL ? tmpfs_parent : "/dev/shm");
  config.disk_dir = make_scratch (disk_parent != NULL ? disk_parent : "/var/tmp");
  config.disk_fs = fs_name (config.disk_dir);
  tmpfs_fs = fs_name (config.tmpfs_dir);
  cpu = cpu_model ();
  uname (&uts);

  report = bench_report_new ();
  started = bench_now_ns ();
  g_printerr ("fl-bench: %s mode, seed %u\n", full ? "full" : "quick", config.seed);
  for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
    if (section_wanted (only, sections[i].name))
      {
        guint64 section_start = bench_now_ns ();

        sections[i].run (&config, report);
        g_printerr ("fl-bench: %s took %.1f s\n", sections[i].name,
                    (double) (bench_now_ns () - section_start) / 1e9);
      }

  printf ("fl-bench %s, %s mode, seed %u, %.0f s\n", PACKAGE_VERSION, full ? "full" : "quick",
          config.seed, (double) (bench_now_ns () - started) / 1e9);
  printf ("%s %s %s, %ld CPUs (%s), GLib %u.%u.%u\n", uts.sysname, uts.release, uts.machine,
          sysconf (_SC_NPROCESSORS_ONLN), cpu, glib_major_version, glib_minor_version,
          glib_micro_version);
  printf ("directories: %s (%s), %s (%s)\n", config.tmpfs_dir, tmpfs_fs, config.disk_dir,
          config.disk_fs);
  printf ("cells: median ±spread; ratios: libfl / baseline (lower is better for times)\n");
  bench_report_print (report, stdout);

  bench_report_free (report);
  remove_scratch (config.tmpfs_dir);
  remove_scratch (config.disk_dir);
  g_free (config.self_exe);
  g_free (config.tmpfs_dir);
  g_free (config.disk_dir);
  g_free (config.disk_fs);
  return 0;
}
