/* flctl-text.c: bytes from files and command lines made safe to print
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

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
/* util-linux writes "flctl: cannot ...": libfl's and GLib's sentences start with a capital,
 * lowered here when they are English ("Cannot" -> "cannot"; "PID", "I/O" stay). A translation
 * keeps its own case: German nouns are capitalised. */
static void
lower_first_word (char *message)
{
  static const char sample[] = "Try 'flctl %s --help' for more information.\n";

  if (g_strcmp0 (_(sample), sample) != 0)
    return;
  if (g_ascii_isupper (message[0]) && g_ascii_islower (message[1]))
    message[0] = g_ascii_tolower (message[0]);
}

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
  lower_first_word (shown);

  if (command != NULL)
    g_printerr ("flctl %s: %s\n", command, shown);
  else
    g_printerr ("flctl: %s\n", shown);
}

/* Typography of GLib's, libfl's and the translations' messages, in ASCII. */
static const char *
ascii_for (gunichar c)
{
  switch (c)
    {
    case 0x2018: case 0x2019: case 0x201a: case 0x2039: case 0x203a:
      return "'";
    case 0x201c: case 0x201d: case 0x201e: case 0x00ab: case 0x00bb:
      return "\"";
    case 0x2026:
      return "...";
    case 0x2010: case 0x2011: case 0x2012: case 0x2013: case 0x2014: case 0x2212:
      return "-";
    case 0x00a0: case 0x202f:
      return " ";
    default:
      return NULL;
    }
}

/* For a locale whose charset is not UTF-8 (LANG=C, as cron and `env -i` run commands): what
 * GLib would write as '?' is written as what it means. Quotes, dashes and ellipses become
 * ASCII; any other character the charset lacks (a path's é in plain C) is written as its
 * UTF-8 bytes \xNN, which name it exactly, as flctl_printable() writes a bad byte. */
char *
flctl_text_for_charset (const char *text,
                        const char *charset)
{
  GString *out = g_string_sized_new (strlen (text));

  const char *p = text;

  while (*p != '\0')
    {
      gunichar c = g_utf8_get_char_validated (p, -1);
      gsize length = (c == (gunichar) -1 || c == (gunichar) -2) ? 1 : (gsize) (g_utf8_next_char (p) - p);
      g_autofree char *converted = NULL;

      if ((guchar) *p < 0x80)
        g_string_append_c (out, *p);
      else if (length == 1)
        g_string_append_printf (out, "\\x%02x", (guchar) *p);
      else if ((converted = g_convert (p, length, charset, "UTF-8", NULL, NULL, NULL)) != NULL)
        g_string_append (out, converted);
      else if (ascii_for (c) != NULL)
        g_string_append (out, ascii_for (c));
      else
        for (gsize i = 0; i < length; i++)
          g_string_append_printf (out, "\\x%02x", (guchar) p[i]);
      p += length;
    }
  return g_string_free (out, FALSE);
}

static void
print_to (FILE       *stream,
          const char *text)
{
  const char *charset;

  /* The charset GLib's own g_print() writes in (on Windows, the console's code page). */
  if (g_get_console_charset (&charset))
    fputs (text, stream);
  else
    {
      g_autofree char *shown = flctl_text_for_charset (text, charset);

      fputs (shown, stream);
    }
  fflush (stream);
}

static void
print_out (const char *text)
{
  print_to (stdout, text);
}

static void
print_err (const char *text)
{
  print_to (stderr, text);
}

/* Everything flctl prints goes through g_print() and g_printerr(). */
void
flctl_text_install_print_handlers (void)
{
  g_set_print_handler (print_out);
  g_set_printerr_handler (print_err);
}
