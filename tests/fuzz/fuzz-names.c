/* fuzz-names.c: directory entries classified by name, and targets turned into names
 *
 * Every name _fl_classify_name() accepts must be one libfl itself would write: a temp or a
 * graveyard rebuilt from its parts is byte for byte the name it came from. Every target that
 * _fl_lock_path_init() accepts gives a lock, a temp and a graveyard name that classify back to
 * themselves and fit NAME_MAX.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libfl/fl.h>

#include "protocol/fl-names-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static guint32
parse_hex8 (const char *p)
{
  char hex[9];

  memcpy (hex, p, 8);
  hex[8] = '\0';
  return (guint32) strtoul (hex, NULL, 16);
}

static void
check_classified (const char *name,
                  gsize       len)
{
  g_autofree char *lock_name = NULL;
  g_autofree char *rebuilt = NULL;
  FlNameInfo info;
  const char *tail;
  guint32 tag;

  if (!_fl_classify_name (name, len, &info))
    return;

  g_assert_null (memchr (name, '\0', len));
  g_assert_null (memchr (name, '/', len));
  g_assert_cmpuint (info.lock_name_len, >, strlen (".lock"));
  g_assert_cmpuint (info.lock_name_len, <=, len);
  g_assert_true (memcmp (name + info.lock_name_len - 5, ".lock", 5) == 0);
  lock_name = g_strndup (name, info.lock_name_len);

  switch (info.kind)
    {
    case FL_ENTRY_LOCK:
      g_assert_cmpuint (info.lock_name_len, ==, len);
      g_assert_cmpint (info.creator_pid, ==, 0);
      return;

    case FL_ENTRY_TEMP:
      g_assert_cmpuint (len, >=, 13);
      tail = name + len - 12;                        /* "<8 hex>.tmp" */
      tag = parse_hex8 (tail);
      rebuilt = _fl_temp_name (lock_name, info.creator_pid, tag);
      break;

    case FL_ENTRY_GRAVEYARD:
      g_assert_cmpuint (len, >=, 8);
      tail = name + len - 8;                         /* "<8 hex>" */
      tag = parse_hex8 (tail);
      rebuilt = _fl_graveyard_name (lock_name, info.creator_pid, tag);
      break;

    case FL_ENTRY_FOREIGN:
    default:
      g_assert_not_reached ();
    }

  g_assert_cmpint (info.creator_pid, >=, 1);
  g_assert_cmpint (info.creator_pid, <=, FL_PID_MAX);
  g_assert_cmpuint (strlen (rebuilt), ==, len);
  g_assert_true (memcmp (rebuilt, name, len) == 0);
}

static void
check_round_trip (const char  *name,
                  FlEntryKind  kind,
                  gsize        lock_name_len,
                  int          pid)
{
  FlNameInfo info;
  FlEntryKind public_kind;

  g_assert_cmpuint (strlen (name), <=, NAME_MAX);
  g_assert_true (_fl_classify_name (name, strlen (name), &info));
  g_assert_cmpint (info.kind, ==, kind);
  g_assert_cmpuint (info.lock_name_len, ==, lock_name_len);
  g_assert_cmpint (info.creator_pid, ==, pid);
  g_assert_true (fl_entry_kind_for_name (name, &public_kind));
  g_assert_cmpint (public_kind, ==, kind);
}

static void
check_target (const char *target,
              int         pid,
              guint32     tag)
{
  g_auto(FlLockPath) lp = { 0 };
  g_autofree char *temp = NULL;
  g_autofree char *graveyard = NULL;
  g_autofree char *public_path = NULL;
  gsize lock_len;

  public_path = fl_lock_path_for (target);
  if (!_fl_lock_path_init (&lp, target, NULL))
    {
      g_assert_null (public_path);
      return;
    }

  g_assert_cmpstr (public_path, ==, lp.lock_path);
  g_assert_true (g_str_has_suffix (lp.lock_path, lp.lock_name));
  g_assert_null (strchr (lp.lock_name, '/'));
  lock_len = strlen (lp.lock_name);

  check_round_trip (lp.lock_name, FL_ENTRY_LOCK, lock_len, 0);

  temp = _fl_temp_name (lp.lock_name, pid, tag);
  check_round_trip (temp, FL_ENTRY_TEMP, lock_len, pid);

  graveyard = _fl_graveyard_name (lp.lock_name, pid, tag);
  check_round_trip (graveyard, FL_ENTRY_GRAVEYARD, lock_len, pid);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autofree char *target = NULL;
  guint32 tag = 0;
  int pid;

  check_classified ((const char *) data, size);

  /* The rest as a target path: four bytes of it give the PID and tag of its temp files. */
  if (size >= 4)
    {
      memcpy (&tag, data, 4);
      pid = 1 + (int) (tag % FL_PID_MAX);
      target = g_strndup ((const char *) data + 4, size - 4);
      if (strlen (target) == size - 4)              /* a path holds no NUL */
        check_target (target, pid, tag);
    }

  return 0;
}
