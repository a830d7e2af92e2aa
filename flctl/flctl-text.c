/* flctl-text.c: bytes from files and command lines made safe to print
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "flctl-text.h"

/* Paths, and command lines echoed in messages, are bytes: one holding a newline, an escape
 * sequence or invalid UTF-8 must not break a table or take over a terminal. Control
 * characters become C escapes, bytes that are not UTF-8 become \xNN; the JSON output carries
 * the exact name. */
char *
flctl_printable (const char *text)
{
  GString *out = g_string_sized_new (strlen (text));
  const char *p = text;
  const char *end = text + strlen (text);

  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar) *p);
          p++;
          continue;
        }
      if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c >= 0x80 && c < 0xa0)
        g_string_append_printf (out, "\\u%04x", c);  /* C1: U+009B is CSI to some terminals */
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

/* Errors go through here: they quote paths, command lines and what was typed (flctl's
 * messages, GOption's and libfl's alike) as bytes, and are printed escaped, on one line.
 * NULL @command: flctl's own. */
void
flctl_print_error (const char *command,
                   const char *format,
                   ...)
{
  g_autofree char *message = NULL;
  g_autofree char *shown = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  shown = flctl_printable (message);

  if (command != NULL)
    g_printerr ("flctl %s: %s\n", command, shown);
  else
    g_printerr ("flctl: %s\n", shown);
}
