/* fl-format.c: one way to say how old a lock is, for every program that shows one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "fl-format.h"
#include "fl-judge-private.h"

/**
 * fl_format_age:
 * @age_us: an age in microseconds (negative, from a clock step, counts as 0)
 *
 * Formats an age as libfl's messages, flctl and the Lock Inspector all show it: whole seconds
 * below a minute ("42 s"), then minutes ("3 min"), hours below two days ("47 h"), then days
 * ("5 days"). Rounded down, so a lock is never shown older than it is. The units come from
 * libfl's translation domain (the "libfl" catalogue), with the plural of days chosen for the
 * language.
 *
 * Returns: (transfer full): the text; free it with g_free()
 */
char *
fl_format_age (gint64 age_us)
{
  gint64 s = MAX (age_us, 0) / G_USEC_PER_SEC;
  gint64 days = MIN (s / 86400, G_MAXINT);

  if (s < 60)
    return g_strdup_printf (_("%d s"), (int) s);
  if (s < 60 * 60)
    return g_strdup_printf (_("%d min"), (int) (s / 60));
  if (s < 48 * 60 * 60)
    return g_strdup_printf (_("%d h"), (int) (s / (60 * 60)));
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d day", "%d days", (gulong) days),
                          (int) days);
}

/* libfl's own messages say ages the same way. */
char *
_fl_format_age (gint64 age_us)
{
  return fl_format_age (age_us);
}
