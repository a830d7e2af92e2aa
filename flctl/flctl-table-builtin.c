/* flctl-table-builtin.c: flctl's tables where libsmartcols is missing (mingw)
 *
 * Prints what flctl-table-scols.c prints through libsmartcols: cells padded to the widest,
 * one space apart, numbers to the right, the last cell unpadded; --raw one space apart, with
 * every byte that is blank, a backslash or not printable ASCII written \xNN, as
 * libsmartcols' raw mode and lslocks --raw write them. On a terminal too narrow, a
 * truncatable cell is cut in the middle, where libsmartcols cuts its end.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "flctl-private.h"

struct _FlctlTable
{
  FlctlTableFlags  flags;
  GPtrArray       *headers;   /* char * */
  GArray          *columns;   /* FlctlColumnFlags */
  GPtrArray       *rows;      /* char **, n_columns cells already escaped */
  GPtrArray       *styles;    /* FlctlStyle *, or NULL */
};

FlctlTable *
flctl_table_new (FlctlTableFlags flags)
{
  FlctlTable *self = g_new0 (FlctlTable, 1);

  self->flags = flags;
  self->headers = g_ptr_array_new_with_free_func (g_free);
  self->columns = g_array_new (FALSE, FALSE, sizeof (FlctlColumnFlags));
  self->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  self->styles = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
flctl_table_add_column (FlctlTable       *self,
                        const char       *header,
                        FlctlColumnFlags  flags)
{
  g_ptr_array_add (self->headers, g_strdup (header));
  g_array_append_val (self->columns, flags);
}

static char *
escape_raw (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const guchar *p = (const guchar *) text; *p != '\0'; p++)
    if (*p <= ' ' || *p >= 0x7f || *p == '\\')
      g_string_append_printf (out, "\\x%02x", *p);
    else
      g_string_append_c (out, (char) *p);
  return g_string_free (out, FALSE);
}

void
flctl_table_add_row (FlctlTable         *self,
                     const char * const *cells,
                     const FlctlStyle   *styles)
{
  guint n = self->columns->len;
  char **row = g_new0 (char *, n + 1);

  for (guint i = 0; i < n; i++)
    row[i] = (self->flags & FLCTL_TABLE_JSON) ? g_strdup (cells[i])
             : (self->flags & FLCTL_TABLE_RAW) ? escape_raw (cells[i])
             : flctl_printable (cells[i]);
  g_ptr_array_add (self->rows, row);
  g_ptr_array_add (self->styles, styles != NULL ? g_memdup2 (styles, n * sizeof *styles) : NULL);
}

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

static void
print_raw_line (FlctlTable  *self,
                char       **cells)
{
  for (guint i = 0; i < self->columns->len; i++)
    g_print ("%s%s", i > 0 ? " " : "", cells[i]);
  g_print ("\n");
}

static void
print_line (FlctlTable       *self,
            char            **cells,
            const FlctlStyle *styles,
            const int        *widths,
            int               cut_width)
{
  guint n = self->columns->len;

  for (guint i = 0; i < n; i++)
    {
      FlctlColumnFlags flags = g_array_index (self->columns, FlctlColumnFlags, i);
      g_autofree char *cut = NULL;
      g_autofree char *styled = NULL;
      const char *text = cells[i];
      int pad;

      if ((flags & FLCTL_COLUMN_TRUNCATE) && cut_width > 0)
        text = cut = elide_middle (text, cut_width);
      pad = widths[i] - (int) g_utf8_strlen (text, -1);
      styled = flctl_styled (text, styles != NULL ? styles[i] : FLCTL_STYLE_NONE,
                             (self->flags & FLCTL_TABLE_COLOR) != 0);
      if (i > 0)
        g_print (" ");
      if (flags & FLCTL_COLUMN_RIGHT)
        g_print ("%*s%s", MAX (pad, 0), "", styled);
      else if (i + 1 < n)
        g_print ("%s%*s", styled, MAX (pad, 0), "");
      else
        g_print ("%s", styled);
    }
  g_print ("\n");
}

