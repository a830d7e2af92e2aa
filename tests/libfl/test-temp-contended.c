/* test-temp-contended.c: step A2 when another open file description wins every race
 *
 * Linked with `-Wl,--wrap=openat64`: right after libfl creates a temp, the wrapper opens it
 * again (by name, or through /proc/self/fd for an O_TMPFILE, as root can) and takes LOCK_SH,
 * exactly as a watcher that wins the race between openat() and flock() would, every time and
 * deterministically. test-temp.c runs a real attacker process; this one pins down the bounds.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include "fl-test-util.h"

/* The cases need Linux: the wrapped libc call (see above). Elsewhere they are registered
 * and skip, saying so, so that every platform lists the same cases (docs/porting.md). */
#define NEEDS "link-time wrapping of openat() (-Wl,--wrap), O_TMPFILE and flock(); " \
  "Windows' platform layer calls kernel32, where a wrap has nothing to catch"

#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/file.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "protocol/fl-lock-private.h"

int __real_openat64 (int dirfd, const char *path, int flags, ...);
int __wrap_openat64 (int dirfd, const char *path, int flags, ...);

static guint steal_left;     /* temps still to take LOCK_SH on */
static guint temps_made;
static GArray *stolen_fds;   /* the shared locks, held until the test drops them */

int
__wrap_openat64 (int         dirfd,
                 const char *path,
                 int         flags,
                 ...)
{
  gboolean tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
  gboolean named_temp = (flags & O_CREAT) != 0 && g_str_has_suffix (path, ".tmp");
  mode_t mode = 0;
  int fd;

  if ((flags & O_CREAT) != 0 || tmpfile)
    {
      va_list args;

      va_start (args, flags);
      mode = va_arg (args, mode_t);
      va_end (args);
    }
  fd = __real_openat64 (dirfd, path, flags, mode);
  if (fd < 0 || !(tmpfile || named_temp))
    return fd;

  temps_made++;
  if (steal_left > 0)
    {
      char proc_path[64];
      int other;

      g_snprintf (proc_path, sizeof proc_path, "/proc/self/fd/%d", fd);
      other = tmpfile ? open (proc_path, O_RDONLY | O_CLOEXEC)
                      : __real_openat64 (dirfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      g_assert_cmpint (other, >=, 0);
      g_assert_cmpint (flock (other, LOCK_SH | LOCK_NB), ==, 0);
      g_array_append_val (stolen_fds, other);
      steal_left--;
    }
  return fd;
}

static void
drop_stolen (void)
{
  for (guint i = 0; i < stolen_fds->len; i++)
    close (g_array_index (stolen_fds, int, i));
  g_array_set_size (stolen_fds, 0);
}

static void
assert_holds_kernel_lock (const char *lock)
{
  char xattr[256];
  gssize n = lgetxattr (lock, "user.libfl.holder", xattr, sizeof xattr - 1);
  int fd = open (lock, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);

  if (n > 0)
    {
      g_auto(GStrv) fields = NULL;

      xattr[n] = '\0';
      fields = g_strsplit (xattr, " ", -1);
      g_assert_cmpuint (g_strv_length (fields), ==, 7);
      g_assert_cmpstr (fields[5], ==, "1");
    }
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (flock (fd, LOCK_EX | LOCK_NB), <, 0);
  g_assert_cmpint (errno, ==, EWOULDBLOCK);
  close (fd);
}

/* The first temps are lost to the shared locks: discarded, and a later one becomes the lock
 * with its kernel lock. Nothing is left behind. */
static void
test_first_temps_lost (FlTestDir     *fx,
                       gconstpointer  data)
{
  gboolean named = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_auto(GStrv) names = NULL;

  _fl_lock_set_force_named_temp (named);
  steal_left = 3;
  temps_made = 0;
  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (steal_left, ==, 0);
  g_assert_cmpuint (temps_made, ==, 4);
  assert_holds_kernel_lock (fx->lock);
  names = fl_test_list_dir (fx->dir);
  g_assert_cmpuint (g_strv_length (names), ==, 1);
  g_assert_cmpstr (names[0], ==, "target.lock");

  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  drop_stolen ();
  _fl_lock_set_force_named_temp (FALSE);
}

/* Every temp is lost: a bounded number of tries, then an error that names the directory and
 * says what is going on. No lock was linked, and no temp is left. */
static void
test_every_temp_lost (FlTestDir     *fx,
                      gconstpointer  data)
{
  gboolean named = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_auto(GStrv) names = NULL;

  _fl_lock_set_force_named_temp (named);
  steal_left = G_MAXUINT;
  temps_made = 0;
  lock = fl_lock_try_acquire (fx->target, NULL, &error);
  steal_left = 0;
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_FAILED, fx->dir);
  g_assert_nonnull (strstr (error->message, "shared locks"));
  g_test_message ("%u temps, then: %s", temps_made, error->message);
  g_assert_cmpuint (temps_made, ==, 8);
  names = fl_test_list_dir (fx->dir);
  g_assert_cmpuint (g_strv_length (names), ==, 0);

  drop_stolen ();
  _fl_lock_set_force_named_temp (FALSE);
}

