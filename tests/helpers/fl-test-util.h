/* fl-test-util.h: files, child processes and holders for the libfl tests; includes the
 * portable basics, fl-test-dir.h
 *
 * FlTestProc, the holders, times set by hand, the kernel lock probe and a dead PID run on every
 * platform (fl-test-proc-{unix,win32}.c, fl-test-util-{unix,win32}.c); the declarations under
 * G_OS_UNIX only there (fl-test-util-unix.c): a test uses them in the cases it registers with
 * FL_TEST_ADD_LINUX.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "fl-test-dir.h"

G_BEGIN_DECLS

void      fl_test_write                 (const char    *path,
                                         const char    *data,
                                         gssize         len);
char     *fl_test_read                  (const char    *path,
                                         gsize         *len);
void      fl_test_set_mtime_ago         (const char    *path,
                                         gint64         seconds);
/* A second name @to for @from's file (link(), CreateHardLink()); fails the test if it cannot. */
void      fl_test_link                  (const char    *from,
                                         const char    *to);
/* Sets @path's mtime (and atime) to @mtime_us, microseconds of g_get_real_time(). */
void      fl_test_set_mtime_us          (const char    *path,
                                         gint64         mtime_us);
/* The last change of @path in microseconds of g_get_real_time(): the later of its mtime and its
 * ctime (Windows: NTFS's ChangeTime), which is what stale_after counts from. */
gint64    fl_test_changed_us            (const char    *path);
/* Whether anyone holds @path's kernel lock as libfl does (flock LOCK_EX; LockFileEx() on the
 * byte at 2^32), this process through another descriptor included. */
gboolean  fl_test_kernel_lock_held      (const char    *path);
/* A PID nothing runs under, for the rest of the test program. */
int       fl_test_dead_pid              (void);
/* What names @path's file, not following a last symbolic link: the inode number (Windows: the
 * NTFS file index), to tell a file replaced under a name from one rewritten in place. */
guint64   fl_test_file_id               (const char    *path);
/* Root on Unix; never on Windows. */
gboolean  fl_test_is_root               (void);
#ifdef G_OS_UNIX
pid_t     fl_test_fork_with_pid         (pid_t          pid);
gboolean  fl_test_wait_pid_gone         (pid_t          pid,
                                         gint64         deadline_us);
/* Runs @child_cb in a forked child, which exits with what it returns (a child makes no
 * assertions: their abort would look like the parent's), and asserts that it returned 0. */
void      fl_test_assert_child_ok       (int          (*child_cb) (gpointer),
                                         gpointer       data);
/* Whether @fd polls readable before @deadline_us (monotonic). */
gboolean  fl_test_wait_readable         (int            fd,
                                         gint64         deadline_us);
#endif

/* A child process with a pipe to its stdin and one from its stdout. Freeing it kills and reaps
 * a child that is still running, so a failed assertion leaves no process behind. */
typedef struct
{
  int      pid;          /* the id the child knows itself by (getpid(), GetCurrentProcessId()) */
  GPid     handle;       /* the same PID on Unix, the process HANDLE on Windows */
  int      stdin_fd;
  int      stdout_fd;
  int      pidfd;        /* Linux: readable once the child exited; -1 elsewhere */
  GString *out;
  gboolean exited;
  int      wait_status;  /* waitpid()'s status on Unix, the exit code on Windows */
} FlTestProc;

typedef enum
{
  FL_TEST_SPAWN_DEFAULT = 0,
  FL_TEST_SPAWN_AS_NOBODY = 1 << 0, /* setuid/setgid 65534 before exec (Unix, needs root) */
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
/* The exit status, 128 + signal for a killed child (Windows: TerminateProcess() with 137, as
 * SIGKILL), -1 while it runs. */
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

#ifdef G_OS_UNIX
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
#endif

#ifdef G_OS_WIN32
/* g_spawn_async_with_pipes() with G_SPAWN_DO_NOT_REAP_CHILD, tried again where wine fails to
 * start GLib's spawn helper (fl-test-proc-win32.c); fails the test on any other error. */
void        _fl_test_spawn_win32        (const char * const  *argv,
                                         const char * const  *envp,
                                         GSpawnFlags          flags,
                                         GPid                *handle,
                                         int                 *stdin_fd,
                                         int                 *stdout_fd);
#endif

/* The platform's half of FlTestProc: reads what @proc wrote into proc->out; FALSE at its
 * end-of-file or at @deadline_us. */
gboolean    _fl_test_proc_fill          (FlTestProc          *proc,
                                         gint64               deadline_us);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlTestProc, fl_test_proc_free)

G_END_DECLS
