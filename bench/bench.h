/* bench.h: what the parts of fl-bench share
 *
 * fl-bench measures libfl against four baselines it implements itself, in one run, interleaved,
 * on the same directories: flock(2) with the descriptor held (the kernel's own lock), a bare
 * O_EXCL create + write PID + close / unlink (the filesystem's floor for a lock that is a name),
 * the same woken by inotify instead of a poll (the floor for a name lock that wakes on events,
 * as libfl's waiters do), and the original Node module's protocol in plain C with its 15 ms
 * poll.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdio.h>
#include <sys/types.h>

#include <gio/gio.h>

G_BEGIN_DECLS

/* The poll interval of the original module, used by both polling baselines. */
#define BENCH_POLL_NS (15 * G_GUINT64_CONSTANT (1000000))

/* Hold times and kill delays are drawn from [2 ms, 17 ms): a full poll period wide, so a
 * 15 ms poll loop cannot phase-lock with the release it waits for. */
#define BENCH_RANDOM_MIN_NS (2 * G_GUINT64_CONSTANT (1000000))
#define BENCH_RANDOM_SPAN_NS BENCH_POLL_NS

typedef enum
{
  BENCH_FLOCK,
  BENCH_EXCL,
  BENCH_EXCL_WAKE,
  BENCH_ORIG,
  BENCH_NODE,
  BENCH_LIBFL,
  BENCH_N_METHODS,
} BenchMethodId;

typedef struct _BenchLocker BenchLocker;

/* One way of taking a lock. Every process opens its own locker: a flock(2) descriptor inherited
 * across fork() would share the lock instead of competing for it. */
typedef struct
{
  BenchMethodId id;
  const char   *name;       /* on the command line: flock, excl, inotify, orig, libfl */
  const char   *title;      /* column heading */
  gboolean      recovers;   /* takes over a lock whose holder died */
  BenchLocker *(*open)    (const char *dir, const char *target_name, GError **error);
  gboolean     (*acquire) (BenchLocker *self, GError **error);
  gboolean     (*release) (BenchLocker *self, GError **error);
  void         (*close)   (BenchLocker *self);
  gboolean      external;   /* runs in another program (node): section 1 only, by its own
                             * clock; the other sections leave its column empty */
} BenchMethod;

struct _BenchLocker
{
  const BenchMethod *method;
  int                dirfd;
  char              *target;      /* dir/target_name, what libfl is given */
  char              *lock_name;   /* target_name.lock */
  int                fd;          /* flock(2): the descriptor held for the whole run; O_EXCL +
                                  * inotify: its inotify instance, watching the directory */
  int                pid;         /* ours, read once as a service would (opened after fork) */
  gpointer           data;        /* libfl: its options */
  gpointer           held;        /* libfl: the FlLock while held */
};

extern const BenchMethod bench_method_flock;
extern const BenchMethod bench_method_excl;
extern const BenchMethod bench_method_excl_wake;
extern const BenchMethod bench_method_orig;
extern const BenchMethod bench_method_node;
extern const BenchMethod bench_method_libfl;

const BenchMethod *bench_method_get    (BenchMethodId id);
const BenchMethod *bench_method_lookup (const char *name);

/* bench-baselines.c, shared with bench-libfl.c */
BenchLocker *bench_locker_new  (const BenchMethod  *method,
                                const char         *dir,
                                const char         *target_name,
                                GError            **error);
void         bench_locker_free (BenchLocker *self);
void         bench_locker_cycle (BenchLocker *self); /* acquire + release, or die */
/* The same steps one at a time, for workers: each dies with the method's error. */
BenchLocker *bench_locker_open_or_die    (const BenchMethod *method,
                                          const char        *dir,
                                          const char        *target_name);
void         bench_locker_acquire_or_die (BenchLocker       *self);
void         bench_locker_release_or_die (BenchLocker       *self);

/* How much work a run does. */
typedef struct
{
  gboolean  quick;
  guint32   seed;
  char     *self_exe;
  char     *tmpfs_dir;
  char     *disk_dir;
  char     *disk_fs;               /* "ext4", for the table */
  guint     uncontended_rounds;
  guint     uncontended_cycles;
  guint     syscall_cycles;
  guint     contended_rounds;
  guint     contended_total;       /* critical sections per run, split over P processes */
  guint     handoff_rounds;
  guint     handoff_samples;       /* per round and method */
  guint     stale_samples;         /* per method and variant */
  guint     zombie_ms;
  guint     cpu_rounds;
  guint     cpu_seconds;
  guint     model_rounds;
  guint     model_burst_ms;
  guint     model_burst_rate;      /* changes per second */
  guint     model_sizes[2];
} BenchConfig;

