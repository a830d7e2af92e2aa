/* fl-test-util.h: fixtures, files and child processes for the libfl tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

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

char     *fl_test_helper_path           (const char    *env_var,
                                         const char    *name);
guint32   fl_test_seed                  (void);
/* Every deadline is scaled by FL_TEST_TIME_SCALE (a number, 1 by default), the one multiplier
 * of the suite: build-aux/test sets it beside meson's --timeout-multiplier for the sanitizer
 * and valgrind stages, and a developer on a loaded machine may set it too. A deadline only
 * bounds a wait for a condition; scaling it never changes what a test asserts. */
double    fl_test_time_scale            (void);
gint64    fl_test_scaled_ms             (gint64         ms);
gint64    fl_test_deadline_ms           (gint64         ms_from_now);

void      fl_test_rm_rf                 (const char    *path);
void      fl_test_write                 (const char    *path,
                                         const char    *data,
                                         gssize         len);
char     *fl_test_read                  (const char    *path,
                                         gsize         *len);
void      fl_test_set_mtime_ago         (const char    *path,
                                         gint64         seconds);
gboolean  fl_test_kernel_lock_held      (const char    *path);
gboolean  fl_test_exists                (const char    *path);
char    **fl_test_list_dir              (const char    *dir);
guint     fl_test_count_protocol_litter (const char    *dir);
pid_t     fl_test_dead_pid              (void);
gboolean  fl_test_is_root               (void);
pid_t     fl_test_fork_with_pid         (pid_t          pid);
gboolean  fl_test_wait_pid_gone         (pid_t          pid,
                                         gint64         deadline_us);
/* Runs @child_cb in a forked child, which exits with what it returns (a child makes no
 * assertions: their abort would look like the parent's), and asserts that it returned 0. */
void      fl_test_assert_child_ok       (int          (*child_cb) (gpointer),
                                         gpointer       data);
gboolean  fl_test_wait_until            (gboolean     (*cond) (gpointer),
                                         gpointer       data,
                                         guint          timeout_ms);
/* Whether @fd polls readable before @deadline_us (monotonic). */
gboolean  fl_test_wait_readable         (int            fd,
                                         gint64         deadline_us);

/* A child process with a pipe to its stdin and one from its stdout. Freeing it kills and reaps
 * a child that is still running, so a failed assertion leaves no process behind. */
typedef struct
{
  GPid     pid;
  int      stdin_fd;
  int      stdout_fd;
  int      pidfd;
  GString *out;
  gboolean exited;
  int      wait_status;
} FlTestProc;

typedef enum
{
  FL_TEST_SPAWN_DEFAULT = 0,
  FL_TEST_SPAWN_AS_NOBODY = 1 << 0, /* setuid/setgid 65534 before exec (needs root) */
} FlTestSpawnFlags;

FlTestProc *fl_test_proc_spawn          (const char * const  *argv,
                                         const char * const  *envp,
                                         FlTestSpawnFlags     flags);
char       *fl_test_proc_read_line      (FlTestProc          *proc,
                                         gint64               deadline_us);
char       *fl_test_proc_read_all       (FlTestProc          *proc,
                                         gint64               deadline_us);
void        fl_test_proc_close_stdin    (FlTestProc          *proc);
gboolean    fl_test_proc_wait           (FlTestProc          *proc,
                                         gint64               deadline_us);
int         fl_test_proc_wait_any       (GPtrArray           *procs,
                                         gint64               deadline_us);
/* Waits for every worker of @procs counting on @counter (fl-test-counter.h) until @deadline_us:
 * a worker still running then, one that met another holder in its critical section, or one that
 * failed ends the test, saying which and where the counter stood. */
void        fl_test_counters_wait       (GPtrArray           *procs,
                                         const char          *counter,
                                         gint64               deadline_us);
void        fl_test_proc_kill           (FlTestProc          *proc);
int         fl_test_proc_exit_code      (FlTestProc          *proc);
void        fl_test_proc_free           (FlTestProc          *proc);

/* A holder is a helper run as `HELPER hold TARGET`: it says "held PID" once the lock is its
 * own, and "released" after its stdin closed. */
/* The same for a holder run by @argv, such as a shell that execs it after setting its umask. */
FlTestProc *fl_test_spawn_holder_argv   (const char * const  *argv);
FlTestProc *fl_test_spawn_holder_of     (const char          *env_var,
                                         const char          *helper,
                                         const char          *target);
FlTestProc *fl_test_spawn_holder        (const char          *target);
/* The Node.js module itself (tests/node-reference), through tests/helpers/module-driver.mjs:
 * { node, driver, NULL }, to which a caller appends the driver's command. Where node or the
 * installed module is missing the test fails, saying to run build-aux/install-deps. */
char      **fl_test_module_argv         (void);
/* `node module-driver.mjs hold TARGET`: the module's withFileLock() holding TARGET. */
FlTestProc *fl_test_spawn_module_holder (const char          *target);
void        fl_test_holder_release      (FlTestProc          *holder);
/* `fl-worker wait`: a live process that holds nothing, once it said it is ready. */
FlTestProc *fl_test_spawn_waiting       (void);

/* A forked child that takes a kernel lock of its own on @path (created if missing) and keeps it
 * until released: @kind "flock" (exclusive), "posix" (fcntl F_SETLK, shared, bytes 0-9) or
 * "ofd" (F_OFD_SETLK, exclusive). With @blocking it waits for the lock (a blocked waiter while
 * another holds it) and is not waited for; without, it is granted before this returns. */
typedef struct
{
  pid_t pid;
  int   release_fd;
} FlTestLocker;

FlTestLocker fl_test_fork_locker        (const char          *path,
                                         const char          *kind,
                                         gboolean             blocking);
/* Lets go: the child exits and is reaped. */
void        fl_test_locker_release      (FlTestLocker        *locker);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlTestProc, fl_test_proc_free)

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
