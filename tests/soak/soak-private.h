/* soak-private.h: what the soak test's files share
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "fl-test-attacker.h"

G_BEGIN_DECLS

#define SOAK_WORKERS 16
/* The module's workers (module-driver.mjs soak), in the slots after libfl's, during the mixed
 * phases only: every other SOAK_PHASE_S seconds (test-soak.c says why). */
#define SOAK_NODE_WORKERS 4
#define SOAK_SLOTS (SOAK_WORKERS + SOAK_NODE_WORKERS)
#define SOAK_PHASE_S 15
#define SOAK_TARGETS 4
#define SOAK_JUNK_MAX 400   /* junk and hostile entries, so that an hour stays bounded */

typedef struct
{
  pid_t    pid;            /* 0: none running in this slot */
  gint64   stopped_until;  /* monotonic time of its SIGCONT; 0 when running */
  gboolean node;           /* the module's worker: never killed */
} SoakWorker;

typedef struct
{
  char        *base_dir;
  char        *lock_dir;     /* the targets t0..t3, their locks, and the junk */
  char        *state_dir;    /* counters and markers of the critical sections */
  char        *results_dir;  /* one log per worker */
  const char  *worker;
  char       **module_argv;  /* node and module-driver.mjs */
  guint32      seed;
  gint64       seconds;
  gint64       elapsed_s;    /* less than seconds when a failure stopped the run early */
  GRand       *rand;

  SoakWorker   workers[SOAK_SLOTS];
  GHashTable  *daemon_parents; /* fork-and-exit holders not reaped yet */
  GHashTable  *killed;       /* PIDs the chaos SIGKILLed (some may have been reused since) */
  GHashTable  *unreaped_kills; /* of those, the ones not reaped yet */
  GHashTable  *junk;         /* names the chaos created */
  gboolean     stopping;
  gboolean     mixed;        /* in a mixed phase: the module's workers run */
  gboolean     node_stopping;
  guint        mixed_phases;
  guint        node_spawned;

  char        *occupied;     /* the hostile entry now where a lock goes, or NULL */
  mode_t       occupied_type;
  gint64       occupied_until;

  guint        spawned;
  guint        kills;
  guint        holder_kills;
  guint        stops;
  guint        junk_files;
  guint        hostile_entries;
  guint        occupations;
  guint        scans;
  guint        scan_errors;
  guint        finished;
  guint        failed_workers;
  guint        orphans;

  /* soak-hostile.c */
  FlTestAttacker attacker;
  guint        attacker_wins;  /* LOCK_SH taken on a new temp before its creator's LOCK_EX */
  guint        daemons;        /* fork-and-exit holders started */
  guint        readers;        /* processes started to hold LOCK_SH on a lock file */
  guint        mtimes_moved;
} Soak;

typedef struct
{
  guint  completed[SOAK_TARGETS];
  guint  node_completed;   /* of those, by the module's workers */
  gint64 counter[SOAK_TARGETS];
  guint  timeouts;
  guint  foreign;
  guint  shared_holds;
  guint  overlaps;
  guint  lost;
  guint  errors;
} SoakTally;

extern const char *soak_worker_path;

void       soak_init                   (Soak      *soak);
void       soak_clear                  (Soak      *soak);
void       soak_chaos_junk             (Soak      *soak);
void       soak_chaos_hostile          (Soak      *soak);
void       soak_chaos_occupy           (Soak      *soak,
                                        gint64     now);
void       soak_chaos_release_occupied (Soak      *soak,
                                        gint64     now,
                                        gboolean   always);
void       soak_chaos_scan             (Soak      *soak);
void       soak_attacker_start         (Soak      *soak);
void       soak_attacker_stop          (Soak      *soak);
void       soak_chaos_daemon           (Soak      *soak);
void       soak_chaos_shared_hold      (Soak      *soak,
                                        int        k);
void       soak_chaos_mtime_back       (Soak      *soak);
SoakTally *soak_tally                  (Soak      *soak);
void       soak_report                 (Soak      *soak,
                                        SoakTally *tally);
void       soak_final_round            (Soak      *soak);
guint      soak_check_leftovers        (Soak      *soak);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SoakTally, g_free)

G_END_DECLS
