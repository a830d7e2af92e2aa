/* flctl-status.c: `flctl status` (one record per lock) and `flctl list` (every file of DIRs)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-os.h"
#include "flctl-private.h"

/* What status shows for one PATH: a snapshot, or the target of a lock that does not exist. */
typedef struct
{
  FlSnapshot *snapshot;
  char       *unlocked_target;
} StatusItem;

static void
status_item_clear (gpointer data)
{
  StatusItem *item = data;

  g_clear_object (&item->snapshot);
  g_clear_pointer (&item->unlocked_target, g_free);
}

/* The target whose lock PATH would be, if nothing holds it; NULL when "not found" means
 * something else (a missing directory, a temp file that went away). */
static char *
unlocked_target_for (const char *path)
{
  g_autofree char *directory = NULL;

  if (flctl_is_etcd (path))
    return g_strdup (path);  /* not found: nothing is queued for it */
  directory = g_path_get_dirname (path);
  if (!flctl_os_is_real_directory (directory))
    return NULL;
  if (!flctl_looks_like_lock_file (path))
    return g_strdup (path);
  if (g_str_has_suffix (path, ".lock"))
    return g_strndup (path, strlen (path) - strlen (".lock"));
  return NULL;
}

static void
print_unlocked (const char *target)
{
  gboolean etcd = flctl_is_etcd (target);
  g_autofree char *lock_path = etcd ? g_strdup (target) : fl_lock_path_for (target);
  g_autofree char *shown_path = flctl_printable (lock_path);
  g_autofree char *shown_target = flctl_printable (target);
  g_autofree char *state = flctl_styled ("unlocked", FLCTL_STYLE_DIM,
                                         flctl_use_color (STDOUT_FILENO));

  g_print ("%s\n", shown_path);
  flctl_print_field (_("state"), state);
  flctl_print_field (_("kind"), "lock");
  flctl_print_field (_("target"), shown_target);
  flctl_print_field (_("reason"), etcd ? _("not locked: no key is queued for it in etcd")
                                      : _("not locked: the lock file does not exist"));
}

int
flctl_status_main (const FlctlArgs *args)
{
  g_autoptr(GArray) items = g_array_new (FALSE, TRUE, sizeof (StatusItem));
  g_autoptr(FlctlListing) listing = NULL;
  int status = FLCTL_EXIT_OK;
  gint64 now;

  /* Any table option asks for the table of `flctl list` instead of the records. */
  if (flctl_args_has_table_options (args))
    {
      g_autoptr(GError) error = NULL;

      listing = flctl_listing_new (args, &error);
      if (listing == NULL)
        return flctl_usage_error ("status", "%s", error->message);
    }
  g_array_set_clear_func (items, status_item_clear);
  for (gsize i = 0; args->operands[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      StatusItem item = { NULL, NULL };

      if (!flctl_is_etcd (args->operands[i]) && flctl_os_is_real_directory (args->operands[i]))
        {
          g_autofree char *shown = flctl_printable (args->operands[i]);

          /* Its lock would be DIR.lock; what an operator asking about a folder wants is
           * most likely the locks in it. */
          g_printerr (_("flctl status: %s is a directory: this is the lock of the directory "
                        "itself; 'flctl list %s' lists the locks in it\n"), shown, shown);
        }
      item.snapshot = flctl_snapshot_for_path (args->operands[i], NULL, &error);
      if (item.snapshot == NULL && flctl_error_is_not_found (error))
        item.unlocked_target = unlocked_target_for (args->operands[i]);
      if (item.snapshot == NULL && item.unlocked_target == NULL)
        {
          status = flctl_report_error ("status", error);
          continue;
        }
      g_array_append_val (items, item);
    }

  now = g_get_real_time ();
  if (listing != NULL)
    {
      for (guint i = 0; i < items->len; i++)
        {
          StatusItem *item = &g_array_index (items, StatusItem, i);

          if (item->snapshot != NULL)
            flctl_listing_add (listing, item->snapshot);
          else
            flctl_listing_add_unlocked (listing, item->unlocked_target);
        }
      flctl_listing_print (listing, now);
      return status;
    }
  if (args->records)
    {
      g_autoptr(FlctlJson) builder = flctl_json_new (TRUE);

      flctl_json_begin_array (builder);
      for (guint i = 0; i < items->len; i++)
        {
          StatusItem *item = &g_array_index (items, StatusItem, i);

          if (item->snapshot != NULL)
            flctl_snapshot_to_json (builder, item->snapshot, now);
          else
            flctl_unlocked_to_json (builder, item->unlocked_target);
        }
      flctl_json_end_array (builder);
      flctl_print_json (builder);
    }
  else
    {
      for (guint i = 0; i < items->len; i++)
        {
          StatusItem *item = &g_array_index (items, StatusItem, i);

          if (i > 0)
            g_print ("\n");
          if (item->snapshot != NULL)
            flctl_print_record (item->snapshot, now);
          else
            print_unlocked (item->unlocked_target);
        }
    }
  return status;
}

int
flctl_list_main (const FlctlArgs *args)
{
  g_autoptr(GPtrArray) snapshots = NULL;
  g_autoptr(FlctlListing) listing = NULL;
  g_autoptr(GError) error = NULL;
  int status = FLCTL_EXIT_OK;
  gint64 now;

  if (args->kernel)
    return flctl_list_kernel_main (args);
  listing = flctl_listing_new (args, &error);
  if (listing == NULL)
    return flctl_usage_error ("list", "%s", error->message);
  snapshots = flctl_scan_directories ((const char * const *) args->operands, args->recursive,
                                      "list", &status);
  if (args->pid > 0)
    for (guint i = snapshots->len; i-- > 0;)
      if (fl_snapshot_get_pid (g_ptr_array_index (snapshots, i)) != args->pid)
        g_ptr_array_remove_index (snapshots, i);
  now = g_get_real_time ();
  if (args->records)
    {
      g_autoptr(FlctlJson) builder = flctl_json_new (TRUE);

      flctl_json_begin_array (builder);
      for (guint i = 0; i < snapshots->len; i++)
        flctl_snapshot_to_json (builder, g_ptr_array_index (snapshots, i), now);
      flctl_json_end_array (builder);
      flctl_print_json (builder);
    }
  else
  if (snapshots->len > 0 || args->json)
    {
      for (guint i = 0; i < snapshots->len; i++)
        flctl_listing_add (listing, g_ptr_array_index (snapshots, i));
      flctl_listing_print (listing, now);
    }
  else if (status == FLCTL_EXIT_OK)
    {
      g_printerr (_("flctl list: no lock, temp or graveyard files found\n"));
    }
  return status;
}
