/* flctl-table-scols.c: flctl's tables through libsmartcols, as lslocks(8) prints its own
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdio.h>

#include <libsmartcols.h>

#include "flctl-private.h"

struct _FlctlTable
{
  struct libscols_table *table;
  FlctlTableFlags flags;
};

FlctlTable *
flctl_table_new (FlctlTableFlags flags)
{
  FlctlTable *self = g_new0 (FlctlTable, 1);

  self->flags = flags;
  self->table = scols_new_table ();
  if (self->table == NULL)
    g_error ("libsmartcols: out of memory");
  scols_table_enable_raw (self->table, (flags & FLCTL_TABLE_RAW) != 0);
  scols_table_enable_noheadings (self->table, (flags & FLCTL_TABLE_NOHEADINGS) != 0);
  scols_table_enable_colors (self->table, (flags & FLCTL_TABLE_COLOR) != 0);
  scols_table_set_stream (self->table, stdout);
  if (flags & FLCTL_TABLE_JSON)
    {
      /* As lslocks -J: one array named "locks", keys the lowercase column names. */
      scols_table_enable_json (self->table, 1);
      scols_table_set_name (self->table, "locks");
    }
  return self;
}

void
flctl_table_add_column (FlctlTable       *self,
                        const char       *header,
                        FlctlColumnFlags  flags)
{
  struct libscols_column *column;
  int scols_flags = 0;

  if (flags & FLCTL_COLUMN_RIGHT)
    scols_flags |= SCOLS_FL_RIGHT;
  if ((flags & FLCTL_COLUMN_TRUNCATE) && !(self->flags & FLCTL_TABLE_NOTRUNCATE))
    scols_flags |= SCOLS_FL_TRUNC;
  column = scols_table_new_column (self->table, header, 0, scols_flags);
  if (column == NULL)
    g_error ("libsmartcols: out of memory");
  /* lslocks' PID is a JSON number: so are flctl's right-aligned (numeric) columns. */
  if (flags & FLCTL_COLUMN_RIGHT)
    scols_column_set_json_type (column, SCOLS_JSON_NUMBER);
}

void
flctl_table_add_row (FlctlTable         *self,
                     const char * const *cells,
                     const FlctlStyle   *styles)
{
  struct libscols_line *line = scols_table_new_line (self->table, NULL);
  size_t n = scols_table_get_ncols (self->table);

  if (line == NULL)
    g_error ("libsmartcols: out of memory");
  for (size_t i = 0; i < n; i++)
    {
      /* --raw: libsmartcols escapes the bytes themselves, as lslocks' paths; for people,
       * flctl's own escapes (a newline shown as \n), as everywhere else in flctl. */
      if (self->flags & FLCTL_TABLE_JSON)
        scols_line_set_data (line, i, g_str_equal (cells[i], "-") ? NULL : cells[i]);
      else if (self->flags & FLCTL_TABLE_RAW)
        scols_line_set_data (line, i, cells[i]);
      else
        scols_line_refer_data (line, i, flctl_printable (cells[i]));
      /* flctl_styled()'s colours: libsmartcols takes a sequence as well as a name. */
      if (styles != NULL && flctl_style_get_sgr (styles[i]) != NULL)
        {
          g_autofree char *sequence = g_strdup_printf ("\033[%sm",
                                                       flctl_style_get_sgr (styles[i]));

          scols_cell_set_color (scols_line_get_cell (line, i), sequence);
        }
    }
}

void
flctl_table_print (FlctlTable *self)
{
  scols_print_table (self->table);
  fflush (stdout);
}

void
flctl_table_free (FlctlTable *self)
{
  scols_unref_table (self->table);
  g_free (self);
}
