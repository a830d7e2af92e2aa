/* fl-test-dir.h: what every test program shares, on every platform: its temporary directory,
 * its deadlines and its look at a directory
 *
 * GLib only (no libfl, no system call of one OS): the portable half of the helpers, built for
 * Windows too. fl-test-util.h adds the Unix half.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* One temporary directory per test, with a target named "target" in it. */
typedef struct
{
  char *dir;
  char *target;
  char *lock;
} FlTestDir;

void      fl_test_dir_setup             (FlTestDir     *fx,
                                         gconstpointer  data);
void      fl_test_dir_teardown          (FlTestDir     *fx,
                                         gconstpointer  data);

#define FL_TEST_ADD(path, data, func) \
  g_test_add ((path), FlTestDir, (data), fl_test_dir_setup, (func), fl_test_dir_teardown)

/* A case that needs Linux (fork(), /proc, xattrs, pidfds, ...) is registered on every platform
 * and, elsewhere, skips saying what it @needs: the list of cases is the same everywhere, and a
 * port's log says what it did not check. @func is named only on Linux: define it (and what
 * only it uses) inside `#ifdef __linux__`. */
#ifdef __linux__
#define FL_TEST_ADD_LINUX(path, data, func, needs) FL_TEST_ADD ((path), (data), (func))
#else
#define FL_TEST_ADD_LINUX(path, data, func, needs) \
  fl_test_add_skipped ((path), "needs Linux: " needs)
#endif
void      fl_test_add_skipped           (const char    *path,
                                         const char    *reason);

char     *fl_test_helper_path           (const char    *env_var,
                                         const char    *name);
guint32   fl_test_seed                  (void);
/* Every deadline is scaled by FL_TEST_TIME_SCALE (a number, 1 by default), the one multiplier
 * of the suite: build-aux/test sets it beside meson's --timeout-multiplier for the sanitizer,
 * valgrind and wine stages, and a developer on a loaded machine may set it too. A deadline only
 * bounds a wait for a condition; scaling it never changes what a test asserts. */
double    fl_test_time_scale            (void);
gint64    fl_test_scaled_ms             (gint64         ms);
gint64    fl_test_deadline_ms           (gint64         ms_from_now);

/* Removes @path and everything in it, never following a symbolic link. */
void      fl_test_rm_rf                 (const char    *path);
gboolean  fl_test_exists                (const char    *path);
/* The names in @dir, sorted; on Windows without those whose file is delete-pending
 * (fl-test-dir-win32.c). */
char    **fl_test_list_dir              (const char    *dir);
guint     fl_test_count_protocol_litter (const char    *dir);
#ifdef G_OS_WIN32
gboolean  _fl_test_dir_entry_is_gone    (const char    *path);
#endif
gboolean  fl_test_wait_until            (gboolean     (*cond) (gpointer),
                                         gpointer       data,
                                         guint          timeout_ms);

/* Asserts @error is @domain/@code and that its message names @path. */
#define fl_test_assert_error_names(error, domain, code, path) \
  G_STMT_START { \
    g_assert_error ((error), (domain), (code)); \
    if (strstr ((error)->message, (path)) == NULL) \
      { \
        char *_msg = g_strdup_printf ("error message \"%s\" does not name \"%s\"", \
                                      (error)->message, (path)); \
        g_assertion_message (NULL, __FILE__, __LINE__, G_STRFUNC, _msg); \
        g_free (_msg); \
      } \
  } G_STMT_END

G_END_DECLS
