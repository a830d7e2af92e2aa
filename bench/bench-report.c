/* bench-report.c: the table fl-bench prints, and the targets it checks
 *
 * Sections are collected while the benchmark runs and printed at the end in one piece, so the
 * table can be pasted whole; progress goes to stderr meanwhile.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "bench.h"

#define LABEL_WIDTH 31
#define CELL_WIDTH 17
#define RATIO_WIDTH 14

typedef enum
{
  ITEM_SECTION,
  ITEM_ROW,
  ITEM_LINE,
} ItemKind;

typedef struct
{
  ItemKind   kind;
  char      *text;       /* section title, row label, or a preformatted line */
  char      *legend;
  BenchUnit  unit;
  gboolean   ratios;
  BenchCell  cells[BENCH_N_METHODS];
} Item;

typedef struct
{
  char      *what;
  double     value;
  double     limit;
  BenchUnit  unit;
} Target;

struct _BenchReport
{
  GPtrArray *items;
  GArray    *targets;
  GPtrArray *notes;
};

static void
item_free (gpointer data)
{
  Item *item = data;

  g_free (item->text);
  g_free (item->legend);
  g_free (item);
}

static void
target_clear (gpointer data)
{
  g_free (((Target *) data)->what);
}

BenchReport *
bench_report_new (void)
{
  BenchReport *self = g_new0 (BenchReport, 1);

  self->items = g_ptr_array_new_with_free_func (item_free);
  self->targets = g_array_new (FALSE, TRUE, sizeof (Target));
  g_array_set_clear_func (self->targets, target_clear);
  self->notes = g_ptr_array_new_with_free_func (g_free);
  return self;
}

void
bench_report_free (BenchReport *self)
{
  g_ptr_array_unref (self->items);
  g_array_unref (self->targets);
  g_ptr_array_unref (self->notes);
  g_free (self);
}

static Item *
add_item (BenchReport *self,
          ItemKind     kind,
          char        *text)
{
  Item *item = g_new0 (Item, 1);

  item->kind = kind;
  item->text = text;
  g_ptr_array_add (self->items, item);
  return item;
}

void
bench_report_section (BenchReport *self,
                      const char  *title,
                      const char  *legend)
{
  Item *item = add_item (self, ITEM_SECTION, g_strdup (title));

  item->legend = g_strdup (legend);
}

BenchCell *
bench_report_row (BenchReport *self,
                  const char  *label,
                  BenchUnit    unit,
                  gboolean     ratios)
{
  Item *item = add_item (self, ITEM_ROW, g_strdup (label));

  item->unit = unit;
  item->ratios = ratios;
  for (guint i = 0; i < BENCH_N_METHODS; i++)
    bench_cell_text (&item->cells[i], "-");
  return item->cells;
}

void
bench_report_line (BenchReport *self,
                   const char  *format,
                   ...)
{
  va_list args;

  va_start (args, format);
  add_item (self, ITEM_LINE, g_strdup_vprintf (format, args));
  va_end (args);
}

void
bench_report_target (BenchReport *self,
                     const char  *what,
                     double       value,
                     double       limit,
                     BenchUnit    unit)
{
  Target target = { g_strdup (what), value, limit, unit };

  g_array_append_val (self->targets, target);
}

void
bench_report_note (BenchReport *self,
                   const char  *format,
                   ...)
{
  va_list args;

  va_start (args, format);
  g_ptr_array_add (self->notes, g_strdup_vprintf (format, args));
  va_end (args);
}

char *
bench_format_value (double    value,
                    BenchUnit unit)
{
  if (isnan (value))
    return g_strdup ("n/a");

  switch (unit)
    {
    case BENCH_UNIT_TIME:
      if (value < 1e3)
        return g_strdup_printf ("%.0f ns", value);
      if (value < 1e4)
        return g_strdup_printf ("%.2f µs", value / 1e3);
      if (value < 1e6)
        return g_strdup_printf ("%.1f µs", value / 1e3);
      if (value < 1e7)
        return g_strdup_printf ("%.2f ms", value / 1e6);
      if (value < 1e9)
        return g_strdup_printf ("%.1f ms", value / 1e6);
      return g_strdup_printf ("%.2f s", value / 1e9);
    case BENCH_UNIT_RATE:
      if (value >= 1e6)
        return g_strdup_printf ("%.2f M/s", value / 1e6);
      if (value >= 1e3)
        return g_strdup_printf ("%.1f k/s", value / 1e3);
      return g_strdup_printf ("%.0f /s", value);
    case BENCH_UNIT_COUNT:
      return g_strdup_printf (value == floor (value) ? "%.0f" : "%.1f", value);
    case BENCH_UNIT_BYTES:
      return g_strdup_printf ("%.1f MB", value / 1e6);
    case BENCH_UNIT_RATIO:
      return g_strdup_printf (value < 10 ? "%.2f" : "%.0f", value);
    default:
      g_assert_not_reached ();
    }
}

