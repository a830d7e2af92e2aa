/* flctl-text.h: bytes from files and command lines made safe to print
 *
 * Apart from flctl-private.h so that the argument parser, fuzzed on its own, can use it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *flctl_printable (const char *text);

G_END_DECLS
