/* fl-takeover-private.h: moving a stale lock out of the way
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "protocol/fl-judge-private.h"

G_BEGIN_DECLS

typedef enum
{
  FL_TAKEOVER_DONE,      /* the stale lock is gone (by us, or by someone else meanwhile) */
  FL_TAKEOVER_CHANGED,   /* T.lock is no longer the judged inode: judge again */
  FL_TAKEOVER_RACED,     /* a peer without kernel locks raced us (step T5) */
  FL_TAKEOVER_FAILED,    /* an I/O error, in @error */
  FL_TAKEOVER_CLAIMED,   /* another taker owns the claim: wait, then judge again (reason says) */
} FlTakeoverResult;

/* Steps T1-T6. @stale must be stale and hold LOCK_EX on the lock (FL_PROBE_EXCLUSIVE), or
 * LOCK_SH when only shared holders refused LOCK_EX (only_probers): then the claim, steps
 * C1-C3, excludes other takers. */
FlTakeoverResult _fl_takeover (FlDir        *dir,
                               const char   *lock_name,
                               FlEvidence   *stale,
                               GError      **error);

/* Removes the dead takeover claims T.lock.claim.<g> (docs/protocol.md, section 4). Only a
 * holder of the lock may call it: while the lock is held, no taker can act on what a claim
 * guarded. */
void             _fl_takeover_clear_claims (FlDir      *dir,
                                            const char *lock_name);

/* Appends "; a process with PID N (name) holds a shared lock on the file" to @state's reason
 * when it met only shared holders (only_probers). */
void             _fl_takeover_note_shared (FlEvidence *state);

G_END_DECLS
