/* fl-content.c: what a lock file says: its content as the original module reads it
 * (docs/protocol.md, J4), and the identity xattr, written and read back (section 1)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "protocol/fl-content-private.h"
#include "protocol/fl-names-private.h"

/* "2 <pid> <start ticks, hex> <boot id, 16 hex> <pidns, hex> <kernel lock 0|1> <time ns, hex>"
 *
 * At most 55 bytes, on purpose: ext4 keeps an xattr value of up to about 60 bytes inside the
 * inode, and a longer one costs a separate block, which made every acquire on disk 5x slower
 * (docs/protocol.md, section 1, has the worst case). The boot id is shortened: it is only ever
 * compared. */
gsize
_fl_identity_format (const FlIdentity *identity,
                     char             *buf,
                     gsize             size)
{
  int n = g_snprintf (buf, size,
                      "2 %d %" G_GINT64_MODIFIER "x %s %" G_GINT64_MODIFIER "x %d %"
                      G_GINT64_MODIFIER "x",
                      identity->pid, identity->start_ticks,
                      identity->boot_id[0] ? identity->boot_id : "-",
                      identity->pidns, identity->kernel_lock ? 1 : 0, identity->timens);

  return n > 0 && (gsize) n < size ? (gsize) n : 0;
}

static gboolean
is_printable_token (const char *s,
                    gsize       max)
{
  gsize len = strlen (s);

  if (len == 0 || len >= max)
    return FALSE;
  for (; *s; s++)
    if (*s <= ' ' || *s > '~')
      return FALSE;
  return TRUE;
}

/* Version 1's last field, as its readers accepted it. */
#define V1_HOST_MAX 72

static gboolean
parse_hex (const char *s,
           guint64    *value)
{
  return _fl_parse_digits (s, strlen (s), 16, 16, value);
}

/* The seven fields of either version; @identity is zeroed and may be left half filled. */
static gboolean
parse_fields (char       *copy,
              FlIdentity *identity)
{
  g_auto(GStrv) fields = g_strsplit (copy, " ", 8);
  guint64 value;
  gboolean v1;

  if (g_strv_length (fields) != 7)
    return FALSE;
  v1 = strcmp (fields[0], "1") == 0;
  if (!v1 && strcmp (fields[0], "2") != 0)
    return FALSE;

  if (!_fl_parse_pid (fields[1], strlen (fields[1]), &identity->pid))
    return FALSE;
  if (!parse_hex (fields[2], &identity->start_ticks))
    return FALSE;
  if (!is_printable_token (fields[3], sizeof identity->boot_id))
    return FALSE;
  if (strcmp (fields[3], "-") != 0)
    g_strlcpy (identity->boot_id, fields[3], sizeof identity->boot_id);
  if (!parse_hex (fields[4], &identity->pidns))
    return FALSE;
  if (!_fl_parse_digits (fields[5], strlen (fields[5]), 10, 20, &value) || value > 1)
    return FALSE;
  identity->kernel_lock = value == 1;
  if (v1)
    return is_printable_token (fields[6], V1_HOST_MAX);
  return parse_hex (fields[6], &identity->timens);
}

/* Strict: anything malformed is treated as no identity at all, never as a partial one.
 * Version 1 (libfl before issue 29) ended in a hash of the host name, which is ignored: it
 * cannot tell machines apart (docs/protocol.md, section 2); its time namespace is unknown. */
gboolean
_fl_identity_parse (const char *buf,
                    gsize       len,
                    FlIdentity *identity)
{
  char copy[FL_IDENTITY_MAX + 1];

  memset (identity, 0, sizeof *identity);

  if (len == 0 || len > FL_IDENTITY_MAX || memchr (buf, '\0', len) != NULL)
    return FALSE;

  memcpy (copy, buf, len);
  copy[len] = '\0';
  if (parse_fields (copy, identity))
    return TRUE;
  memset (identity, 0, sizeof *identity);
  return FALSE;
}

/* The characters JavaScript's String.prototype.trim() removes (WhiteSpace and LineTerminator). */
static gboolean
is_js_space (gunichar c)
{
  return (c >= 0x09 && c <= 0x0d) || c == 0x20 || c == 0xa0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f ||
         c == 0x205f || c == 0x3000 || c == 0xfeff;
}

/* What may still turn into a number once more bytes follow: digits, signs, the point, the
 * exponent, the radix prefixes and hex digits. */
static gboolean
is_number_char (gunichar c)
{
  return c != 0 && c < 0x80 &&
         (g_ascii_isxdigit ((char) c) || strchr ("+-.eExXoObB", (char) c) != NULL);
}

/* isProcessAlive() of a number: not finite or <= 0 is dead at once; a positive number that is
 * no int32 makes process.kill() throw ERR_INVALID_ARG_TYPE, which the module calls alive. */
static FlContentKind
classify_number (double  v,
                 gint64 *value)
{
  if (!isfinite (v) || v <= 0)
    return FL_CONTENT_NOT_PID;
  if (v > G_MAXINT32 || v != (double) (gint64) v)
    return FL_CONTENT_NOT_INT32;
  *value = (gint64) v;
  return *value > FL_PID_MAX ? FL_CONTENT_NO_SUCH_PID : FL_CONTENT_PID;
}

