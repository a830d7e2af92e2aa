/* fl-directory-model-private.h: what the model's two files and the tests share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-directory-model.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* Shared by the model's files (fl-directory-model*.c) only. */

#define COALESCE_MS       10
#define BURST_LIMIT       2000
#define MAX_RUNS          64
#define MAX_PID_WATCHES   4096  /* and at most a quarter of RLIMIT_NOFILE */
#define MAX_SCAN_THREADS  4
#define SCAN_SLICE_MIN    256
#define RESCAN_MIN_MS     10000
#define RESCAN_MAX_MS     300000

enum
{
  PENDING_TAKEN_OVER = 1 << 0,
};

typedef enum
{
  COUNT_HELD,
  COUNT_STALE,
  COUNT_ORPHANS,
  COUNT_FOREIGN,
  COUNT_OTHER,
  N_COUNTS
} CountKind;

typedef enum
{
  MERGE_INITIAL,  /* a directory's first scan: no entry-changed, it is not news */
  MERGE_RESCAN,   /* a repair: every difference is reported */
  MERGE_REMOVE,   /* the directory is no longer watched: drop what no other root covers */
} MergeMode;

typedef struct
{
  char       *path;        /* canonical, as given (symbolic links in it are kept) */
  char       *prefix;      /* path with exactly one trailing slash */
  gboolean    recursive;
  gboolean    removed;
  guint       serial;      /* of the last scan started */
  guint       applied;     /* of the last scan applied: older results are dropped */
  GHashTable *monitors;    /* directory path -> GFileMonitor */
} Root;

typedef struct
{
  Root          *root;     /* atomic rc box */
  FlLockOptions *options;
  gint64         now_us;
  guint          serial;
  MergeMode      mode;
  guint          n_threads;
  GCancellable  *cancellable;
  GPtrArray     *previous; /* the entries' snapshots at the start, by path: reused if equal */
  GPtrArray     *snapshots;
  GPtrArray     *dirs;
  GError        *error;
  gint64         duration_us;
} ScanJob;

typedef struct
{
  FlHandle fd;         /* the platform's process-exit handle (a pidfd), or none */
  guint    source_id;
  guint    n_entries;
} PidWatch;

/* The directory of the last path read, kept open while consecutive paths share it. */
typedef struct
{
  char  *path;
  FlDir *dir;
} DirCache;

struct _FlDirectoryModel
{
  GObject         parent_instance;

  FlLockOptions  *options;
  GPtrArray      *entries;     /* FlEntry *, sorted by path, owns a reference (no free func) */
  GPtrArray      *roots;       /* Root * */

  GHashTable     *pending;     /* path -> flags */
  guint           flush_id;
  gint64          last_flush_us; /* monotonic */
  GHashTable     *touched;     /* paths refreshed while a scan ran in a thread, or NULL */
  guint           n_scans_in_flight;
  guint           n_initial_in_flight;
  guint           rescan_id;
  gboolean        rescan_again;  /* asked for while scans were in flight */
  gint64          rescan_interval_ms;
  GCancellable   *cancellable;

  GHashTable     *pid_watches; /* pid -> PidWatch */
  guint           max_pid_watches;
  GHashTable     *deadlines;   /* FlEntry -> itself: unparsable, not yet stale */
  guint           deadline_id;

  FlClockFunc     clock;
  gpointer        clock_data;
  GDestroyNotify  clock_destroy;

  guint           counts[N_COUNTS];
  guint           notified[N_COUNTS];
  guint           quiet;       /* > 0 while the model applies its own reclaim */
  gboolean        monitoring;
};

/* fl-directory-model.c */
void _fl_model_notify_counts (FlDirectoryModel *self);
void _fl_model_notify_loading (FlDirectoryModel *self);
void _fl_model_emit_change (FlDirectoryModel *self,
                            FlEntry          *entry,
                            FlChange          change);

/* fl-directory-model-entries.c */
void _fl_model_root_unref (Root *root);
gboolean _fl_model_root_covers (Root       *root,
                                const char *path);
Root *_fl_model_find_root (FlDirectoryModel *self,
                           const char       *path);
gboolean _fl_model_covered_by_other_root (FlDirectoryModel *self,
                                          Root             *except,
                                          const char       *path);
