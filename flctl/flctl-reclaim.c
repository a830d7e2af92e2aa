/* flctl-reclaim.c: `flctl reclaim` (stale locks) and `flctl clean` (orphaned temp and graveyard
 * files), both through fl_snapshot_reclaim(): the library re-checks the file and its holder
 * under its own kernel lock, so what flctl showed can never be acted on once it is out of date.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flctl-private.h"

/* 74 (an I/O error) outranks every other outcome of a batch, then the highest code wins. */
static int
combine_status (int current,
                int next)
{
  if (current == FLCTL_EXIT_IO || next == FLCTL_EXIT_IO)
    return FLCTL_EXIT_IO;
  return MAX (current, next);
}

static gboolean
check_can_ask (const char *command,
               gboolean    dry_run,
               gboolean    yes)
{
  if (dry_run || yes || flctl_stdin_is_terminal ())
    return TRUE;
  flctl_usage_error (command, _("standard input is not a terminal, so flctl cannot ask: "
                                "pass -y to go ahead without asking, or --dry-run"));
  return FALSE;
}

/* An etcd lock is never stale (etcd judges it alive): ending it is always forced, and the
 * operator names the very lease they saw, so that a lock that changed hands meanwhile is
 * refused before anything is asked. */
static gboolean
check_lease (FlSnapshot *snapshot,
             const char *shown,
             const char *lease_arg)
{
  gint64 lease = fl_snapshot_get_lease_id (snapshot);
  g_autofree char *lease_hex = lease != 0 ? flctl_format_lease (lease) : NULL;
  guint64 given;
  char *end = NULL;

  if (lease == 0)
    {
      if (lease_arg == NULL)
        return TRUE;
      g_printerr (_("flctl reclaim: refusing %s: --lease is for etcd locks, and this is a "
                    "lock file\n"), shown);
      return FALSE;
    }
  if (lease_arg == NULL)
    {
      g_printerr (_("flctl reclaim: %s is an etcd lock held with lease %s: to revoke that "
                    "lease, confirm it with --force --lease %s\n"), shown, lease_hex,
                  lease_hex);
      return FALSE;
    }
  given = g_ascii_strtoull (lease_arg, &end, 16);
  if (lease_arg[0] == '\0' || *end != '\0' || given != (guint64) lease)
    {
      g_autofree char *arg = flctl_printable (lease_arg);

      g_printerr (_("flctl reclaim: refusing %s: it is held with lease %s now, not the lease "
                    "%s you gave (it changed hands, or that is another lock's); it was left "
                    "untouched: look at it again\n"), shown, lease_hex, arg);
      return FALSE;
    }
  return TRUE;
}

/* A held kernel lock is the one thing no option overrides: say so, and how to end its holder. */
static void
explain_held (FlSnapshot *snapshot,
              gboolean    force)
{
  int pid = fl_snapshot_get_pid (snapshot);
  int keeper = fl_snapshot_get_keeper_pid (snapshot);

  if (force)
    g_printerr (_("flctl reclaim: --force overrides only libfl's doubt about a holder it cannot "
                  "prove gone; it never removes a lock whose kernel lock is held, since a "
                  "process still holds it\n"));
  if (fl_snapshot_get_holder_exited (snapshot) && keeper > 0)
    g_printerr (_("flctl reclaim: to free it, end the process that keeps it: kill %d\n"),
                keeper);
  else if (fl_snapshot_get_holder_exited (snapshot))
    g_printerr (_("flctl reclaim: to free it, end the process that inherited the descriptor "
                  "of PID %d (as root, flctl status names it)\n"), pid);
  else if (fl_snapshot_get_holder_stopped (snapshot))
    g_printerr (_("flctl reclaim: to free it, continue its holder (kill -CONT %d) so that it "
                  "finishes, or end it (kill %d)\n"), pid, pid);
  else if (pid > 0)
    g_printerr (_("flctl reclaim: to free it, let its holder finish, or end it: kill %d\n"),
                pid);
}

