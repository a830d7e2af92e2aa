/* fl-content.c: the identity xattr, written and read back (docs/protocol.md, section 1)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "fl-content-private.h"
#include "fl-names-private.h"

/* "1 <pid> <start ticks, hex> <boot id, 16 hex> <pidns, hex> <kernel lock 0|1> <host, 8 hex>"
 *
 * At most 55 bytes, on purpose: ext4 keeps an xattr value of up to about 60 bytes inside the
 * inode, and a longer one costs a separate block, which made every acquire on disk 5x slower.
 * The boot id is shortened and the host name hashed: both are only ever compared. */
gsize
_fl_identity_format (const FlIdentity *identity,
                     char             *buf,
                     gsize             size)
{
  int n = g_snprintf (buf, size, "1 %d %" G_GINT64_MODIFIER "x %s %" G_GINT64_MODIFIER "x %d %s",
                      identity->pid, identity->start_ticks,
                      identity->boot_id[0] ? identity->boot_id : "-",
                      identity->pidns, identity->kernel_lock ? 1 : 0,
                      identity->host[0] ? identity->host : "-");

  return n > 0 && (gsize) n < size ? (gsize) n : 0;
}

static gboolean
parse_hex_u64 (const char *s,
               guint64    *out)
{
  guint64 value = 0;

  if (*s == '\0' || strlen (s) > 16)
    return FALSE;
  for (; *s; s++)
    {
      if (!g_ascii_isxdigit (*s) || g_ascii_isupper (*s))
        return FALSE;
      value = (value << 4) | (guint64) g_ascii_xdigit_value (*s);
    }
  *out = value;
  return TRUE;
}

static gboolean
parse_u64 (const char *s,
           guint64    *out)
{
  guint64 value = 0;

  if (*s == '\0' || strlen (s) > 20)
    return FALSE;
  for (; *s; s++)
    {
      if (!g_ascii_isdigit (*s))
        return FALSE;
      guint64 digit = (guint64) (*s - '0');

      /* Exact: value * 10 + digit fits exactly when value <= (MAX - digit) / 10. */
      if (value > (G_MAXUINT64 - digit) / 10)
        return FALSE;
      value = value * 10 + digit;
    }
  *out = value;
  return TRUE;
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

/* Strict: anything malformed is treated as no identity at all, never as a partial one. */
gboolean
_fl_identity_parse (const char *buf,
                    gsize       len,
                    FlIdentity *identity)
{
  char copy[FL_IDENTITY_MAX + 1];
  g_auto(GStrv) fields = NULL;
  guint64 value;

  memset (identity, 0, sizeof *identity);

  if (len == 0 || len > FL_IDENTITY_MAX || memchr (buf, '\0', len) != NULL)
    return FALSE;

  memcpy (copy, buf, len);
  copy[len] = '\0';

  fields = g_strsplit (copy, " ", 8);
  if (g_strv_length (fields) != 7 || strcmp (fields[0], "1") != 0)
    return FALSE;

  if (!_fl_parse_pid (fields[1], strlen (fields[1]), &identity->pid))
    return FALSE;
  if (!parse_hex_u64 (fields[2], &identity->start_ticks))
    return FALSE;
  if (!is_printable_token (fields[3], sizeof identity->boot_id))
    return FALSE;
  if (strcmp (fields[3], "-") != 0)
    g_strlcpy (identity->boot_id, fields[3], sizeof identity->boot_id);
  if (!parse_hex_u64 (fields[4], &identity->pidns))
    return FALSE;
  if (!parse_u64 (fields[5], &value) || value > 1)
    return FALSE;
  identity->kernel_lock = value == 1;
  if (!is_printable_token (fields[6], sizeof identity->host))
    return FALSE;
  if (strcmp (fields[6], "-") != 0)
    g_strlcpy (identity->host, fields[6], sizeof identity->host);

  return TRUE;
}
