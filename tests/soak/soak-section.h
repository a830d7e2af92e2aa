/* soak-section.h: the soak's critical section (soak-section.c)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

/* A process named by PID and start time (clock ticks since boot): never mistaken for another
 * process that got its PID later. */
typedef struct
{
  pid_t   pid;
  guint64 start;
} SoakHolder;

/* Read-increment-write of COUNTER under the marker COUNTER.holder. Returns 0, or
 * FL_TEST_EXIT_OVERLAP with @other set to the holder met inside, or FL_TEST_EXIT_FAILED. */
int      soak_critical_section (const char       *counter,
                                SoakHolder       *other);
gboolean soak_holder_read      (const char       *counter,
                                SoakHolder       *holder);
gboolean soak_holder_is_alive  (const SoakHolder *holder);

G_END_DECLS