/* A waiting acquire outlasts an attacker that wins more than a try-acquire's temps in a row (a
 * busy directory may give it no quiet moment for a while): it goes on making temps, with
 * backoff, and gets the lock with its kernel lock. */
static void
test_many_temps_lost_wait (FlTestDir     *fx,
                           gconstpointer  data)
{
  gboolean named = GPOINTER_TO_INT (data);
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_auto(GStrv) names = NULL;

  _fl_lock_set_force_named_temp (named);
  steal_left = 12;
  temps_made = 0;
  lock = fl_lock_acquire (fx->target, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (steal_left, ==, 0);
  g_assert_cmpuint (temps_made, ==, 13);
  assert_holds_kernel_lock (fx->lock);
  names = fl_test_list_dir (fx->dir);
  g_assert_cmpuint (g_strv_length (names), ==, 1);

  g_assert_true (fl_lock_release (lock, &error));
  g_assert_no_error (error);
  drop_stolen ();
  _fl_lock_set_force_named_temp (FALSE);
}

/* ...but not past its timeout: then FL_ERROR_TIMEOUT says who is doing what, and nothing is
 * left behind. */
static void
test_every_temp_lost_wait (FlTestDir     *fx,
                           gconstpointer  data)
{
  gboolean named = GPOINTER_TO_INT (data);
  g_autoptr(FlLockOptions) options = fl_lock_options_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_auto(GStrv) names = NULL;

  _fl_lock_set_force_named_temp (named);
  fl_lock_options_set_timeout_ms (options, 300);
  steal_left = G_MAXUINT;
  temps_made = 0;
  lock = fl_lock_acquire (fx->target, options, NULL, &error);
  steal_left = 0;
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_TIMEOUT, fx->dir);
  g_assert_nonnull (strstr (error->message, "shared locks"));
  g_test_message ("%u temps, then: %s", temps_made, error->message);
  g_assert_cmpuint (temps_made, >, 8);
  names = fl_test_list_dir (fx->dir);
  g_assert_cmpuint (g_strv_length (names), ==, 0);

  drop_stolen ();
  _fl_lock_set_force_named_temp (FALSE);
}

#endif /* __linux__ */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
#ifdef __linux__
  stolen_fds = g_array_new (FALSE, FALSE, sizeof (int));
#endif

  FL_TEST_ADD_LINUX ("/libfl/temp/contended/first-temps-lost/named", GINT_TO_POINTER (TRUE),
                     test_first_temps_lost, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/temp/contended/first-temps-lost/o-tmpfile", GINT_TO_POINTER (FALSE),
                     test_first_temps_lost, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/temp/contended/every-temp-lost/named", GINT_TO_POINTER (TRUE),
                     test_every_temp_lost, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/temp/contended/every-temp-lost/o-tmpfile", GINT_TO_POINTER (FALSE),
                     test_every_temp_lost, NEEDS);

  FL_TEST_ADD_LINUX ("/libfl/temp/contended/many-temps-lost-wait/named", GINT_TO_POINTER (TRUE),
                     test_many_temps_lost_wait, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/temp/contended/many-temps-lost-wait/o-tmpfile",
                     GINT_TO_POINTER (FALSE),
                     test_many_temps_lost_wait, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/temp/contended/every-temp-lost-wait/named", GINT_TO_POINTER (TRUE),
                     test_every_temp_lost_wait, NEEDS);
  FL_TEST_ADD_LINUX ("/libfl/temp/contended/every-temp-lost-wait/o-tmpfile",
                     GINT_TO_POINTER (FALSE),
                     test_every_temp_lost_wait, NEEDS);

  return g_test_run ();
}
