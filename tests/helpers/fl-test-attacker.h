/* fl-test-attacker.h: a hostile neighbour that takes LOCK_SH on every new temp file
 *
 * Issue 13, part 2: between a named temp's creation and its creator's flock(LOCK_EX), any
 * process that can read the directory can take LOCK_SH on it. The attacker is a forked process
 * that watches a directory with inotify (IN_CREATE) and does exactly that, as fast as it can,
 * holding each shared lock a little. test-temp.c and the soak run it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct
{
  pid_t pid;
  int   control_fd;  /* closing it tells the attacker to stop and report */
  int   report_fd;   /* the attacker writes how many shared locks it took */
} FlTestAttacker;

/* Returns once the attacker's watch exists: no temp created after this escapes it. */
void     fl_test_attacker_start (FlTestAttacker *self,
                                 const char     *dir);

/* Stops the attacker and returns how many shared locks it took on new temps first. With
 * @reaped_elsewhere (a harness that reaps every child itself) its exit status is not asked. */
guint64  fl_test_attacker_stop  (FlTestAttacker *self,
                                 gboolean        reaped_elsewhere);

G_END_DECLS