static int
reclaim_one (const char *path,
             gboolean    dry_run,
             gboolean    yes,
             gboolean    force,
             const char *lease_arg)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FlSnapshot) snapshot = NULL;
  g_autofree char *shown = flctl_printable (path);
  g_autofree char *question = NULL;
  gboolean forced;

  snapshot = flctl_snapshot_for_path (path, NULL, &error);
  if (snapshot == NULL && flctl_error_is_not_found (error) && flctl_is_etcd (path))
    {
      g_printerr (_("flctl reclaim: %s is not locked: nothing to reclaim\n"), shown);
      return FLCTL_EXIT_REFUSED;
    }
  if (snapshot == NULL && flctl_error_is_not_found (error))
    {
      g_autofree char *lock = flctl_looks_like_lock_file (path) ? g_strdup (path)
                                                                : fl_lock_path_for (path);
      g_autofree char *shown_lock = flctl_printable (lock);

      g_printerr (_("flctl reclaim: there is no %s: nothing to reclaim\n"), shown_lock);
      return FLCTL_EXIT_REFUSED;
    }
  if (snapshot == NULL)
    return flctl_report_error ("reclaim", error);

  /* The evidence comes first, whatever the decision. */
  flctl_print_record (snapshot, g_get_real_time ());

  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_OTHER_PROGRAM)
    {
      g_printerr (_("flctl reclaim: refusing %s, which is %s's lock file, not libfl's: flctl "
                    "never reclaims it, even with --force (see “about” above)\n"),
                  shown, fl_lock_format_get_label (fl_snapshot_get_lock_format (snapshot)));
      return FLCTL_EXIT_REFUSED;
    }
  if (fl_snapshot_get_kind (snapshot) == FL_ENTRY_FOREIGN)
    {
      g_printerr (_("flctl reclaim: refusing %s, which is not a regular file (%s); libfl "
                    "never touches it: remove it by hand if it is yours\n"),
                  shown, fl_snapshot_get_reason (snapshot));
      return FLCTL_EXIT_REFUSED;
    }
  forced = !fl_snapshot_get_stale (snapshot);
  if (forced && (!force || fl_snapshot_get_reclaimable (snapshot) != FL_RECLAIMABLE_UNPROVEN))
    {
      g_printerr (_("flctl reclaim: refusing %s, which is not stale (%s); it was left "
                    "untouched\n"),
                  shown, fl_snapshot_get_reason (snapshot));
      if (!force && fl_snapshot_get_lease_id (snapshot) != 0)
        {
          g_autofree char *lease = flctl_format_lease (fl_snapshot_get_lease_id (snapshot));

          g_printerr (_("flctl reclaim: etcd judges its lease alive; if you know its holder "
                        "must go, revoke that lease with --force --lease %s\n"), lease);
        }
      else if (!force && fl_snapshot_get_reclaimable (snapshot) == FL_RECLAIMABLE_UNPROVEN)
        /* Never by itself, or not yet (empty or unparsable content younger than stale_after). */
        g_printerr (_("flctl reclaim: libfl does not call it stale (now or ever, as its reason "
                      "says); if you know its holder is gone, reclaim it with --force\n"));
      else if (fl_snapshot_get_kernel_lock (snapshot) == FL_KERNEL_LOCK_HELD)
        explain_held (snapshot, force);
      return FLCTL_EXIT_REFUSED;
    }
  if (!check_lease (snapshot, shown, lease_arg))
    return FLCTL_EXIT_REFUSED;
  if (dry_run)
    {
      g_print (forced ? _("Would reclaim %s, forced: its holder may be alive\n")
                      : _("Would reclaim %s\n"), shown);
      return FLCTL_EXIT_OK;
    }
  /* Forced, the question names the evidence: the operator answers for the holder. */
  if (forced)
    question = g_strdup_printf (_("%s is not proven stale: its holder may be alive (%s). "
                                  "Reclaim it anyway?"),
                                shown, fl_snapshot_get_reason (snapshot));
  else
    question = g_strdup_printf (_("Reclaim %s?"), shown);
  if (!yes && !flctl_confirm (question))
    {
      g_printerr (_("flctl reclaim: %s left as it is\n"), shown);
      return FLCTL_EXIT_REFUSED;
    }
  if (forced ? !fl_snapshot_reclaim_unproven (snapshot, NULL, &error)
             : !fl_snapshot_reclaim (snapshot, NULL, &error))
    return flctl_report_error ("reclaim", error);
  g_print (_("Reclaimed %s\n"), shown);
  return FLCTL_EXIT_OK;
}

