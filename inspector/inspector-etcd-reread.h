/* inspector-etcd-reread.h: one etcd lock read again by libfl, off the main thread
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

G_BEGIN_DECLS

void        inspector_etcd_reread        (const char          *target,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
/* The fresh snapshot, or NULL with @error (the key is gone: G_IO_ERROR_NOT_FOUND). */
FlSnapshot *inspector_etcd_reread_finish (GAsyncResult        *result,
                                          GError             **error);

G_END_DECLS
