/* fl-names.c: lock, temp and graveyard names (docs/protocol.md, section 1)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "fl-error.h"
#include "fl-lock.h"
#include "fl-names-private.h"

#define LOCK_SUFFIX ".lock"
#define LOCK_SUFFIX_LEN 5

gboolean
_fl_lock_path_init (FlLockPath  *self,
                    const char  *target,
                    GError     **error)
{
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  gsize len;

  memset (self, 0, sizeof *self);

  if (target == NULL || target[0] == '\0')
    {
      g_set_error_literal (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                           "The lock target is empty: give the path of the file to lock");
      return FALSE;
    }

  len = strlen (target);
  if (target[len - 1] == '/')
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   "The lock target “%s” ends with a slash: name a file, not a directory",
                   target);
      return FALSE;
    }

  if (len + LOCK_SUFFIX_LEN >= PATH_MAX)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   "The lock target “%.64s…” is %zu bytes long; its lock path would exceed "
                   "PATH_MAX (%d): use a shorter path",
                   target, len, PATH_MAX);
      return FALSE;
    }

  dir = g_path_get_dirname (target);
  base = g_path_get_basename (target);

  /* The temp and graveyard names are the longest names the protocol makes. */
  if (strlen (base) + LOCK_SUFFIX_LEN + FL_NAME_SUFFIX_MAX > NAME_MAX)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   "The lock target “%s” has a file name of %zu bytes; its temp and graveyard "
                   "names would exceed NAME_MAX (%d): use a name of at most %d bytes",
                   target, strlen (base), NAME_MAX,
                   NAME_MAX - LOCK_SUFFIX_LEN - FL_NAME_SUFFIX_MAX);
      return FALSE;
    }

  self->target = g_strdup (target);
  self->directory = g_steal_pointer (&dir);
  self->lock_name = g_strconcat (base, LOCK_SUFFIX, NULL);
  self->lock_path = g_strconcat (target, LOCK_SUFFIX, NULL);

  return TRUE;
}

void
_fl_lock_path_clear (FlLockPath *self)
{
  g_clear_pointer (&self->target, g_free);
  g_clear_pointer (&self->directory, g_free);
  g_clear_pointer (&self->lock_name, g_free);
  g_clear_pointer (&self->lock_path, g_free);
}

/**
 * fl_lock_path_for:
 * @target: the file to lock
 *
 * Returns: (transfer full) (nullable): the path of @target's lock file, `@target.lock`, or
 *   %NULL if @target cannot name a lock (empty, or ending with a slash)
 */
char *
fl_lock_path_for (const char *target)
{
  FlLockPath lp;
  char *ret;

  if (!_fl_lock_path_init (&lp, target, NULL))
    return NULL;

  ret = g_steal_pointer (&lp.lock_path);
  _fl_lock_path_clear (&lp);

  return ret;
}

char *
_fl_temp_name (const char *lock_name,
               int         pid,
               guint32     tag)
{
  return g_strdup_printf ("%s.%d.%08x.tmp", lock_name, pid, tag);
}

char *
_fl_graveyard_name (const char *lock_name,
                    int         pid,
                    guint32     tag)
{
  return g_strdup_printf ("%s.gy.%d.%08x", lock_name, pid, tag);
}

/* Canonical decimal only, as the Node module writes String(process.pid): no sign, no
 * whitespace, no leading zero, nothing after the digits, and within the kernel's PID range. */