/* What libsmartcols prints for lslocks -J: "-" is null, a numeric column's number bare. */
static void
print_json_value (const char       *cell,
                  FlctlColumnFlags  flags)
{
  const char *p = cell;

  if (g_str_equal (cell, "-"))
    {
      g_print ("null");
      return;
    }
  if (flags & FLCTL_COLUMN_RIGHT)
    {
      while (g_ascii_isdigit (*p))
        p++;
      if (p != cell && *p == '\0')
        {
          g_print ("%s", cell);
          return;
        }
    }
  g_print ("\"");
  for (p = cell; *p != '\0'; p++)
    if (*p == '"' || *p == '\\')
      g_print ("\\%c", *p);
    else if ((guchar) *p < 0x20)
      g_print ("\\u%04x", (guchar) *p);
    else
      g_print ("%c", *p);
  g_print ("\"");
}

static void
print_json (FlctlTable *self)
{
  guint n = self->columns->len;

  g_print ("{\n   \"locks\": [");
  for (guint r = 0; r < self->rows->len; r++)
    {
      char **cells = self->rows->pdata[r];

      g_print ("%s\n      {", r > 0 ? "," : "");
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *key = g_ascii_strdown (self->headers->pdata[i], -1);

          g_print ("%s\n         \"%s\": ", i > 0 ? "," : "", key);
          print_json_value (cells[i], g_array_index (self->columns, FlctlColumnFlags, i));
        }
      g_print ("\n      }");
    }
  g_print ("\n   ]\n}\n");
}

void
flctl_table_print (FlctlTable *self)
{
  guint n = self->columns->len;
  g_autofree int *widths = g_new0 (int, n);
  int terminal = (self->flags & FLCTL_TABLE_NOTRUNCATE) ? 0
                 : flctl_terminal_width (STDOUT_FILENO);
  int used = 0;
  int cut_width = 0;

  if (self->flags & FLCTL_TABLE_JSON)
    {
      print_json (self);
      return;
    }
  if (self->flags & FLCTL_TABLE_RAW)
    {
      if (!(self->flags & FLCTL_TABLE_NOHEADINGS))
        print_raw_line (self, (char **) self->headers->pdata);
      for (guint r = 0; r < self->rows->len; r++)
        print_raw_line (self, self->rows->pdata[r]);
      return;
    }

  for (guint i = 0; i < n; i++)
    {
      /* With --noheadings too, as libsmartcols (and so lslocks) sizes a column. */
      widths[i] = (int) g_utf8_strlen (self->headers->pdata[i], -1);
      for (guint r = 0; r < self->rows->len; r++)
        widths[i] = MAX (widths[i], (int) g_utf8_strlen (((char **) self->rows->pdata[r])[i], -1));
      used += widths[i] + 1;
    }
  /* Too wide for the terminal: the truncatable columns get what the others leave. */
  if (terminal > 0 && used - 1 > terminal)
    for (guint i = 0; i < n; i++)
      if (g_array_index (self->columns, FlctlColumnFlags, i) & FLCTL_COLUMN_TRUNCATE)
        {
          cut_width = MAX (terminal - (used - widths[i]), 1);
          widths[i] = MIN (widths[i], cut_width);
        }

  if (!(self->flags & FLCTL_TABLE_NOHEADINGS))
    print_line (self, (char **) self->headers->pdata, NULL, widths, 0);
  for (guint r = 0; r < self->rows->len; r++)
    print_line (self, self->rows->pdata[r], self->styles->pdata[r], widths, cut_width);
}

void
flctl_table_free (FlctlTable *self)
{
  g_ptr_array_unref (self->headers);
  g_array_unref (self->columns);
  g_ptr_array_unref (self->rows);
  g_ptr_array_unref (self->styles);
  g_free (self);
}
