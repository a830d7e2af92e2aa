/* flctl-text.h: bytes from files and command lines made safe to print
 *
 * Apart from flctl-private.h so that the argument parser's fuzz target can check what flctl
 * prints of its messages.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

char *flctl_printable   (const char *text);
void  flctl_print_error (const char *command,
                         const char *format,
                         ...) G_GNUC_PRINTF (2, 3);

char *flctl_text_for_charset            (const char *text,
                                        const char *charset);
void  flctl_text_install_print_handlers (void);

G_END_DECLS
