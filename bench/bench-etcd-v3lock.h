/* bench-etcd-v3lock.h: etcd's own lock, the baseline of fl-bench-etcd
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _V3Lock V3Lock;

V3Lock  *v3lock_new     (const char *endpoint);
void     v3lock_free    (V3Lock     *self);
gboolean v3lock_acquire (V3Lock     *self,
                         const char *name,
                         GError    **error);
gboolean v3lock_release (V3Lock     *self,
                         GError    **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (V3Lock, v3lock_free)

G_END_DECLS