Root *_fl_model_covering_root (FlDirectoryModel *self,
                               const char       *path);
gboolean _fl_model_looks_like_entry (const char *name);
gint64 _fl_model_model_now (FlDirectoryModel *self);
const char *_fl_model_entry_path (gconstpointer entry);
gboolean _fl_model_find_path (FlDirectoryModel *self,
                              const char       *path,
                              guint            *out_pos);
void _fl_model_array_splice (GPtrArray *array,
                             guint      pos,
                             guint      n_remove,
                             gpointer  *items,
                             guint      n_add);
int _fl_model_compare_snapshot_paths (gconstpointer a,
                                      gconstpointer b);
int _fl_model_compare_strings (const void *a,
                               const void *b);
void _fl_model_pid_watch_free (gpointer data);
void _fl_model_account (FlDirectoryModel *self,
                        FlEntry          *entry,
                        FlSnapshot       *snap,
                        int               sign);
void _fl_model_schedule_deadline (FlDirectoryModel *self);
gboolean _fl_model_snapshots_equal (FlSnapshot *a,
                                    FlSnapshot *b);
void _fl_model_update_entry (FlDirectoryModel *self,
                             FlEntry          *entry,
                             FlSnapshot       *snap,
                             guint             flags);
void _fl_model_apply_path (FlDirectoryModel *self,
                           const char       *path,
                           FlSnapshot       *snap,
                           guint             flags);
void _fl_model_queue_path (FlDirectoryModel *self,
                           const char       *path,
                           guint             flags);

/* fl-directory-model-events.c */
void _fl_model_dir_cache_clear (DirCache *cache);
void _fl_model_refresh_path (FlDirectoryModel *self,
                             DirCache         *cache,
                             const char       *path,
                             guint             flags,
                             gint64            now_us);
void _fl_model_queue_path (FlDirectoryModel *self,
                           const char       *path,
                           guint             flags);
void _fl_model_monitor_free (gpointer data);
void _fl_model_ensure_monitor (FlDirectoryModel *self,
                               Root             *root,
                               const char       *dir_path);
void _fl_model_sync_monitors (FlDirectoryModel *self,
                              Root             *root,
                              GPtrArray        *dirs);

/* fl-directory-model-scan.c */
void _fl_model_scan_job_free (gpointer data);
ScanJob *_fl_model_scan_job_new (FlDirectoryModel *self,
                                 Root             *root,
                                 MergeMode         mode);
void _fl_model_set_directory_error (GError    **error,
                                    const char *path,
                                    int         errsv);
void _fl_model_run_scan (ScanJob *job);
gboolean _fl_model_finish_job (FlDirectoryModel *self,
                               ScanJob          *job,
                               GError          **error);
void _fl_model_start_scan (FlDirectoryModel *self,
                           Root             *root,
                           MergeMode         mode,
                           GTask            *outer);
void _fl_model_schedule_rescan (FlDirectoryModel *self,
                                gint64            delay_ms);

/* fl-directory-model-merge.c */
void _fl_model_merge (FlDirectoryModel *self,
                      Root             *root,
                      GPtrArray        *snaps,
                      MergeMode         mode);


/* fl-entry.c */
FlEntry  *_fl_entry_new                       (FlSnapshot        *snapshot);
void      _fl_entry_set_snapshot              (FlEntry           *self,
                                               FlSnapshot        *snapshot);

/* Test entry points. With monitoring off (set before the first directory is added) the model
 * opens no GFileMonitor and schedules no periodic rescan: a test feeds it events itself and
 * flushes them, so it does not depend on inotify timing. pidfd watches stay on. */
void      _fl_directory_model_set_monitoring  (FlDirectoryModel  *self,
                                               gboolean           monitoring);
void      _fl_directory_model_apply_event     (FlDirectoryModel  *self,
                                               GFileMonitorEvent  event,
                                               const char        *path,
                                               const char        *other_path);
void      _fl_directory_model_flush           (FlDirectoryModel  *self);
guint     _fl_directory_model_get_n_pid_watches (FlDirectoryModel *self);
gboolean  _fl_directory_model_has_pending     (FlDirectoryModel  *self);

G_END_DECLS
