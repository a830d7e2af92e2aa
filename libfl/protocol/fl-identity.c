/* fl-identity.c: what a holder's identity proves to this process (docs/protocol.md, section 2)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "protocol/fl-content-private.h"
#include "support/fl-process-private.h"

/* Same machine is the same boot id and PID namespace; a host name proves nothing (anyone in
 * a UTS namespace sets another, and two machines may share one). The boot id is compared only
 * when both are known, since a missing /proc leaves ours empty. */
FlWritten
_fl_identity_written (const FlIdentity *identity,
                      gboolean          remote)
{
  FlIdentity me;
  gboolean boot_known, same_boot;

  _fl_identity_self (&me);
  boot_known = me.boot_id[0] && identity->boot_id[0];
  same_boot = boot_known && strcmp (me.boot_id, identity->boot_id) == 0;

  /* Over a network filesystem another boot id may be another machine, whose PIDs mean
   * nothing here; nor can a machine prove it is the one that wrote without both ids. */
  if (remote && !same_boot)
    return FL_WRITTEN_ELSEWHERE;
  /* A local filesystem is this machine's: another boot is an earlier one, whose processes
   * are all gone. */
  if (boot_known && !same_boot)
    return FL_WRITTEN_EARLIER_BOOT;
  if (identity->pidns != 0 && me.pidns != 0 && identity->pidns != me.pidns)
    return FL_WRITTEN_OTHER_PIDNS;
  return FL_WRITTEN_HERE;
}

/* /proc/PID/stat's start time is counted in the reader's time namespace: a holder in another
 * one (unshare --time) recorded ticks that this process cannot read back for the same process.
 * Unknown on either side (a version 1 record) is not equal: reuse is then never proven. */
gboolean
_fl_identity_ticks_comparable (const FlIdentity *identity)
{
  FlIdentity me;

  _fl_identity_self (&me);
  return identity->timens != 0 && identity->timens == me.timens;
}

/* Probed only when the record proves this machine: both boot ids known and equal, and this PID
 * namespace (a host name proves nothing). etcd is reached over a network, so an unknown boot
 * id is another machine maybe, as for a lock file on a network filesystem. */
FlRecordedProcess
_fl_identity_probe_record (const char *record,
                           int         pid)
{
  FlIdentity identity;
  FlProcessInfo info = { 0 };
  FlRecordedProcess found;

  if (record == NULL || !_fl_identity_parse (record, strlen (record), &identity) ||
      identity.pid != pid || pid <= 0 ||
      _fl_identity_written (&identity, TRUE) != FL_WRITTEN_HERE)
    return FL_RECORDED_NOT_HERE;
  _fl_process_probe (pid, FALSE, &info);
  switch (info.state)
    {
    case FL_PROCESS_GONE:
    case FL_PROCESS_ZOMBIE:
      found = FL_RECORDED_EXITED;
      break;
    case FL_PROCESS_RUNNING:
      found = info.start_ticks != 0 && _fl_identity_ticks_comparable (&identity) &&
              info.start_ticks != identity.start_ticks
              ? FL_RECORDED_REUSED : FL_RECORDED_RUNNING;
      break;
    case FL_PROCESS_UNKNOWN:
    default:
      found = FL_RECORDED_NOT_HERE;
      break;
    }
  _fl_process_info_clear (&info);
  return found;
}
