/* fl-model-store-private.h: the model's entries, sorted by path, with exact items-changed
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-directory-model.h"

G_BEGIN_DECLS

/* A path that went away by a takeover's rename (T2), not a release. */
#define FL_MODEL_TAKEN_OVER (1u << 0)
/* The system said the path went away (deleted, moved out, renamed from) since it was read. */
#define FL_MODEL_GONE       (1u << 1)
/* Each time the system said the path was made (created, moved in, renamed to) since it was
 * read, this is added: the count is in the bits above. A lock that lived between two reads
 * is still reported, created and released, from its name alone. */
#define FL_MODEL_BORN       (1u << 8)
#define FL_MODEL_BIRTHS(flags) ((flags) >> 8)

typedef struct
{
  GPtrArray               *entries;  /* FlEntry *, sorted by path (strcmp), owns a reference */
  GListModel              *list;     /* the model, which items-changed is emitted on */
  guint                    quiet;    /* > 0: changes are not news (a first scan, a reclaim) */
  GHashTable              *expected_gone;  /* paths a bulk reclaim removes: their going is
                                            * not news either (path -> itself) */
  GHashTable              *read_ahead;     /* path -> FlReadAhead: files a read found before
                                            * the event that tells they were made */
  FlDirectoryModel        *model;    /* the owner, told of counts and changes */
} FlModelStore;

/* Keeps an entry (or a new snapshot) at @path out of a merge when FALSE. */
typedef gboolean (*FlModelStoreFilter) (const char *path,
                                        gpointer    user_data);

void      _fl_model_store_init      (FlModelStore            *store,
                                     FlDirectoryModel        *model);
/* Drops every entry without items-changed or accounting: for dispose. */
void      _fl_model_store_clear     (FlModelStore            *store);
void      _fl_model_store_finalize  (FlModelStore            *store);

static inline guint
_fl_model_store_get_n_entries (FlModelStore *store)
{
  return store->entries->len;
}

static inline FlEntry *
_fl_model_store_get_entry (FlModelStore *store,
                           guint         pos)
{
  return store->entries->pdata[pos];
}

/* Whether the going away of @path (an entry key), the next time it is seen, is the model's own doing (a bulk
 * reclaim removing it in a worker thread) rather than news. */
void      _fl_model_store_expect_gone (FlModelStore          *store,
                                       const char            *path,
                                       gboolean               expected);

/* TRUE with its position if @path is an entry, FALSE with the position it would have. */
gboolean  _fl_model_store_find      (FlModelStore            *store,
                                     const char              *path,
                                     guint                   *out_pos);
/* The current state of one path: @snap is NULL when the file is gone. @flags: TAKEN_OVER. */
void      _fl_model_store_apply     (FlModelStore            *store,
                                     const char              *path,
                                     FlSnapshot              *snap,
                                     guint                    flags);
/* The model's own reclaim removed @snap's file: its entry leaves now, without a read, if it
 * still shows that file (FALSE otherwise: another file took the path meanwhile, and is read
 * as any). The file event that follows finds nothing to remove, so nothing counts twice. */
gboolean  _fl_model_store_forget    (FlModelStore            *store,
                                     FlSnapshot              *snap);
/* Makes the entries under @prefix those of @snaps (sorted by path), in as few items-changed
 * as the differences allow. Entries for which @keep_entry is FALSE stay as they are; new
 * snapshots for which @take_new is FALSE are not added. */
void      _fl_model_store_merge     (FlModelStore            *store,
                                     const char              *prefix,
                                     GPtrArray               *snaps,
                                     FlModelStoreFilter       keep_entry,
                                     FlModelStoreFilter       take_new,
                                     gpointer                 filter_data);

/* Whether two snapshots of the same path show the same thing: if so, nothing is reported. */
gboolean  _fl_model_snapshots_equal (FlSnapshot              *a,
                                     FlSnapshot              *b);

G_END_DECLS
