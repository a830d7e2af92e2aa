/* test-error.c: the one errno -> FL_ERROR mapping (fl-error.c) that every libfl call uses, so
 * that one system error never gets two codes (EPERM was FL_ERROR_FAILED in some places and
 * FL_ERROR_PERMISSION in others)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <string.h>

#include "fl-error-private.h"

static void
test_codes (void)
{
  static const struct
  {
    int     errsv;
    FlError code;
    FlError directory_code;
  } table[] = {
    { EACCES, FL_ERROR_PERMISSION, FL_ERROR_PERMISSION },
    { EPERM, FL_ERROR_PERMISSION, FL_ERROR_PERMISSION },
    { EROFS, FL_ERROR_PERMISSION, FL_ERROR_PERMISSION },
    { ENOSPC, FL_ERROR_NO_SPACE, FL_ERROR_NO_SPACE },
#ifdef EDQUOT
    { EDQUOT, FL_ERROR_NO_SPACE, FL_ERROR_NO_SPACE },
#endif
    { ENOENT, FL_ERROR_FAILED, FL_ERROR_NOT_DIRECTORY },
    { ENOTDIR, FL_ERROR_FAILED, FL_ERROR_NOT_DIRECTORY },
    { EIO, FL_ERROR_FAILED, FL_ERROR_FAILED },
    { EMFILE, FL_ERROR_FAILED, FL_ERROR_FAILED },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (table); i++)
    {
      g_test_message ("%s", g_strerror (table[i].errsv));
      g_assert_cmpint (_fl_error_code_from_errno (table[i].errsv), ==, table[i].code);
      g_assert_cmpint (_fl_error_code_from_directory_errno (table[i].errsv), ==,
                       table[i].directory_code);
    }
}

/* The message names the path and says what to do, with the code from the same table. */
static void
test_message (void)
{
  g_autoptr(GError) permission = NULL;
  g_autoptr(GError) space = NULL;

  _fl_set_error_from_errno (&permission, EPERM, "create the temp file", "/srv/x.lock.tmp");
  g_assert_error (permission, FL_ERROR, FL_ERROR_PERMISSION);
  g_assert_nonnull (strstr (permission->message, "“/srv/x.lock.tmp”"));
  g_assert_nonnull (strstr (permission->message, "must be writable"));

  _fl_set_error_from_errno (&space, ENOSPC, "create the temp file", "/srv/x.lock.tmp");
  g_assert_error (space, FL_ERROR, FL_ERROR_NO_SPACE);
  g_assert_nonnull (strstr (space->message, "Free some space"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/libfl/error/codes", test_codes);
  g_test_add_func ("/libfl/error/message", test_message);

  return g_test_run ();
}
