/* fl-process.c: what libfl knows about processes, on top of the platform's probe
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "support/fl-process-private.h"

/* g_malloc() is the system malloc() since GLib 2.46, so what this returns may be freed with
 * free(), as the platform frees what it allocated. */
char *
_fl_process_make_label (char *raw)
{
  char *label;

  if (raw == NULL)
    return NULL;
  label = g_utf8_make_valid (raw, -1);
  free (raw);
  for (guchar *c = (guchar *) label; *c; c++)
    if (*c < 0x20 || *c == 0x7f)
      *c = '?';
  return label;
}

void
_fl_process_probe (int            pid,
                   gboolean       details,
                   FlProcessInfo *info)
{
  _fl_platform_process_probe (pid, details, info);
  info->name = _fl_process_make_label (info->name);
  info->cmdline = _fl_process_make_label (info->cmdline);
}

void
_fl_process_info_clear (FlProcessInfo *info)
{
  _fl_platform_process_info_clear (info);
}

static gint cache_epoch;

void
_fl_process_cache_invalidate (void)
{
  g_atomic_int_inc (&cache_epoch);
}

typedef struct
{
  int            pid;
  int            epoch;
  gint64         at;
  FlProcessInfo  info;       /* name points into name_buf; never freed */
  char           name_buf[64];
} CachedProcess;

void
_fl_process_probe_cached (int            pid,
                          FlProcessInfo *info)
{
  /* Direct-mapped, per thread, no heap: nothing to free when the thread ends. */
  static _Thread_local CachedProcess cache[64];
  CachedProcess *slot = &cache[(guint) pid % G_N_ELEMENTS (cache)];
  gint64 now = g_get_monotonic_time ();
  int epoch = g_atomic_int_get (&cache_epoch);

  if (pid <= 0 || slot->pid != pid || slot->epoch != epoch ||
      now - slot->at > FL_PROCESS_CACHE_US)
    {
      FlProcessInfo fresh;

      _fl_process_probe (pid, FALSE, &fresh);
      slot->pid = pid;
      slot->epoch = epoch;
      slot->at = now;
      slot->info = fresh;
      slot->info.name = NULL;
      slot->info.cmdline = NULL;
      if (fresh.name != NULL)
        {
          g_strlcpy (slot->name_buf, fresh.name, sizeof slot->name_buf);
          slot->info.name = slot->name_buf;
        }
      _fl_process_info_clear (&fresh);
    }

  *info = slot->info;
  /* The platform's allocator, so that _fl_process_info_clear() frees it like any other. */
  info->name = slot->info.name != NULL ? strdup (slot->info.name) : NULL;
}

GArray *
_fl_process_kernel_lock_holders (const FlFileId *id,
                                 gboolean        shared)
{
  int pids[FL_KERNEL_LOCK_HOLDERS_MAX];
  size_t n = 0;
  GArray *ret;

  if (!_fl_platform_kernel_lock_holders (id, shared ? FL_KERNEL_SHARED : FL_KERNEL_EXCLUSIVE,
                                         pids, G_N_ELEMENTS (pids), &n))
    return NULL;
  ret = g_array_sized_new (FALSE, FALSE, sizeof (int), (guint) n);
  g_array_append_vals (ret, pids, (guint) n);
  return ret;
}

GArray *
_fl_process_file_keepers (const FlFileId *id,
                          gboolean       *complete)
{
  int pids[FL_KERNEL_LOCK_HOLDERS_MAX];
  size_t n = 0;
  gboolean all;
  GArray *ret;

  all = _fl_platform_file_keepers (id, pids, G_N_ELEMENTS (pids), &n);
  if (complete != NULL)
    *complete = all;
  ret = g_array_sized_new (FALSE, FALSE, sizeof (int), (guint) n);
  g_array_append_vals (ret, pids, (guint) n);
  return ret;
}