/* bench-stats.c */
typedef struct
{
  gboolean    valid;
  double      median;
  double      lo;                  /* spread: min-max of rounds, or p25-p75 of samples */
  double      hi;
  const char *text;                /* shown instead of a figure: "never", "n/a" */
} BenchCell;

guint64  bench_now_ns              (void);
void     bench_sleep_ns            (guint64 ns);
guint64  bench_random_delay_ns     (GRand *rand);
double   bench_percentile          (const double *values, gsize n, double p);
void     bench_cell_from_rounds    (BenchCell *cell, const double *values, gsize n);
void     bench_cell_from_samples   (BenchCell *cell, const double *values, gsize n);
void     bench_cell_text           (BenchCell *cell, const char *text);
gpointer bench_shared_alloc        (gsize size);
void     bench_shared_free         (gpointer mem, gsize size);
void     bench_die                 (const char *format, ...) G_GNUC_PRINTF (1, 2) G_GNUC_NORETURN;
void     bench_progress            (const char *format, ...) G_GNUC_PRINTF (1, 2);
void     bench_rotate_order        (BenchMethodId *order, guint round);

/* bench-process.c: fork, pipes, and waiting for children with deadlines */
pid_t    bench_fork                (void);
void     bench_pipe                (int fds[2]);
void     bench_send_byte           (int fd);
void     bench_wait_byte           (int fd, int timeout_ms, const char *what);
void     bench_wait_child          (pid_t pid, int timeout_ms, const char *what);
void     bench_wait_children       (const pid_t *pids, guint n, int timeout_ms, const char *what);
void     bench_scratch_clean       (const char *dir);

/* bench-report.c: the table */
typedef enum
{
  BENCH_UNIT_TIME,                 /* nanoseconds */
  BENCH_UNIT_RATE,                 /* per second */
  BENCH_UNIT_COUNT,
  BENCH_UNIT_BYTES,
  BENCH_UNIT_RATIO,
} BenchUnit;

typedef struct _BenchReport BenchReport;

BenchReport *bench_report_new        (void);
void         bench_report_free       (BenchReport *self);
void         bench_report_section    (BenchReport *self, const char *title, const char *legend);
BenchCell   *bench_report_row        (BenchReport *self, const char *label, BenchUnit unit,
                                      gboolean ratios);
void         bench_report_line       (BenchReport *self, const char *format, ...)
                                      G_GNUC_PRINTF (2, 3);
void         bench_report_target     (BenchReport *self, const char *what, double value,
                                      double limit, BenchUnit unit);
void         bench_report_note       (BenchReport *self, const char *format, ...)
                                      G_GNUC_PRINTF (2, 3);
void         bench_report_print      (BenchReport *self, FILE *out);
char        *bench_format_value      (double value, BenchUnit unit);
char        *bench_format_cell       (const BenchCell *cell, BenchUnit unit);
char        *bench_pad               (const char *text, guint width);

/* The sections. Each adds its rows and targets to the report. */
void bench_run_uncontended (const BenchConfig *config, BenchReport *report);
void bench_run_contended   (const BenchConfig *config, BenchReport *report);
void bench_run_handoff     (const BenchConfig *config, BenchReport *report);
void bench_run_stale       (const BenchConfig *config, BenchReport *report);
void bench_run_waiter_cpu  (const BenchConfig *config, BenchReport *report);
void bench_run_model       (const BenchConfig *config, BenchReport *report);
int  bench_model_probe_main (const char *parent, guint n_files);

/* bench-node.c: the original module itself, under node (tests/helpers/module-driver.mjs) */
char    *bench_node_program    (void);   /* NULL when node or the module cannot be found */
char   **bench_node_cycle_argv (const char *node, const char *target, guint cycles);
double   bench_node_cycle_ns   (const char *dir, guint cycles);  /* NAN when not run */

/* bench-syscalls.c: syscalls per cycle, counted by strace around a child that only cycles */
int  bench_syscall_probe_main (const char *method, const char *dir, guint cycles);
void bench_count_syscalls     (const BenchConfig *config, BenchReport *report, BenchCell *row);

G_END_DECLS
