/* fl-enums.h: the enumerations of libfl's snapshots (their strings: fl-enum-strings.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#if !defined(FL_INSIDE) && !defined(FL_COMPILATION)
# error "Only <libfl/fl.h> can be included directly."
#endif

#include <glib.h>

#include "fl-version-macros.h"

G_BEGIN_DECLS

/**
 * FlEntryKind:
 * @FL_ENTRY_LOCK: a lock file `T.lock`.
 * @FL_ENTRY_TEMP: a temp file `T.lock.<pid>.<8 hex>.tmp` written before link().
 * @FL_ENTRY_GRAVEYARD: a lock moved aside by a takeover, `T.lock.gy.<pid>.<8 hex>`.
 * @FL_ENTRY_FOREIGN: named like one of the above but not a regular file (a directory, a symbolic
 *   link, a FIFO...): never touched by libfl.
 * @FL_ENTRY_OTHER_PROGRAM: another program's lock file (git, LibreOffice, Emacs, Firefox, dpkg,
 *   flock(1)), whose format fl_snapshot_get_lock_format() names: explained, never touched by
 *   libfl (docs/other-lock-files.md).
 *
 * What a file is, from its name and type (fl_snapshot_get_kind()).
 *
 * Since: 0.1
 */
typedef enum
{
  FL_ENTRY_LOCK,
  FL_ENTRY_TEMP,
  FL_ENTRY_GRAVEYARD,
  FL_ENTRY_FOREIGN,
  FL_ENTRY_OTHER_PROGRAM,
} FlEntryKind;

/**
 * FlLockFormat:
 * @FL_LOCK_FORMAT_LIBFL: libfl's own protocol (docs/protocol.md), or an etcd lock.
 * @FL_LOCK_FORMAT_GIT: git's `*.lock` under `.git/` (`index.lock`, `HEAD.lock`...): no owner
 *   recorded.
 * @FL_LOCK_FORMAT_LIBREOFFICE: LibreOffice's `.~lock.NAME#`: name, user, host and since when.
 * @FL_LOCK_FORMAT_EMACS: Emacs' `.#NAME`, a symbolic link (or file) naming user, host and PID.
 * @FL_LOCK_FORMAT_MOZILLA: a Firefox or Thunderbird profile's `lock` link (`IP:+PID`) or its
 *   `.parentlock`, held with a record lock while the profile is open.
 * @FL_LOCK_FORMAT_DPKG: dpkg's and apt's `lock` and `lock-frontend`, held with record locks.
 * @FL_LOCK_FORMAT_FLOCK: an empty `lock`, `lock-frontend` or `LCK..NAME` as flock(1) and
 *   similar tools leave: only its kernel lock means anything.
 * @FL_LOCK_FORMAT_UUCP: a serial port's `LCK..NAME` as UUCP, minicom, pppd and lockdev write
 *   it: its owner's PID as ten ASCII characters and a newline (or 4 binary bytes).
 *
 * Whose lock file a snapshot shows. Nicks ("libfl", "git", "libreoffice", "emacs",
 * "mozilla", "dpkg", "flock", "uucp") are stable: flctl's JSON uses them.
 *
 * Since: 0.1
 */
typedef enum
{
  FL_LOCK_FORMAT_LIBFL,
  FL_LOCK_FORMAT_GIT,
  FL_LOCK_FORMAT_LIBREOFFICE,
  FL_LOCK_FORMAT_EMACS,
  FL_LOCK_FORMAT_MOZILLA,
  FL_LOCK_FORMAT_DPKG,
  FL_LOCK_FORMAT_FLOCK,
  FL_LOCK_FORMAT_UUCP,
} FlLockFormat;

/**
 * FlLiveness:
 * @FL_LIVENESS_UNKNOWN: cannot be told (no PID in the file, another host or PID namespace).
 * @FL_LIVENESS_ALIVE: the holder (or creator) is running.
 * @FL_LIVENESS_DEAD: no such process, or it has exited (a zombie counts as dead).
 * @FL_LIVENESS_REUSED: a process with that PID runs, but it started after the file was written:
 *   the PID was reused.
 *
 * Whether the process a file names runs (fl_snapshot_get_liveness()).
 *
 * Since: 0.1
 */
typedef enum
{
  FL_LIVENESS_UNKNOWN,
  FL_LIVENESS_ALIVE,
  FL_LIVENESS_DEAD,
  FL_LIVENESS_REUSED,
} FlLiveness;

/**
 * FlKernelLock:
 * @FL_KERNEL_LOCK_UNKNOWN: not probed (not a regular lock file, or the filesystem refused).
 * @FL_KERNEL_LOCK_HELD: a process holds the kernel lock on the file: the holder is alive.
 * @FL_KERNEL_LOCK_FREE: nobody holds the kernel lock on the file.
 *
 * What the probe of a lock file's kernel lock saw (fl_snapshot_get_kernel_lock()).
 *
 * Since: 0.1
 */
