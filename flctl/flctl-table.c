/* flctl-table.c: the aligned table of `flctl list` and `flctl clean`
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-private.h"

/* Keeps the start and the end of a path, which tell most. Below 24 columns a cut path says
 * too little: the terminal may wrap it instead. */
static char *
elide_middle (const char *text,
              int         width)
{
  glong length = g_utf8_strlen (text, -1);
  g_autofree char *head = NULL;
  const char *tail;

  if (width < 24 || length <= width)
    return g_strdup (text);
  head = g_utf8_substring (text, 0, (width - 1) / 2);
  tail = g_utf8_offset_to_pointer (text, length - (width - 1 - (width - 1) / 2));
  return g_strconcat (head, "…", tail, NULL);
}

enum { COL_STATE, COL_KIND, COL_PID, COL_PROCESS, COL_LIVENESS, COL_HOST, COL_LEASE,
       COL_WAITERS, COL_AGE, COL_PATH, N_COLS };

/* The etcd columns only when an etcd lock is listed: a listing of files stays as it was. */
static gboolean
any_etcd (GPtrArray *snapshots)
{
  for (guint i = 0; i < snapshots->len; i++)
    if (fl_snapshot_get_lease_id (g_ptr_array_index (snapshots, i)) != 0)
      return TRUE;
  return FALSE;
}

void
flctl_print_table (GPtrArray *snapshots,
                   gint64     now_us)
{
  static const char *const headers[N_COLS] = {
    N_("STATE"), N_("KIND"), N_("PID"), N_("PROCESS"), N_("LIVENESS"), N_("HOST"), N_("LEASE"),
    N_("WAITERS"), N_("AGE"), N_("PATH"),
  };
  gboolean etcd = any_etcd (snapshots);
  gboolean color = flctl_use_color (STDOUT_FILENO);
  int terminal = flctl_terminal_width (STDOUT_FILENO);
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  int widths[N_COLS] = { 0 };
  int used = 0;

  for (guint i = 0; i <= snapshots->len; i++)
    {
      char **cells = g_new0 (char *, N_COLS + 1);

      if (i == 0)
        {
          for (int c = 0; c < N_COLS; c++)
            cells[c] = g_strdup (_(headers[c]));
        }
      else
        {
          FlSnapshot *snapshot = g_ptr_array_index (snapshots, i - 1);
          FlEntryKind kind = fl_snapshot_get_kind (snapshot);
          const char *process = fl_snapshot_get_process_name (snapshot);
          int pid = fl_snapshot_get_pid (snapshot);
          gboolean foreign = kind == FL_ENTRY_FOREIGN;

          cells[COL_STATE] = g_strdup (fl_entry_state_to_string (fl_snapshot_get_state (snapshot)));
          /* Another program's lock: which program, and who it records. */
          cells[COL_KIND] = g_strdup (kind == FL_ENTRY_OTHER_PROGRAM
                                      ? fl_lock_format_to_string (
                                          fl_snapshot_get_lock_format (snapshot))
                                      : fl_entry_kind_to_string (kind));
          cells[COL_PID] = pid > 0 ? g_strdup_printf ("%d", pid) : g_strdup ("-");
          if (kind == FL_ENTRY_OTHER_PROGRAM)
            {
              g_autofree char *owner = fl_snapshot_dup_owner_summary (snapshot);

              cells[COL_PROCESS] = flctl_printable (owner);
            }
          else
            cells[COL_PROCESS] = flctl_printable (process != NULL ? process : "-");
          cells[COL_LIVENESS] = g_strdup (foreign ? "-" : fl_liveness_to_string (
                                            fl_snapshot_get_liveness (snapshot)));
          cells[COL_HOST] = flctl_printable (fl_snapshot_get_host (snapshot) != NULL
                                             ? fl_snapshot_get_host (snapshot) : "-");
          cells[COL_LEASE] = fl_snapshot_get_lease_id (snapshot) != 0
                             ? flctl_format_lease (fl_snapshot_get_lease_id (snapshot))
                             : g_strdup ("-");
          cells[COL_WAITERS] = fl_snapshot_get_waiters (snapshot) != NULL
                               ? g_strdup_printf ("%u", fl_snapshot_get_waiters (snapshot)->len)
                               : g_strdup ("-");
          cells[COL_AGE] = foreign ? g_strdup ("-")
                                   : fl_format_age (fl_snapshot_get_age_at (snapshot, now_us));
          cells[COL_PATH] = flctl_printable (fl_snapshot_get_path (snapshot));
        }
      for (int c = 0; c < N_COLS - 1; c++)
        widths[c] = MAX (widths[c], (int) g_utf8_strlen (cells[c], -1));
      g_ptr_array_add (rows, cells);
    }

  if (!etcd)
    widths[COL_HOST] = widths[COL_LEASE] = widths[COL_WAITERS] = -1;  /* not shown */
  for (int c = 0; c < N_COLS - 1; c++)
    if (widths[c] >= 0)
      used += widths[c] + 2;

  for (guint i = 0; i < rows->len; i++)
    {
      char **cells = g_ptr_array_index (rows, i);
      g_autofree char *path = elide_middle (cells[COL_PATH], terminal > 0 ? terminal - used : 0);

      for (int c = 0; c < N_COLS - 1; c++)
        {
          int pad = widths[c] - (int) g_utf8_strlen (cells[c], -1) + 2;

          if (widths[c] < 0)
            continue;
          if (c == COL_STATE && i > 0)
            {
              FlSnapshot *snapshot = g_ptr_array_index (snapshots, i - 1);
              FlEntryState state = fl_snapshot_get_state (snapshot);
              g_autofree char *styled = flctl_styled (cells[c], flctl_style_for_state (state),
                                                      color);

              g_print ("%s%*s", styled, pad, "");
            }
          else if (c == COL_PID || c == COL_WAITERS)
            {
              /* Numbers align to the right. */
              g_print ("%*s%s  ", widths[c] - (int) strlen (cells[c]), "", cells[c]);
            }
          else
            {
              g_print ("%s%*s", cells[c], pad, "");
            }
        }
      g_print ("%s\n", path);
    }
}

void
flctl_print_aligned (GPtrArray *rows,
                     int        n_cols,
                     int        right_col)
{
  int terminal = flctl_terminal_width (STDOUT_FILENO);
  g_autofree int *widths = g_new0 (int, n_cols);
  int used = 0;

  for (guint i = 0; i < rows->len; i++)
    for (int c = 0; c < n_cols - 1; c++)
      widths[c] = MAX (widths[c], (int) g_utf8_strlen (((char **) rows->pdata[i])[c], -1));
  for (int c = 0; c < n_cols - 1; c++)
    used += widths[c] + 2;

  for (guint i = 0; i < rows->len; i++)
    {
      char **cells = g_ptr_array_index (rows, i);
      g_autofree char *last = elide_middle (cells[n_cols - 1], terminal > 0 ? terminal - used : 0);

      for (int c = 0; c < n_cols - 1; c++)
        {
          int pad = widths[c] - (int) g_utf8_strlen (cells[c], -1);

          if (c == right_col)
            g_print ("%*s%s  ", pad, "", cells[c]);
          else
            g_print ("%s%*s", cells[c], pad + 2, "");
        }
      g_print ("%s\n", last);
    }
}
