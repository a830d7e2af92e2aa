/* flctl-listing.c: the table of `flctl list`, `flctl clean` and `flctl status -o`: one row
 * per lock, temp or graveyard file, in the columns -o chose
 *
 * The column names are flctl's interface, as lslocks' are its: English in every locale, so
 * that `-o PID,PATH` means the same everywhere. Add columns; never rename one.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "flctl-private.h"

static const char *const column_names[] = {
  "STATE", "KIND", "PID", "PROCESS", "LIVENESS", "HOST", "LEASE", "WAITERS", "AGE", "PATH",
  "TARGET", NULL
};

enum { COL_STATE, COL_KIND, COL_PID, COL_PROCESS, COL_LIVENESS, COL_HOST, COL_LEASE,
       COL_WAITERS, COL_AGE, COL_PATH, COL_TARGET, N_COLS };

/* The etcd columns only when an etcd lock is listed: a listing of files stays as it was. */
static const guint file_defaults[] = {
  COL_STATE, COL_KIND, COL_PID, COL_PROCESS, COL_LIVENESS, COL_AGE, COL_PATH
};
static const guint etcd_defaults[] = {
  COL_STATE, COL_KIND, COL_PID, COL_PROCESS, COL_LIVENESS, COL_HOST, COL_LEASE, COL_WAITERS,
  COL_AGE, COL_PATH
};

typedef struct
{
  FlSnapshot *snapshot;
  char       *unlocked_target;   /* status: a target nobody holds, without a snapshot */
} Row;

struct _FlctlListing
{
  const FlctlArgs *args;
  GArray          *rows;
  gboolean         etcd;
};

static void
row_clear (gpointer data)
{
  Row *row = data;

  g_clear_object (&row->snapshot);
  g_clear_pointer (&row->unlocked_target, g_free);
}

FlctlListing *
flctl_listing_new (const FlctlArgs  *args,
                   GError          **error)
{
  g_autoptr(GArray) check = NULL;
  FlctlListing *self;

  /* Refused before any directory is read, so a typo costs no scan. */
  check = flctl_columns_select (args->output, args->output_all, column_names, file_defaults,
                                G_N_ELEMENTS (file_defaults), error);
  if (check == NULL)
    return NULL;
  self = g_new0 (FlctlListing, 1);
  self->args = args;
  self->rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_array_set_clear_func (self->rows, row_clear);
  return self;
}

void
flctl_listing_add (FlctlListing *self,
                   FlSnapshot   *snapshot)
{
  Row row = { g_object_ref (snapshot), NULL };

  self->etcd = self->etcd || fl_snapshot_get_lease_id (snapshot) != 0;
  g_array_append_val (self->rows, row);
}

void
flctl_listing_add_unlocked (FlctlListing *self,
                            const char   *target)
{
  Row row = { NULL, g_strdup (target) };

  g_array_append_val (self->rows, row);
}

