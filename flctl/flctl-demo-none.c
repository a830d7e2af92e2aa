/* flctl-demo-none.c: `flctl demo` where it is not available (Windows)
 *
 * The demo fakes its holders with fork(), prctl() and extended attributes (flctl-demo.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "flctl-private.h"

int
flctl_demo_main (const FlctlArgs *args)
{
  flctl_print_error ("demo", "%s", _("not available on this platform (Linux only)"));
  return FLCTL_EXIT_USAGE;
}
