/* flctl-test-util.h: running the built flctl as a user would, with deadlines, never sleeps
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* Generous: they only bound a test that would otherwise hang; nothing waits for them. Scaled
 * by FL_TEST_TIME_SCALE, as the libfl tests' deadlines are (tests/helpers/fl-test-util.h). */
#define FLCTL_TEST_TIMEOUT_MS flctl_test_scaled_ms (60000)

gint64       flctl_test_scaled_ms    (gint64               ms);

typedef struct
{
  int    status;     /* as a shell shows it: the exit code, or 128+N for signal N */
  char  *out;
  char  *err;
} FlctlResult;

typedef enum
{
  FLCTL_RUN_DEFAULT = 0,
  FLCTL_RUN_UNPRIVILEGED = 1 << 0,   /* as root: see flctl_test_check_unprivileged() */
} FlctlRunFlags;

const char  *flctl_test_exe          (void);
char        *flctl_test_make_dir     (void);
void         flctl_test_remove_dir   (const char          *dir);
void         flctl_result_free       (FlctlResult         *result);
FlctlResult *flctl_test_run          (FlctlRunFlags        flags,
                                      const char          *input,
                                      const char          *first_arg,
                                      ...) G_GNUC_NULL_TERMINATED;
FlctlResult *flctl_test_runv         (FlctlRunFlags        flags,
                                      const char          *input,
                                      const char * const  *args);
GSubprocess *flctl_test_spawn        (GSubprocessFlags     flags,
                                      const char          *first_arg,
                                      ...) G_GNUC_NULL_TERMINATED;
GSubprocess *flctl_test_spawnv       (GSubprocessFlags     flags,
                                      const char * const  *argv);
char        *flctl_test_read_line    (GInputStream        *stream,
                                      gint64               timeout_ms);
char        *flctl_test_read_until   (GInputStream        *stream,
                                      const char          *needle,
                                      gint64               timeout_ms);
int          flctl_test_wait         (GSubprocess         *process,
                                      gint64               timeout_ms);
int          flctl_test_pid          (GSubprocess         *process);
gboolean     flctl_test_pid_gone     (int                  pid);
gboolean     flctl_test_wait_pid_gone (int                 pid,
                                       gint64              timeout_ms);
void         flctl_test_write        (GSubprocess         *process,
                                      const char          *text);
GSubprocess *flctl_test_hold         (const char          *target);
int          flctl_test_start_orphaned_command (const char   *target,
                                                GSubprocess **runner,
                                                int          *flctl_pid);
void         flctl_test_release      (GSubprocess         *holder);
GSubprocess *flctl_test_start_demo   (const char          *dir,
                                      char              ***lines);
void         flctl_test_stop_demo    (GSubprocess         *demo);
char        *flctl_test_read_file    (const char          *path);
JsonArray   *flctl_test_parse_array  (const char          *json);
JsonObject  *flctl_test_find_record  (JsonArray           *array,
                                      const char          *path);
gboolean     flctl_test_check_unprivileged (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FlctlResult, flctl_result_free)

/* The fixture of a test that needs only a fresh directory of its own. */
typedef struct
{
  char *dir;
} FlctlDirFixture;

void flctl_dir_fixture_set_up    (FlctlDirFixture *f,
                                  gconstpointer    data);
void flctl_dir_fixture_tear_down (FlctlDirFixture *f,
                                  gconstpointer    data);

/* g_test_init(), and SIGPIPE ignored: flctl may exit before reading the input a test feeds
 * it (e.g. refusing without a terminal), and the write must then fail, not kill the test. */
void flctl_test_init (int    *argc,
                      char ***argv);

G_END_DECLS