static char *
snapshot_cell (FlSnapshot *snapshot,
               guint       column,
               gint64      now_us)
{
  FlEntryKind kind = fl_snapshot_get_kind (snapshot);
  gboolean foreign = kind == FL_ENTRY_FOREIGN;
  const char *process = fl_snapshot_get_process_name (snapshot);
  const char *host = fl_snapshot_get_host (snapshot);
  const char *target = fl_snapshot_get_target (snapshot);
  GPtrArray *waiters = fl_snapshot_get_waiters (snapshot);
  int pid = fl_snapshot_get_pid (snapshot);

  switch (column)
    {
    case COL_STATE:
      return g_strdup (fl_entry_state_to_string (fl_snapshot_get_state (snapshot)));
    case COL_KIND:
      /* Another program's lock: which program. */
      return g_strdup (kind == FL_ENTRY_OTHER_PROGRAM
                       ? fl_lock_format_to_string (fl_snapshot_get_lock_format (snapshot))
                       : fl_entry_kind_to_string (kind));
    case COL_PID:
      return pid > 0 ? g_strdup_printf ("%d", pid) : g_strdup ("-");
    case COL_PROCESS:
      /* Another program's lock: who it records. */
      if (kind == FL_ENTRY_OTHER_PROGRAM)
        return fl_snapshot_dup_owner_summary (snapshot);
      return g_strdup (process != NULL ? process : "-");
    case COL_LIVENESS:
      return g_strdup (foreign ? "-" : flctl_liveness_label (snapshot));
    case COL_HOST:
      return g_strdup (host != NULL ? host : "-");
    case COL_LEASE:
      return fl_snapshot_get_lease_id (snapshot) != 0
             ? flctl_format_lease (fl_snapshot_get_lease_id (snapshot)) : g_strdup ("-");
    case COL_WAITERS:
      return waiters != NULL ? g_strdup_printf ("%u", waiters->len) : g_strdup ("-");
    case COL_AGE:
      return foreign ? g_strdup ("-") : fl_format_age (fl_snapshot_get_age_at (snapshot, now_us));
    case COL_PATH:
      return g_strdup (fl_snapshot_get_path (snapshot));
    case COL_TARGET:
      return g_strdup (target != NULL ? target : "-");
    default:
      g_assert_not_reached ();
    }
}

/* What `flctl status` says of a target nobody holds, in the same columns. */
static char *
unlocked_cell (const char *target,
               guint       column)
{
  switch (column)
    {
    case COL_STATE:
      return g_strdup ("unlocked");
    case COL_KIND:
      return g_strdup ("lock");
    case COL_PATH:
      return flctl_is_etcd (target) ? g_strdup (target) : fl_lock_path_for (target);
    case COL_TARGET:
      return g_strdup (target);
    default:
      return g_strdup ("-");
    }
}

void
flctl_listing_print (FlctlListing *self,
                     gint64        now_us)
{
  static const FlctlColumnFlags column_flags[N_COLS] = {
    [COL_PID] = FLCTL_COLUMN_RIGHT, [COL_WAITERS] = FLCTL_COLUMN_RIGHT,
    [COL_PATH] = FLCTL_COLUMN_TRUNCATE, [COL_TARGET] = FLCTL_COLUMN_TRUNCATE,
  };
  g_autoptr(GArray) columns = NULL;
  g_autoptr(FlctlTable) table = flctl_table_new_for_args (self->args);
  guint n;

  columns = flctl_columns_select (self->args->output, self->args->output_all,
                                  column_names,
                                  self->etcd ? etcd_defaults : file_defaults,
                                  self->etcd ? G_N_ELEMENTS (etcd_defaults)
                                             : G_N_ELEMENTS (file_defaults), NULL);
  g_assert (columns != NULL);  /* checked by flctl_listing_new() */
  n = columns->len;
  for (guint c = 0; c < n; c++)
    {
      guint column = g_array_index (columns, guint, c);

      flctl_table_add_column (table, column_names[column], column_flags[column]);
    }

  for (guint r = 0; r < self->rows->len; r++)
    {
      Row *row = &g_array_index (self->rows, Row, r);
      g_autofree FlctlStyle *styles = g_new0 (FlctlStyle, n);
      g_auto(GStrv) cells = g_new0 (char *, n + 1);

      for (guint c = 0; c < n; c++)
        {
          guint column = g_array_index (columns, guint, c);

          cells[c] = row->snapshot != NULL ? snapshot_cell (row->snapshot, column, now_us)
                                           : unlocked_cell (row->unlocked_target, column);
          if (column == COL_STATE && row->snapshot != NULL)
            styles[c] = flctl_style_for_state (fl_snapshot_get_state (row->snapshot));
        }
      flctl_table_add_row (table, (const char * const *) cells, styles);
    }
  flctl_table_print (table);
}

void
flctl_listing_free (FlctlListing *self)
{
  g_array_unref (self->rows);
  g_free (self);
}
