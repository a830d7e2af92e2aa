/* fl-dir-cache.c: the last lock directory, kept open for the next acquire (docs/protocol.md,
 * step A1 and section 3a)
 *
 * Opening and closing the lock directory was a sixth of an uncontended cycle. A release leaves
 * its directory here and the next acquire of the same directory takes it. One slot per process,
 * exchanged atomically, so that threads never share a descriptor and a fork() in the middle
 * leaves no lock held in the child. The descriptor is O_CLOEXEC like every other.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "protocol/fl-dir-cache-private.h"

typedef struct
{
  char  *path;
  FlDir *dir;
} Entry;

static Entry *slot;  /* atomic */

static void
entry_free (Entry *entry)
{
  if (entry == NULL)
    return;
  _fl_platform_dir_close (entry->dir);
  g_free (entry->path);
  g_free (entry);
}

FlDir *
_fl_dir_cache_take (const char *directory)
{
  Entry *entry = g_atomic_pointer_exchange (&slot, NULL);
  FlDir *dir;

  if (entry == NULL)
    return NULL;
  if (strcmp (entry->path, directory) != 0)
    {
      /* Another directory's: put it back unless a release filled the slot meanwhile. */
      if (!g_atomic_pointer_compare_and_exchange (&slot, NULL, entry))
        entry_free (entry);
      return NULL;
    }
  dir = entry->dir;
  entry->dir = NULL;
  entry_free (entry);
  return dir;
}

void
_fl_dir_cache_put (const char *directory,
                   FlDir      *dir)
{
  Entry *entry;

  if (dir == NULL)
    return;
  if (!_fl_platform_dir_keep_open ())
    {
      _fl_platform_dir_close (dir);
      return;
    }
  entry = g_new (Entry, 1);
  entry->path = g_strdup (directory);
  entry->dir = dir;
  entry_free (g_atomic_pointer_exchange (&slot, entry));
}