typedef enum
{
  FL_KERNEL_LOCK_UNKNOWN,
  FL_KERNEL_LOCK_HELD,
  FL_KERNEL_LOCK_FREE,
} FlKernelLock;

/**
 * FlReclaimable:
 * @FL_RECLAIMABLE_NONE: nobody may remove it: a process holds its kernel lock (a live libfl
 *   holder), or it is not a regular file.
 * @FL_RECLAIMABLE_STALE: stale: fl_snapshot_reclaim() removes it.
 * @FL_RECLAIMABLE_UNPROVEN: not proven stale, and never stale by itself (content that names no
 *   single process, a PID that exists without an identity, a holder /proc cannot show, another
 *   PID namespace or host): only an operator who takes responsibility removes it, with
 *   fl_snapshot_reclaim_unproven().
 *
 * What an operator may do with a snapshot's file (docs/protocol.md, section 7).
 *
 * Since: 0.1
 */
typedef enum
{
  FL_RECLAIMABLE_NONE,
  FL_RECLAIMABLE_STALE,
  FL_RECLAIMABLE_UNPROVEN,
} FlReclaimable;

/**
 * FlEntryState:
 * @FL_ENTRY_STATE_HELD: a lock whose holder is alive: a process holds its kernel lock, or the
 *   process it names runs. Never reclaimed.
 * @FL_ENTRY_STATE_ACTIVE: a temp or graveyard file whose creator still runs.
 * @FL_ENTRY_STATE_STALE: a lock that no live process holds: fl_snapshot_reclaim() removes it.
 * @FL_ENTRY_STATE_ORPHAN: a temp or graveyard file whose creator is gone: nothing will use it.
 * @FL_ENTRY_STATE_UNKNOWN: not judged either way, because the evidence is missing (no PID yet,
 *   a PID this host cannot see): libfl never calls it stale.
 * @FL_ENTRY_STATE_FOREIGN: named like a lock, temp or graveyard but not a regular file.
 * @FL_ENTRY_STATE_FREE: another program's lock file that stays in place and is locked only with a
 *   kernel lock (dpkg, flock(1), a profile's `.parentlock`), which nobody holds now: the file
 *   itself locks nothing.
 *
 * The one verdict every view shows for an entry, derived from the snapshot's kind, liveness,
 * kernel lock and staleness by fl_snapshot_get_state(). Its nicks ("held", "active", "stale",
 * "orphan", "unknown", "foreign", "free", from fl_entry_state_to_string()) are stable: scripts and
 * flctl's JSON use them.
 *
 * Since: 0.1
 */
typedef enum
{
  FL_ENTRY_STATE_HELD,
  FL_ENTRY_STATE_ACTIVE,
  FL_ENTRY_STATE_STALE,
  FL_ENTRY_STATE_ORPHAN,
  FL_ENTRY_STATE_UNKNOWN,
  FL_ENTRY_STATE_FOREIGN,
  FL_ENTRY_STATE_FREE,
} FlEntryState;

/**
 * FlKernelLockType:
 * @FL_KERNEL_LOCK_TYPE_FLOCK: a whole-file lock taken with flock(), as libfl's own.
 * @FL_KERNEL_LOCK_TYPE_POSIX: a byte-range lock taken with fcntl(F_SETLK), owned by a process.
 * @FL_KERNEL_LOCK_TYPE_OFD: an open file description lock, fcntl(F_OFD_SETLK).
 * @FL_KERNEL_LOCK_TYPE_LEASE: a lease, fcntl(F_SETLEASE).
 * @FL_KERNEL_LOCK_TYPE_DELEG: a delegation an NFS server handed out.
 * @FL_KERNEL_LOCK_TYPE_UNKNOWN: a kind the system names but libfl does not know.
 *
 * The kind of a kernel lock, as lslocks shows it. Its nicks ("flock", "posix", "ofd", "lease",
 * "deleg", "unknown", from fl_kernel_lock_type_to_string()) are stable.
 *
 * Since: 0.1
 */
typedef enum
{
  FL_KERNEL_LOCK_TYPE_FLOCK,
  FL_KERNEL_LOCK_TYPE_POSIX,
  FL_KERNEL_LOCK_TYPE_OFD,
  FL_KERNEL_LOCK_TYPE_LEASE,
  FL_KERNEL_LOCK_TYPE_DELEG,
  FL_KERNEL_LOCK_TYPE_UNKNOWN,
} FlKernelLockType;

/**
 * FlKernelLockMode:
 * @FL_KERNEL_LOCK_MODE_READ: shared.
 * @FL_KERNEL_LOCK_MODE_WRITE: exclusive.
 * @FL_KERNEL_LOCK_MODE_NONE: neither: a lease being broken.
 *
 * Its nicks ("read", "write", "none", from fl_kernel_lock_mode_to_string()) are stable.
 *
 * Since: 0.1
 */
typedef enum
{
  FL_KERNEL_LOCK_MODE_READ,
  FL_KERNEL_LOCK_MODE_WRITE,
  FL_KERNEL_LOCK_MODE_NONE,
} FlKernelLockMode;

G_END_DECLS