/* 0x, 0o, 0b: no sign, at least one digit, nothing else (Number() has no separators). */
static FlContentKind
parse_radix (const char *s,
             gsize       n,
             guint       base,
             gint64     *value)
{
  double v = 0;

  if (n == 0)
    return FL_CONTENT_NOT_PID;
  for (gsize i = 0; i < n; i++)
    {
      int digit = g_ascii_xdigit_value (s[i]);

      if (digit < 0 || (guint) digit >= base)
        return FL_CONTENT_NOT_PID;
      /* Past int32 only the sign of the value matters, and at most 62 digits stay finite. */
      v = v * base + digit;
    }
  return classify_number (v, value);
}

/* StrDecimalLiteral: [+-] ( Infinity | digits [. [digits]] [exp] | . digits [exp] ). */
static FlContentKind
parse_decimal (const char *s,
               gsize       n,
               gint64     *value)
{
  char copy[FL_CONTENT_PARSE_MAX + 1];
  gsize i = 0, digits = 0;
  double v;

  if (i < n && (s[i] == '+' || s[i] == '-'))
    i++;
  if (n - i == 8 && memcmp (s + i, "Infinity", 8) == 0)
    return FL_CONTENT_NOT_PID;  /* not finite */
  for (; i < n && g_ascii_isdigit (s[i]); i++)
    digits++;
  if (i < n && s[i] == '.')
    for (i++; i < n && g_ascii_isdigit (s[i]); i++)
      digits++;
  if (digits == 0)
    return FL_CONTENT_NOT_PID;
  if (i < n && (s[i] == 'e' || s[i] == 'E'))
    {
      gsize exp_digits = 0;

      i++;
      if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
      for (; i < n && g_ascii_isdigit (s[i]); i++)
        exp_digits++;
      if (exp_digits == 0)
        return FL_CONTENT_NOT_PID;
    }
  if (i != n || n > FL_CONTENT_PARSE_MAX)
    return FL_CONTENT_NOT_PID;

  /* Number() rounds to the nearest double, as strtod() does (1e-400 is 0, 1e400 Infinity);
   * only then does process.kill() ask whether it is an int32 (v == (v | 0)). */
  memcpy (copy, s, n);
  copy[n] = '\0';
  v = g_ascii_strtod (copy, NULL);
  return classify_number (v, value);
}

/* The module's readFileSync(path, 'utf8').trim(), then Number(), then what isProcessAlive()
 * makes of it: docs/protocol.md, step J4. Invalid UTF-8 decodes to U+FFFD, which is neither
 * space nor digit. */
FlContentKind
_fl_parse_content (const char *buf,
                   gsize       len,
                   gboolean    complete,
                   gint64     *value)
{
  gunichar cps[FL_CONTENT_PARSE_MAX + 1];
  char ascii[FL_CONTENT_PARSE_MAX + 1];
  gsize n = 0, start, end, a = 0;
  const char *p = buf, *stop = buf + MIN (len, (gsize) FL_CONTENT_PARSE_MAX);

  *value = 0;

  while (p < stop)
    {
      gunichar c;

      if (*p == '\0')
        {
          cps[n++] = 0;  /* g_utf8_get_char_validated() would call it incomplete */
          p++;
          continue;
        }
      c = g_utf8_get_char_validated (p, stop - p);
      if (c == (gunichar) -2 && !complete)
        {
          /* A character cut by the end of the read: it may be a space; leave it out. */
          break;
        }
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          cps[n++] = 0xfffd;
          p++;
          continue;
        }
      cps[n++] = c;
      p = g_utf8_next_char (p);
    }
  if (len > FL_CONTENT_PARSE_MAX)
    complete = FALSE;

  for (start = 0; start < n && is_js_space (cps[start]); start++)
    ;

  if (!complete)
    {
      /* The rest of the file is unread: a number so far, then only spaces, could still be
       * one PID or another ("4" then "2", "1" then "e3"), so nothing can be told. */
      gsize i = start;

      for (; i < n && is_number_char (cps[i]); i++)
        ;
      for (; i < n && is_js_space (cps[i]); i++)
        ;
      return i == n ? FL_CONTENT_UNTOLD : FL_CONTENT_NOT_PID;
    }

  for (end = n; end > start && is_js_space (cps[end - 1]); end--)
    ;
  for (gsize i = start; i < end; i++)
    {
      if (cps[i] >= 0x80 || cps[i] == 0)
        return FL_CONTENT_NOT_PID;
      ascii[a++] = (char) cps[i];
    }

  if (a == 0)
    return FL_CONTENT_EMPTY;  /* the module looks at the mtime, not at Number("") */
  if (a >= 2 && ascii[0] == '0' && (ascii[1] == 'x' || ascii[1] == 'X'))
    return parse_radix (ascii + 2, a - 2, 16, value);
  if (a >= 2 && ascii[0] == '0' && (ascii[1] == 'o' || ascii[1] == 'O'))
    return parse_radix (ascii + 2, a - 2, 8, value);
  if (a >= 2 && ascii[0] == '0' && (ascii[1] == 'b' || ascii[1] == 'B'))
    return parse_radix (ascii + 2, a - 2, 2, value);
  return parse_decimal (ascii, a, value);
}
