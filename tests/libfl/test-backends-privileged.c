/* test-backends-privileged.c: a setgid program takes its backend modules from FL_BACKENDDIR
 * only, never from FL_BACKEND_DIR, as GLib ignores GIO_MODULE_DIR there (docs/backends.md)
 *
 * Linked with the static libfl, so that its setgid copy needs no library path (the dynamic
 * linker ignores RUNPATH $ORIGIN and LD_LIBRARY_PATH in such a program).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <grp.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "protocol/fl-lock-backend-private.h"

/* What the program prints with --print-dir, run with FL_BACKEND_DIR=/nonexistent-env. */
static char *
dir_seen_by (const char *program)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  char *out = NULL;

  g_subprocess_launcher_setenv (launcher, "FL_BACKEND_DIR", "/nonexistent-env", TRUE);
  child = g_subprocess_launcher_spawn (launcher, &error, program, "--print-dir", NULL);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (child));
  return out;
}

static void
test_setgid_ignores_env (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *plain = NULL;
  g_autofree char *privileged = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  struct statvfs fs;
  struct group *group;
  gsize len;

  g_assert_nonnull (self);
  plain = dir_seen_by (self);
  g_assert_cmpstr (plain, ==, "/nonexistent-env\n");

  group = getgrnam ("nogroup");
  if (geteuid () != 0 || group == NULL || group->gr_gid == getgid ())
    {
      g_test_skip ("making a setgid copy needs root and a group \"nogroup\"");
      return;
    }
  dir = g_dir_make_tmp ("fl-setgid-XXXXXX", &error);
  g_assert_no_error (error);
  if (statvfs (dir, &fs) == 0 && (fs.f_flag & ST_NOSUID) != 0)
    {
      g_assert_cmpint (g_rmdir (dir), ==, 0);
      g_test_skip ("the temporary directory is mounted nosuid");
      return;
    }
  copy = g_build_filename (dir, "setgid-copy", NULL);
  g_assert_true (g_file_get_contents (self, &contents, &len, &error));
  g_assert_true (g_file_set_contents (copy, contents, len, &error));
  g_assert_cmpint (chown (copy, 0, group->gr_gid), ==, 0);
  g_assert_cmpint (g_chmod (copy, 02755), ==, 0);
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);

  privileged = dir_seen_by (copy);
  g_assert_cmpint (g_unlink (copy), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
  g_assert_cmpstr (privileged, ==, FL_BACKENDDIR "\n");
}

int
main (int    argc,
      char **argv)
{
  if (argc == 2 && g_str_equal (argv[1], "--print-dir"))
    {
      g_print ("%s\n", _fl_backends_dir ());
      return 0;
    }

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/libfl/backends/setgid-ignores-env", test_setgid_ignores_env);
  return g_test_run ();
}
