/* fl-held-private.h: the targets this process holds or is acquiring, whatever the backend
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Claims @key (a backend's one name of a lock: dup_held_key(), an absolute lock path for a
 * file) for this process, or fails at once with FL_ERROR_HELD_BY_SELF naming @key if a thread
 * of this process holds or is acquiring it. @serial identifies the claim to
 * _fl_held_granted() and _fl_held_drop(). */
gboolean _fl_held_claim   (const char  *key,
                           guint64     *serial,
                           GError     **error);
/* The claim's lock is held from now on (the error then says since when). */
void     _fl_held_granted (const char  *key,
                           guint64      serial);
/* Gives up the claim @serial, if it is still @key's; any number of times. */
void     _fl_held_drop    (const char  *key,
                           guint64      serial);

G_END_DECLS
