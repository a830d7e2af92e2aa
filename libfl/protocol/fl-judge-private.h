/* fl-judge-private.h: judging one lock, temp or graveyard file from its evidence
 *
 * Steps J3-J4 of docs/protocol.md (J1-J2, the reading, are fl-evidence-private.h), shared by
 * acquire, inspection and reclaim, so that every front-end reaches the same verdict from the
 * same evidence.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "fl-enums.h"
#include "protocol/fl-evidence-private.h"
#include "protocol/fl-names-private.h"
#include "fl-options.h"
#include "support/fl-process-private.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* Steps J3 + J4. */
void     _fl_evidence_judge      (FlEvidence          *self,
                                  FlProbeMode          mode,
                                  const FlLockOptions *options,
                                  gint64               now_us,
                                  gboolean             details);

/* "PID 1234 (name)", or "PID 1234" when the name is unknown. */
char    *_fl_evidence_describe_holder (FlEvidence *self);

/* Who else holds LOCK_SH on the file, from /proc/locks: "a process with PID 12 (cat) holds a
 * shared lock on the file". When /proc/locks names nobody (or cannot be read): NULL, or, if
 * @known says someone does, "another process holds a shared lock on the file". */
char    *_fl_evidence_describe_shared (FlEvidence *self,
                                       gboolean    known);

/* What a foreign entry is and what to do about it, for error messages. */
char    *_fl_describe_foreign_reason (FlFileType        type,
                                      const char       *link_target);
char    *_fl_describe_foreign      (const char          *path,
                                    FlFileType           type);

G_END_DECLS
