/* fl-other-locks-private.h: other programs' lock files, recognised and judged read-only
 *
 * What each format records and how its liveness is told: docs/other-lock-files.md.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "fl-enums.h"
#include "protocol/fl-judge-private.h"

G_BEGIN_DECLS

/* A LibreOffice line with a long name and profile URL fits; nothing longer is read. */
#define FL_OTHER_CONTENT_MAX 512

typedef struct
{
  FlLockFormat  format;
  char         *target;     /* the file it locks (Emacs, LibreOffice); NULL if not named */
  char         *user;       /* login name, as recorded; NULL if none */
  char         *full_name;  /* LibreOffice's "Full Name"; NULL if none */
  char         *host;       /* as recorded (Firefox: an IP address); NULL if none */
  int           pid;        /* as recorded, or the record lock's holder; 0 if not known */
  gint64        since_us;   /* LibreOffice's "since", local time; 0 if none */
  FlLiveness    liveness;
  FlKernelLock  kernel_lock;
  FlEntryState  state;
  char         *reason;     /* English, as the judge's reasons */
  char          content[FL_OTHER_CONTENT_MAX + 1];  /* the file's head, or the link's target */
  gsize         content_len;
} FlOtherLock;

/* Whether @name is one that only another program's lock file has (`.#NAME`, `.~lock.NAME#`,
 * `lock`, `lock-frontend`, `.parentlock`, `LCK..NAME`): decided by name alone, for listings.
 * git's `*.lock` is named like ours and is told apart by its directory. */
gboolean _fl_other_lock_name  (const char   *name,
                               gsize         len);

typedef enum
{
  FL_OTHER_OURS,       /* libfl's: judge it by docs/protocol.md */
  FL_OTHER_KNOWN,      /* another program's, *other filled */
  FL_OTHER_NOT_A_LOCK, /* named like one, but its type or content is no known format */
} FlOtherVerdict;

/* Looks at @state (opened by _fl_evidence_open(), in @dir whose path is @dir_path) and, for
 * another program's lock, reads its link or content and judges it without changing anything. */
FlOtherVerdict _fl_other_lock_examine (FlOtherLock *other,
                                       FlEvidence *state,
                                       FlDir       *dir,
                                       const char  *dir_path,
                                       gint64       now_us);

void     _fl_other_lock_clear (FlOtherLock  *other);

/* A UUCP serial port lock's content: ten ASCII characters and a newline, or 4 binary bytes. */
gboolean _fl_other_parse_uucp (const char   *text,
                               gsize         len,
                               int          *pid);

/* Whether @state, opened in @dir_path, is git's `*.lock` (under `.git`, content no PID): an
 * acquirer never takes it over, however old, and it counts as locked. */
gboolean _fl_other_lock_is_gits (FlEvidence *state,
                                 const char  *dir_path);

/* The parsers, pure for the tests and fuzzers: TRUE when @text is the format. */
gboolean _fl_other_parse_emacs       (const char  *text,
                                      gsize        len,
                                      FlOtherLock *out,
                                      gint64      *boot_s);
gboolean _fl_other_parse_mozilla     (const char  *text,
                                      gsize        len,
                                      FlOtherLock *out);
gboolean _fl_other_parse_libreoffice (const char  *text,
                                      gsize        len,
                                      FlOtherLock *out);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlOtherLock, _fl_other_lock_clear)

G_END_DECLS
