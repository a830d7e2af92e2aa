/* flctl-table.h: the one table interface of flctl, with two implementations
 *
 * flctl-table-scols.c prints through libsmartcols, as lslocks(8) does; flctl-table-builtin.c,
 * for hosts without it (mingw), prints the same text. flctl/meson.build picks one. Kept narrow
 * so that the fallback stays small: columns, rows of cells, five flags. JSON here is lslocks'
 * -J, the cells under lowercase column names, numbers as numbers and "-" as null; flctl's own
 * records (-j) are richer than cells (flctl-output.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  FLCTL_STYLE_NONE,
  FLCTL_STYLE_GOOD,
  FLCTL_STYLE_BAD,
  FLCTL_STYLE_WARN,
  FLCTL_STYLE_DIM,
} FlctlStyle;

typedef enum
{
  FLCTL_TABLE_DEFAULT    = 0,
  FLCTL_TABLE_RAW        = 1 << 0,  /* one space between cells, blanks and bytes escaped \xNN */
  FLCTL_TABLE_NOHEADINGS = 1 << 1,
  FLCTL_TABLE_NOTRUNCATE = 1 << 2,  /* never cut a cell to the terminal's width */
  FLCTL_TABLE_COLOR      = 1 << 3,
  FLCTL_TABLE_JSON       = 1 << 4,  /* lslocks -J: {"locks": [{"pid": 1, "path": "..."}]} */
} FlctlTableFlags;

typedef enum
{
  FLCTL_COLUMN_DEFAULT  = 0,
  FLCTL_COLUMN_RIGHT    = 1 << 0,   /* numbers */
  FLCTL_COLUMN_TRUNCATE = 1 << 1,   /* may be cut on a terminal too narrow (paths) */
} FlctlColumnFlags;

typedef struct _FlctlTable FlctlTable;

FlctlTable *flctl_table_new        (FlctlTableFlags         flags);
void        flctl_table_add_column (FlctlTable             *table,
                                    const char             *header,
                                    FlctlColumnFlags        flags);
/* @cells: one per column, bytes as they are: each backend escapes them the same way (for
 * people through flctl_printable(), with --raw as \xNN). @styles: NULL, or one per column. */
void        flctl_table_add_row    (FlctlTable             *table,
                                    const char * const     *cells,
                                    const FlctlStyle       *styles);
/* To standard output. */
void        flctl_table_print      (FlctlTable             *table);
void        flctl_table_free       (FlctlTable             *table);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlctlTable, flctl_table_free)

G_END_DECLS
