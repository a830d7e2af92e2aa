/* fl-error-private.h: errno to FL_ERROR, with the path and what to do
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-error.h"

G_BEGIN_DECLS

/* The one mapping of an errno value to an FL_ERROR code: EACCES/EPERM/EROFS ->
 * FL_ERROR_PERMISSION, ENOSPC/EDQUOT -> FL_ERROR_NO_SPACE, else FL_ERROR_FAILED. */
FlError _fl_error_code_from_errno           (int          saved_errno);

/* The same for opening a directory the caller named: ENOENT/ENOTDIR -> FL_ERROR_NOT_DIRECTORY. */
FlError _fl_error_code_from_directory_errno (int          saved_errno);

/* An error with that code; the message reads "Cannot <what> “<path>”: <reason>. <advice>". */
void _fl_set_error_from_errno (GError     **error,
                               int          saved_errno,
                               const char  *what,
                               const char  *path);

G_END_DECLS
