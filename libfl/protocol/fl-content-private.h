/* fl-content-private.h: the identity a libfl holder records beside the PID
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>


G_BEGIN_DECLS

/* The identity record, set on the temp file before the link (the platform stores it: a user
 * xattr on Linux); readers of the original format never see it. */
#define FL_IDENTITY_MAX   256

typedef struct
{
  int      pid;
  guint64  start_ticks;     /* /proc/<pid>/stat field 22: clock ticks since boot, as seen
                             * from the holder's time namespace */
  char     boot_id[40];     /* the first 16 hex digits of /proc/sys/kernel/random/boot_id */
  guint64  pidns;           /* inode of /proc/self/ns/pid, 0 when unknown */
  gboolean kernel_lock;     /* whether the holder took the kernel lock */
  guint64  timens;          /* inode of /proc/self/ns/time, 0 when unknown (a version 1 record) */
} FlIdentity;

gsize    _fl_identity_format (const FlIdentity *identity,
                              char             *buf,
                              gsize             size);
gboolean _fl_identity_parse  (const char       *buf,
                              gsize             len,
                              FlIdentity       *identity);

/* Where an identity was written, seen from this process (fl-identity.c). @remote: the file is
 * on a network or FUSE filesystem. */
typedef enum
{
  FL_WRITTEN_HERE,          /* this boot of this machine, this PID namespace */
  FL_WRITTEN_EARLIER_BOOT,  /* an earlier boot of this machine: its PID was reused */
  FL_WRITTEN_OTHER_PIDNS,   /* another PID namespace: its PID means nothing here */
  FL_WRITTEN_ELSEWHERE,     /* over a network filesystem, another boot or machine */
} FlWritten;

FlWritten _fl_identity_written           (const FlIdentity *identity,
                                          gboolean          remote);
/* Whether its start ticks and this process's reading of /proc can be compared. */
gboolean  _fl_identity_ticks_comparable  (const FlIdentity *identity);

/* An identity record kept where no file is (etcd's metadata key, docs/etcd.md): this
 * process's (fl-identity-self.c), without a kernel lock (it holds none there), and what such a
 * record proves about its process here. */
gsize     _fl_identity_self_record_without_kernel_lock (char  *buf,
                                                        gsize  size);
typedef enum
{
  FL_RECORDED_NOT_HERE,  /* unreadable, another PID, or not proven this machine's: no probe */
  FL_RECORDED_RUNNING,   /* it runs (or reuse cannot be proven) */
  FL_RECORDED_EXITED,    /* gone, or a zombie */
  FL_RECORDED_REUSED,    /* its PID is another process's now (start ticks differ) */
} FlRecordedProcess;
FlRecordedProcess _fl_identity_probe_record (const char *record,
                                             int         pid);

/* What a lock file's content means to the original module, which reads it with
 * readFileSync(path, 'utf8').trim(), Number(), then isProcessAlive(): not finite or <= 0 is
 * dead, else process.kill(v, 0), where every error but ESRCH is alive (docs/protocol.md, J4). */
typedef enum
{
  FL_CONTENT_PID,         /* an int32 integer 1..FL_PID_MAX: that process */
  FL_CONTENT_NO_SUCH_PID, /* an int32 integer above FL_PID_MAX: kill() says ESRCH */
  FL_CONTENT_EMPTY,       /* only spaces: the module takes it over once its mtime is old */
  FL_CONTENT_NOT_PID,     /* NaN, <= 0, +-Infinity: the module takes it over at once */
  FL_CONTENT_NOT_INT32,   /* positive, finite, no int32 (12.5, 2^31): kill() throws: alive */
  FL_CONTENT_UNTOLD,      /* longer than what was read, and the rest could still make a PID */
} FlContentKind;

/* The most bytes of content that are ever parsed; FL_CONTENT_MAX (fl-judge-private.h) is what
 * is read. */
#define FL_CONTENT_PARSE_MAX 64

/* @complete: whether @buf is the whole file. *@value is the number for PID and NO_SUCH_PID,
 * else 0. */
FlContentKind _fl_parse_content (const char *buf,
                                 gsize       len,
                                 gboolean    complete,
                                 gint64     *value);

/* This process's identity (fl-identity-self.c); recomputed after fork(). The caller sets
 * kernel_lock. */
void  _fl_identity_self        (FlIdentity *identity);

/* This process's identity (as _fl_identity_self()) and its identity record, with the kernel
 * lock taken: cached, since every acquire writes it; one getpid() for both. Returns the
 * record's length, 0 if @size is too small. */
gsize _fl_identity_self_record (FlIdentity *identity,
                                char       *buf,
                                gsize       size);

G_END_DECLS
