/* fl-handle-source-private.h: a main-loop source on a platform handle
 *
 * What g_unix_fd_add() is for a descriptor, for an FlHandle on any platform: GPollFD holds a
 * descriptor on POSIX and a HANDLE on Windows, and the main loop waits on either.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "platform/fl-platform.h"

G_BEGIN_DECLS

typedef gboolean (*FlHandleFunc) (FlHandle handle,
                                  gpointer user_data);

/* Calls @func in the global default main context, as g_unix_fd_add() does, when @handle
 * polls readable (a pidfd) or is signalled (a process HANDLE). Returns the source ID. */
guint _fl_handle_add_watch (FlHandle     handle,
                            FlHandleFunc func,
                            gpointer     user_data);

G_END_DECLS
