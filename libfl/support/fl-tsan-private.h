/* fl-tsan-private.h: telling ThreadSanitizer about hand-offs it cannot see
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A GTask hands its data to a pool thread and its result back through GLib's GAsyncQueue
 * and GMutex, which are futexes in a GLib not built for ThreadSanitizer: TSan sees neither
 * and reports the data libfl reads on the other side as a race. The two calls below state
 * the ordering that GLib really provides (a release before the hand-off, an acquire after
 * it), so that TSan checks libfl's own accesses without false reports. They are nothing in
 * any other build. */

#if defined(__SANITIZE_THREAD__)
# define FL_TSAN_ENABLED 1
#elif defined(__has_feature)
# if __has_feature(thread_sanitizer)
#  define FL_TSAN_ENABLED 1
# endif
#endif

#ifdef FL_TSAN_ENABLED
void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

/* Before handing @object to another thread */
# define _fl_tsan_release(object) __tsan_release ((void *) (object))
/* After receiving @object from another thread */
# define _fl_tsan_acquire(object) __tsan_acquire ((void *) (object))
#else
# define _fl_tsan_release(object) G_STMT_START { (void) (object); } G_STMT_END
# define _fl_tsan_acquire(object) G_STMT_START { (void) (object); } G_STMT_END
#endif

G_END_DECLS
