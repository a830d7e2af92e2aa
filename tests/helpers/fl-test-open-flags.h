/* fl-test-open-flags.h: open() flags that Windows' C library lacks, as no-ops there
 *
 * It never follows links nor passes descriptors to children it was not asked to; O_BINARY is
 * its own (no "\r\n" translation) and means nothing on Unix. Plain C: fl-test-counter.c
 * includes it too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <fcntl.h>

#ifndef O_CLOEXEC
# define O_CLOEXEC 0
#endif
#ifndef O_NOFOLLOW
# define O_NOFOLLOW 0
#endif
#ifndef O_BINARY
# define O_BINARY 0
#endif
