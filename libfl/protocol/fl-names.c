/* fl-names.c: lock, temp and graveyard names (docs/protocol.md, section 1)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <limits.h>

/* 255 bytes is what Linux filesystems allow in one name; NTFS allows 255 UTF-16 units, which is
 * never fewer bytes of ASCII. Not every C library defines it (mingw-w64 does not). */
#ifndef NAME_MAX
# define NAME_MAX 255
#endif
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error.h"
#include "fl-lock.h"
#include "protocol/fl-names-private.h"

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
                           _("The lock target is empty: give the path of the file to lock"));
      return FALSE;
    }

  len = strlen (target);
  if (G_IS_DIR_SEPARATOR (target[len - 1]))
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("The lock target “%s” ends with a slash: name a file, not a directory"),
                   target);
      return FALSE;
    }

  if (len + LOCK_SUFFIX_LEN >= PATH_MAX)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("The lock target “%.64s…” is %zu bytes long; its lock path would exceed "
                     "PATH_MAX (%d): use a shorter path"),
                   target, len, PATH_MAX);
      return FALSE;
    }

  dir = g_path_get_dirname (target);
  base = g_path_get_basename (target);

  /* The temp and graveyard names are the longest names the protocol makes. */
  if (strlen (base) + LOCK_SUFFIX_LEN + FL_NAME_SUFFIX_MAX > NAME_MAX)
    {
      g_set_error (error, FL_ERROR, FL_ERROR_INVALID_TARGET,
                   _("The lock target “%s” has a file name of %zu bytes; its temp and graveyard "
                     "names would exceed NAME_MAX (%d): use a name of at most %d bytes"),
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
 * The name of the lock file for a target, as the Node module forms it; nothing is read or
 * written.
 *
 * Returns: (transfer full) (nullable): the path of @target's lock file, `@target.lock`, or
 *   %NULL if @target cannot name a lock (empty, or ending with a slash)
 *
 * Since: 0.1
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

/* Stricter than g_ascii_string_to_unsigned(), which lets a sign, spaces and "0x" through:
 * what libfl and the programs it reads write is digits and nothing else. */
gboolean
_fl_parse_digits (const char *buf,
                  gsize       len,
                  guint       base,
                  gsize       max_digits,
                  guint64    *out)
{
  guint64 value = 0;

  g_assert (base == 10 || base == 16);

  if (len == 0 || len > max_digits)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      int digit = base == 16 && !g_ascii_isupper (buf[i]) ? g_ascii_xdigit_value (buf[i])
                                                          : g_ascii_digit_value (buf[i]);

      /* Exact: value * base + digit fits exactly when value <= (MAX - digit) / base. */
      if (digit < 0 || value > (G_MAXUINT64 - (guint64) digit) / base)
        return FALSE;
      value = value * base + (guint64) digit;
    }
  *out = value;
  return TRUE;
}

/* Canonical decimal only, as the Node module writes String(process.pid): no sign, no
 * whitespace, no leading zero, nothing after the digits, and within the kernel's PID range. */
gboolean
_fl_parse_pid (const char *buf,
               gsize       len,
               int        *pid)
{
  guint64 value;

  if (len > 0 && buf[0] == '0')
    return FALSE;
  if (!_fl_parse_digits (buf, len, 10, 7, &value) || value < 1 || value > FL_PID_MAX)
    return FALSE;
  *pid = (int) value;
  return TRUE;
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

  if (memchr (name, '\0', len) != NULL || _fl_has_dir_separator (name, len))
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

const char *
_fl_path_last_component (const char *path)
{
  const char *base = path;

  for (const char *p = path; *p; p++)
    if (G_IS_DIR_SEPARATOR (*p))
      base = p + 1;
  return base;
}

gboolean
_fl_has_dir_separator (const char *s,
                       gsize       len)
{
  for (gsize i = 0; i < len; i++)
    if (G_IS_DIR_SEPARATOR (s[i]))
      return TRUE;
  return FALSE;
}