char *
bench_format_cell (const BenchCell *cell,
                   BenchUnit        unit)
{
  g_autofree char *value = NULL;
  double spread;

  if (!cell->valid)
    return g_strdup (cell->text != NULL ? cell->text : "n/a");

  value = bench_format_value (cell->median, unit);
  if (cell->median <= 0 || cell->hi <= cell->lo)
    return g_steal_pointer (&value);
  spread = (cell->hi - cell->lo) / 2 / cell->median * 100;
  return g_strdup_printf (spread < 10 ? "%s ±%.1f%%" : "%s ±%.0f%%", value, spread);
}

/* printf's widths count bytes; µs and × are two. */
char *
bench_pad (const char *text,
           guint      width)
{
  glong len = g_utf8_strlen (text, -1);
  GString *s = g_string_new (text);

  for (glong i = len; i < (glong) width; i++)
    g_string_append_c (s, ' ');
  return g_string_free (s, FALSE);
}

static void
print_header (FILE *out)
{
  g_autofree char *label = bench_pad ("", LABEL_WIDTH);

  fputs (label, out);
  for (guint i = 0; i < BENCH_N_METHODS; i++)
    {
      g_autofree char *cell = bench_pad (bench_method_get ((BenchMethodId) i)->title, CELL_WIDTH);

      fputs (cell, out);
    }
  for (guint i = 0; i < BENCH_LIBFL; i++)
    {
      g_autofree char *title = g_strconcat ("libfl/", bench_method_get ((BenchMethodId) i)->name,
                                            NULL);
      g_autofree char *cell = bench_pad (title, RATIO_WIDTH);

      fputs (cell, out);
    }
  fputc ('\n', out);
}

static void
print_row (const Item *item,
           FILE       *out)
{
  g_autofree char *label = bench_pad (item->text, LABEL_WIDTH);
  const BenchCell *mine = &item->cells[BENCH_LIBFL];

  fputs (label, out);
  for (guint i = 0; i < BENCH_N_METHODS; i++)
    {
      g_autofree char *text = bench_format_cell (&item->cells[i], item->unit);
      g_autofree char *cell = bench_pad (text, CELL_WIDTH);

      fputs (cell, out);
    }
  for (guint i = 0; item->ratios && i < BENCH_LIBFL; i++)
    {
      const BenchCell *base = &item->cells[i];
      g_autofree char *text = NULL;
      g_autofree char *cell = NULL;

      if (mine->valid && base->valid && base->median > 0)
        text = g_strdup_printf ("%.2f", mine->median / base->median);
      else
        text = g_strdup ("-");
      cell = bench_pad (text, RATIO_WIDTH);
      fputs (cell, out);
    }
  fputc ('\n', out);
}

static void
print_target (const Target *target,
              FILE         *out)
{
  g_autofree char *value = bench_format_value (target->value, target->unit);
  g_autofree char *limit = bench_format_value (target->limit, target->unit);
  gboolean met = !isnan (target->value) && target->value <= target->limit;

  fprintf (out, "  %-7s %s: %s%s (target ≤ %s%s)", met ? "met" : "MISSED", target->what,
           value, target->unit == BENCH_UNIT_RATIO ? "×" : "",
           limit, target->unit == BENCH_UNIT_RATIO ? "×" : "");
  if (!met && !isnan (target->value))
    fprintf (out, ": over by %.0f%%", (target->value / target->limit - 1) * 100);
  fputc ('\n', out);
}

void
bench_report_print (BenchReport *self,
                    FILE        *out)
{
  guint n_met = 0;

  for (guint i = 0; i < self->items->len; i++)
    {
      const Item *item = g_ptr_array_index (self->items, i);

      switch (item->kind)
        {
        case ITEM_SECTION:
          fprintf (out, "\n%s\n", item->text);
          if (item->legend != NULL)
            fprintf (out, "  (%s)\n", item->legend);
          if (i + 1 < self->items->len
              && ((const Item *) g_ptr_array_index (self->items, i + 1))->kind == ITEM_ROW)
            print_header (out);
          break;
        case ITEM_ROW:
          print_row (item, out);
          break;
        case ITEM_LINE:
          fprintf (out, "%s\n", item->text);
          break;
        default:
          g_assert_not_reached ();
        }
    }

  fputs ("\nTargets (libfl against a baseline measured in this run, or an absolute bound)\n", out);
  for (guint i = 0; i < self->targets->len; i++)
    {
      const Target *target = &g_array_index (self->targets, Target, i);

      print_target (target, out);
      if (!isnan (target->value) && target->value <= target->limit)
        n_met++;
    }
  fprintf (out, "  %u of %u targets met\n", n_met, self->targets->len);

  if (self->notes->len > 0)
    fputs ("\nNotes\n", out);
  for (guint i = 0; i < self->notes->len; i++)
    fprintf (out, "  - %s\n", (const char *) g_ptr_array_index (self->notes, i));
  fflush (out);
}
