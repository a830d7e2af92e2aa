/* fl-error.c
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>

#include <glib/gi18n-lib.h>

#include "fl-error-private.h"
#include "platform/fl-platform.h"

/* Not G_DEFINE_QUARK: its cache is a plain static that two threads failing at once both
 * write, a data race (ThreadSanitizer, test-wait's async waits). Racing writers store the
 * same value; the atomics make that legal. */
/**
 * fl_error_quark:
 *
 * The #GQuark of the %FL_ERROR domain, whose codes are #FlError.
 *
 * Returns: the quark
 *
 * Since: 0.1
 */
GQuark
fl_error_quark (void)
{
  static gint quark = 0;
  GQuark q = (GQuark) g_atomic_int_get (&quark);

  if G_UNLIKELY (q == 0)
    {
      q = g_quark_from_static_string ("fl-error-quark");
      g_atomic_int_set (&quark, (gint) q);
    }
  return q;
}

FlError
_fl_error_code_from_errno (int saved_errno)
{
  switch (saved_errno)
    {
    case EACCES:
    case EPERM:
    case EROFS:
      return FL_ERROR_PERMISSION;
    case ENOSPC:
#ifdef EDQUOT  /* not every C library has it */
    case EDQUOT:
#endif
      return FL_ERROR_NO_SPACE;
    default:
      return FL_ERROR_FAILED;
    }
}

FlError
_fl_error_code_from_directory_errno (int saved_errno)
{
  if (saved_errno == ENOENT || saved_errno == ENOTDIR)
    return FL_ERROR_NOT_DIRECTORY;
  return _fl_error_code_from_errno (saved_errno);
}

/* What an acquirer or reclaimer tells its caller about a failed system call on @path. @what is
 * the translated action that failed ("open the lock directory"), which completes "Cannot %s". */
void
_fl_set_error_from_errno (GError     **error,
                          int          saved_errno,
                          const char  *what,
                          const char  *path)
{
  FlError code = _fl_error_code_from_errno (saved_errno);

  if (code == FL_ERROR_PERMISSION)
    {
      gint64 uid = _fl_platform_self_uid ();
      g_autofree char *who = uid >= 0 ? g_strdup_printf (" (uid %u)", (guint) uid)
                                      : g_strdup ("");

      /* TRANSLATORS: the first %s is an action ("open the lock directory", "remove the lock"),
       * the second a path, the third the system's reason, the last " (uid 1000)" or nothing. */
      g_set_error (error, FL_ERROR, code,
                   _("Cannot %s “%s”: %s. The lock directory must be writable by this user%s"),
                   what, path, g_strerror (saved_errno), who);
    }
  else if (code == FL_ERROR_NO_SPACE)
    /* TRANSLATORS: the first %s is an action ("create the lock"), the second a path, the
     * third the system's reason. */
    g_set_error (error, FL_ERROR, code,
                 _("Cannot %s “%s”: %s. Free some space on that filesystem and try again"),
                 what, path, g_strerror (saved_errno));
  else
    /* TRANSLATORS: the first %s is an action ("create the lock"), the second a path, the
     * third the system's reason. */
    g_set_error (error, FL_ERROR, code, _("Cannot %s “%s”: %s"),
                 what, path, g_strerror (saved_errno));
}
