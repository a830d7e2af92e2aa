/* flctl-columns.c: -o/--output and the other table options, as lslocks(8) takes them
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <unistd.h>

#include <glib/gi18n.h>

#include "flctl-private.h"

static gboolean
lookup_column (const char * const *names,
               const char         *name,
               guint              *index)
{
  for (guint i = 0; names[i] != NULL; i++)
    if (g_ascii_strcasecmp (names[i], name) == 0)
      {
        *index = i;
        return TRUE;
      }
  return FALSE;
}

/* @spec: "PID,PATH" (any case), or "+TARGET" for the defaults and then TARGET, as lslocks
 * reads -o; NULL for the defaults, or every column with @all (--output-all). @names:
 * NULL-terminated. Returns the indices into @names,
 * or NULL and an error that names the unknown column and lists the known ones. */
GArray *
flctl_columns_select (const char         *spec,
                      gboolean            all,
                      const char * const *names,
                      const guint        *defaults,
                      guint               n_defaults,
                      GError            **error)
{
  g_autoptr(GArray) selected = g_array_new (FALSE, FALSE, sizeof (guint));
  g_auto(GStrv) parts = NULL;

  if (all)
    {
      for (guint i = 0; names[i] != NULL; i++)
        g_array_append_val (selected, i);
      return g_steal_pointer (&selected);
    }
  if (spec == NULL || spec[0] == '+')
    g_array_append_vals (selected, defaults, n_defaults);
  if (spec == NULL)
    return g_steal_pointer (&selected);

  parts = g_strsplit (spec[0] == '+' ? spec + 1 : spec, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint index;

      if (!lookup_column (names, parts[i], &index))
        {
          g_autofree char *known = g_strjoinv (", ", (char **) names);

          g_set_error (error, FLCTL_ARGS_ERROR, FLCTL_ARGS_ERROR_USAGE,
                       _("unknown column '%s' in --output; the columns are: %s"),
                       parts[i], known);
          return NULL;
        }
      g_array_append_val (selected, index);
    }
  return g_steal_pointer (&selected);
}

/* A table with the options given on the command line, and colour when it goes to a terminal
 * (never with --raw, which is for scripts). */
FlctlTable *
flctl_table_new_for_args (const FlctlArgs *args)
{
  FlctlTableFlags flags = FLCTL_TABLE_DEFAULT;

  if (args->raw)
    flags |= FLCTL_TABLE_RAW;
  else if (flctl_use_color (STDOUT_FILENO))
    flags |= FLCTL_TABLE_COLOR;
  if (args->noheadings)
    flags |= FLCTL_TABLE_NOHEADINGS;
  if (args->notruncate)
    flags |= FLCTL_TABLE_NOTRUNCATE;
  if (args->json)
    flags = FLCTL_TABLE_JSON;
  return flctl_table_new (flags);
}