gboolean
_fl_parse_pid (const char *buf,
               gsize       len,
               int        *pid)
{
  gint64 value = 0;

  if (len == 0 || len > 7 || buf[0] == '0')
    return FALSE;

  for (gsize i = 0; i < len; i++)
    {
      if (buf[i] < '0' || buf[i] > '9')
        return FALSE;
      value = value * 10 + (buf[i] - '0');
    }

  if (value < 1 || value > FL_PID_MAX)
    return FALSE;

  *pid = (int) value;
  return TRUE;
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

static FlContentKind
classify_integer (gint64  v,
                  gint64 *value)
{
  *value = v;
  if (v <= 0)
    return FL_CONTENT_GROUP;
  if (v > FL_PID_MAX)
    return FL_CONTENT_NO_SUCH_PID;
  return FL_CONTENT_PID;
}

/* 0x, 0o, 0b: no sign, at least one digit, nothing else (Number() has no separators). */
static FlContentKind
parse_radix (const char *s,
             gsize       n,
             guint       base,
             gint64     *value)
{
  gint64 v = 0;

  if (n == 0)
    return FL_CONTENT_NOT_PID;
  for (gsize i = 0; i < n; i++)
    {
      int digit = g_ascii_xdigit_value (s[i]);

      if (digit < 0 || (guint) digit >= base)
        return FL_CONTENT_NOT_PID;
      /* Anything past int32 is no PID to process.kill(); stop counting there. */
      if (v <= G_MAXINT32)
        v = v * base + digit;
    }
  if (v > G_MAXINT32)
    return FL_CONTENT_NOT_PID;
  return classify_integer (v, value);
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
    return FL_CONTENT_NOT_PID;
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

  /* Number() rounds to the nearest double, as strtod() does; only then does process.kill()
   * ask whether it is an int32 (v == (v | 0)). */
  memcpy (copy, s, n);
  copy[n] = '\0';
  v = g_ascii_strtod (copy, NULL);
  if (!(v >= G_MININT32 && v <= G_MAXINT32) || v != (double) (gint64) v)
    return FL_CONTENT_NOT_PID;
  return classify_integer ((gint64) v, value);
}

/* The module's readFileSync(path, 'utf8').trim(), then Number(), then what process.kill(v, 0)
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
    return classify_integer (0, value);  /* Number("") is 0 */
  if (a >= 2 && ascii[0] == '0' && (ascii[1] == 'x' || ascii[1] == 'X'))
    return parse_radix (ascii + 2, a - 2, 16, value);
  if (a >= 2 && ascii[0] == '0' && (ascii[1] == 'o' || ascii[1] == 'O'))
    return parse_radix (ascii + 2, a - 2, 8, value);
  if (a >= 2 && ascii[0] == '0' && (ascii[1] == 'b' || ascii[1] == 'B'))
    return parse_radix (ascii + 2, a - 2, 2, value);
  return parse_decimal (ascii, a, value);
}

static gboolean
is_lower_hex8 (const char *p)
{
  for (guint i = 0; i < 8; i++)
    if (!g_ascii_isdigit (p[i]) && !(p[i] >= 'a' && p[i] <= 'f'))
      return FALSE;
  return TRUE;
}

static gboolean
ends_with_lock (const char *name,
                gsize       len)
{
  return len > LOCK_SUFFIX_LEN && memcmp (name + len - LOCK_SUFFIX_LEN, LOCK_SUFFIX,
                                          LOCK_SUFFIX_LEN) == 0;
}

/* Parses "<L>.<pid>.<8 hex>" ending at @end; on success *lock_len is the length of <L>. */
static gboolean
parse_pid_tag_tail (const char *name,
                    gsize       end,
                    gsize      *lock_len,
                    int        *pid)
{
  gsize digits_end, digits_start;

  if (end < 10 || name[end - 9] != '.' || !is_lower_hex8 (name + end - 8))
    return FALSE;

  digits_end = end - 9;
  digits_start = digits_end;
  while (digits_start > 0 && g_ascii_isdigit (name[digits_start - 1]))
    digits_start--;

  if (digits_start == 0 || name[digits_start - 1] != '.')
    return FALSE;
  if (!_fl_parse_pid (name + digits_start, digits_end - digits_start, pid))
    return FALSE;

  *lock_len = digits_start - 1;
  return TRUE;
}

gboolean
_fl_classify_name (const char *name,
                   gsize       len,
                   FlNameInfo *info)
{
  gsize lock_len;
  int pid;

  memset (info, 0, sizeof *info);

  if (memchr (name, '\0', len) != NULL || memchr (name, '/', len) != NULL)
    return FALSE;

  /* T.lock.<pid>.<8 hex>.tmp */
  if (len > 4 && memcmp (name + len - 4, ".tmp", 4) == 0 &&
      parse_pid_tag_tail (name, len - 4, &lock_len, &pid) &&
      ends_with_lock (name, lock_len))
    {
      info->kind = FL_ENTRY_TEMP;
      info->lock_name_len = lock_len;
      info->creator_pid = pid;
      return TRUE;
    }

  /* T.lock.gy.<pid>.<8 hex> */
  if (parse_pid_tag_tail (name, len, &lock_len, &pid) &&
      lock_len > 3 && memcmp (name + lock_len - 3, ".gy", 3) == 0 &&
      ends_with_lock (name, lock_len - 3))
    {
      info->kind = FL_ENTRY_GRAVEYARD;
      info->lock_name_len = lock_len - 3;
      info->creator_pid = pid;
      return TRUE;
    }

  if (ends_with_lock (name, len))
    {
      info->kind = FL_ENTRY_LOCK;
      info->lock_name_len = len;
      return TRUE;
    }

  return FALSE;
}