int
flctl_reclaim_main (const FlctlArgs *args)
{
  int status = FLCTL_EXIT_OK;

  if (!check_can_ask ("reclaim", args->dry_run, args->yes))
    return FLCTL_EXIT_USAGE;

  for (gsize i = 0; args->operands[i] != NULL; i++)
    {
      if (i > 0)
        g_print ("\n");
      status = combine_status (status, reclaim_one (args->operands[i], args->dry_run, args->yes,
                                                    args->force, args->lease));
    }
  return status;
}

static gboolean
is_orphan (FlSnapshot *snapshot)
{
  FlEntryKind kind = fl_snapshot_get_kind (snapshot);

  return (kind == FL_ENTRY_TEMP || kind == FL_ENTRY_GRAVEYARD) && fl_snapshot_get_stale (snapshot);
}

int
flctl_clean_main (const FlctlArgs *args)
{
  g_autoptr(GPtrArray) snapshots = NULL;
  g_autoptr(GPtrArray) orphans = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(FlctlListing) listing = NULL;
  g_autoptr(GError) columns_error = NULL;
  int status = FLCTL_EXIT_OK;
  g_autofree char *question = NULL;

  if (!check_can_ask ("clean", args->dry_run, args->yes))
    return FLCTL_EXIT_USAGE;
  listing = flctl_listing_new (args, &columns_error);
  if (listing == NULL)
    return flctl_usage_error ("clean", "%s", columns_error->message);

  snapshots = flctl_scan_directories ((const char * const *) args->operands, args->recursive,
                                      "clean", &status);
  for (guint i = 0; i < snapshots->len; i++)
    if (is_orphan (g_ptr_array_index (snapshots, i)))
      g_ptr_array_add (orphans, g_object_ref (g_ptr_array_index (snapshots, i)));

  if (orphans->len == 0)
    {
      if (status != FLCTL_EXIT_OK)
        return status;
      /* Nothing to do is success, as for rm -f: a quiet night fails no `set -e` job. */
      g_printerr (_("flctl clean: nothing to clean: no orphaned temp or graveyard file\n"));
      return FLCTL_EXIT_OK;
    }

  for (guint i = 0; i < orphans->len; i++)
    flctl_listing_add (listing, g_ptr_array_index (orphans, i));
  flctl_listing_print (listing, g_get_real_time ());
  if (args->dry_run)
    {
      g_print (ngettext ("Would remove %u orphaned file\n", "Would remove %u orphaned files\n",
                         orphans->len), orphans->len);
      return status;
    }
  question = g_strdup_printf (ngettext ("Remove %u orphaned file?", "Remove %u orphaned files?",
                                        orphans->len), orphans->len);
  if (!args->yes && !flctl_confirm (question))
    {
      g_printerr (_("flctl clean: nothing removed\n"));
      return FLCTL_EXIT_REFUSED;
    }

  for (guint i = 0; i < orphans->len; i++)
    {
      FlSnapshot *snapshot = g_ptr_array_index (orphans, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *shown = flctl_printable (fl_snapshot_get_path (snapshot));

      if (fl_snapshot_reclaim (snapshot, NULL, &error))
        g_print (_("Removed %s\n"), shown);
      else
        status = combine_status (status, flctl_report_error ("clean", error));
    }
  return status;
}
