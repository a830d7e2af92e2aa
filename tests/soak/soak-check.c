/* soak-check.c: what the soak test finds at the end
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libfl/fl.h>

#include "protocol/fl-names-private.h"
#include "fl-test-counter.h"
#include "fl-test-util.h"
#include "soak-private.h"

static void
tally_line (Soak       *soak,
            SoakTally  *tally,
            const char *line,
            gboolean    node)
{
  char word[16];
  int other = 0;
  int k = -1;

  if (sscanf (line, "%15s %d %d", word, &k, &other) < 2 || k < 0 || k >= SOAK_TARGETS)
    {
      if (line[0] != '\0')
        {
          g_test_message ("unreadable log line: %s", line);
          tally->errors++;
        }
      return;
    }

  if (strcmp (word, "cs") == 0)
    {
      tally->completed[k]++;
      tally->node_completed += node;
    }
  else if (strcmp (word, "timeout") == 0)
    tally->timeouts++;
  else if (strcmp (word, "foreign") == 0)
    tally->foreign++;
  else if (strcmp (word, "overlap") == 0)
    {
      tally->overlaps++;
      g_test_message ("the other holder, PID %d, was %s by the chaos", other,
                      g_hash_table_contains (soak->killed, GINT_TO_POINTER (other))
                      ? "SIGKILLed at some time" : "never killed");
    }
  else if (strcmp (word, "lost") == 0)
    tally->lost++;
  else if (strcmp (word, "shared") == 0)
    tally->shared_holds++;
  else
    tally->errors++;

  if (strcmp (word, "cs") != 0 && strcmp (word, "timeout") != 0 &&
      strcmp (word, "foreign") != 0 && strcmp (word, "shared") != 0)
    g_test_message ("worker log: %s", line);
}

SoakTally *
soak_tally (Soak *soak)
{
  SoakTally *tally = g_new0 (SoakTally, 1);
  g_auto(GStrv) logs = fl_test_list_dir (soak->results_dir);

  for (guint i = 0; logs[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (soak->results_dir, logs[i], NULL);
      g_autofree char *text = fl_test_read (path, NULL);
      g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

      for (guint j = 0; lines[j] != NULL; j++)
        tally_line (soak, tally, lines[j], logs[i][0] == 'n');
    }

  for (int k = 0; k < SOAK_TARGETS; k++)
    {
      g_autofree char *counter = g_strdup_printf ("%s/t%d.count", soak->state_dir, k);

      tally->counter[k] = fl_test_counter_read (counter);
    }
  return tally;
}

void
soak_report (Soak      *soak,
             SoakTally *tally)
{
  guint completed = 0;

  for (int k = 0; k < SOAK_TARGETS; k++)
    {
      completed += tally->completed[k];
      g_test_message ("t%d: %u critical sections completed, counter %" G_GINT64_FORMAT, k,
                      tally->completed[k], tally->counter[k]);
    }
  g_test_message ("%u critical sections in %" G_GINT64_FORMAT " s (%.0f/s); %u processes "
                  "started, %u SIGKILLed (%u inside a critical section), %u SIGSTOPped; "
                  "%u finished at the end, %u failed",
                  completed, soak->elapsed_s, completed / (double) MAX (soak->elapsed_s, 1),
                  soak->spawned,
                  soak->kills, soak->holder_kills, soak->stops, soak->finished,
                  soak->failed_workers);
  g_test_message ("the module (@dogfood-lab/findings): %u workers in %u mixed phases of %d s, "
                  "%u critical sections", soak->node_spawned, soak->mixed_phases, SOAK_PHASE_S,
                  tally->node_completed);
  g_test_message ("%u junk files, %u hostile entries, %u occupations of a lock's name; "
                  "%u scans (%u failed); %u timeouts, %u foreign refusals; "
                  "%u overlaps, %u lost, %u errors",
                  soak->junk_files, soak->hostile_entries, soak->occupations, soak->scans,
                  soak->scan_errors, tally->timeouts, tally->foreign, tally->overlaps,
                  tally->lost, tally->errors);
  g_test_message ("hostile neighbours: the attacker took LOCK_SH on %u new temps; %u "
                  "fork-and-exit holders; %u readers queued LOCK_SH, %u got it on a lock "
                  "file in place and held it 2-20 s; %u lock times moved an hour back",
                  soak->attacker_wins, soak->daemons, soak->readers, tally->shared_holds,
                  soak->mtimes_moved);
}

void
soak_final_round (Soak *soak)
{
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();

  fl_lock_options_set_timeout_ms (options, 10000);
  for (int k = 0; k < SOAK_TARGETS; k++)
    {
      g_autofree char *target = g_strdup_printf ("%s/t%d", soak->lock_dir, k);
      g_autoptr(GError) error = NULL;
      g_autoptr(FlLock) lock = NULL;

      lock = fl_lock_acquire (target, options, NULL, &error);
      g_assert_no_error (error);
      g_assert_true (fl_lock_release (lock, &error));
      g_assert_no_error (error);
    }
}

/* A takeover claim "t<k>.lock.claim.<g>" (docs/protocol.md, section 4) that no taker owns any
 * more: LOCK_SH is granted on it (a live owner holds LOCK_EX). Dead claims stay on disk until
 * a holder that goes the claim way removes them; a live one at the end would be a bug. */
static gboolean
is_dead_claim (Soak       *soak,
               const char *name)
{
  g_autofree char *path = g_build_filename (soak->lock_dir, name, NULL);
  const char *p = strstr (name, ".lock.claim.");
  gboolean dead;
  int fd;

  if (name[0] != 't' || p == NULL || p[12] == '\0' || strspn (p + 12, "0123456789") !=
      strlen (p + 12))
    return FALSE;
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  dead = flock (fd, LOCK_SH | LOCK_NB) == 0;
  close (fd);
  if (!dead)
    g_test_message ("live takeover claim at the end: %s", name);
  return dead;
}

/* Counts what should not be there; every junk entry must be there, untouched. */
guint
soak_check_leftovers (Soak *soak)
{
  g_auto(GStrv) names = fl_test_list_dir (soak->lock_dir);
  GHashTableIter iter;
  gpointer key, value;
  guint bad = 0, dead_claims = 0;

  for (guint i = 0; names[i] != NULL; i++)
    {
      FlNameInfo info;

      if (g_hash_table_contains (soak->junk, names[i]))
        continue;
      if (_fl_classify_name (names[i], strlen (names[i]), &info) &&
          info.kind != FL_ENTRY_LOCK &&
          g_hash_table_contains (soak->killed, GINT_TO_POINTER (info.creator_pid)))
        {
          soak->orphans++;      /* a temp or graveyard of a process killed mid-step */
          continue;
        }
      if (is_dead_claim (soak, names[i]))
        {
          dead_claims++;  /* by design: the next holder that goes the claim way removes it */
          continue;
        }
      g_test_message ("left over: %s", names[i]);
      bad++;
    }

  g_hash_table_iter_init (&iter, soak->junk);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_autofree char *path = g_build_filename (soak->lock_dir, key, NULL);
      struct stat st;

      if (lstat (path, &st) < 0 || (st.st_mode & S_IFMT) != GPOINTER_TO_UINT (value))
        {
          g_test_message ("junk entry %s was removed or replaced", (const char *) key);
          bad++;
        }
    }

  g_test_message ("%u orphans of killed processes, %u junk entries kept, %u dead takeover "
                  "claims", soak->orphans, g_hash_table_size (soak->junk), dead_claims);
  return bad;
}
