/* test-flctl-kernel.c: `flctl list --kernel`, the kernel locks beside the lock files (issue 15)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "flctl-test-util.h"

/* docs/flctl.1, KERNEL LOCK RECORDS: every record has exactly these members, in this order. */
static const char *const schema[] = {
  "path", "lock_file", "open_path", "type", "mode", "blocked", "pid", "process", "device",
  "inode", "start", "end", "schema", NULL
};

static void
assert_schema (JsonObject *record)
{
  const char *path = g_test_get_filename (G_TEST_DIST, "..", "docs", "flctl.1", NULL);
  g_autofree char *page = flctl_test_read_file (path);
  g_autoptr(GList) members = json_object_get_members (record);
  guint i = 0;

  g_assert_nonnull (page);
  for (GList *l = members; l != NULL; l = l->next, i++)
    g_assert_cmpstr (l->data, ==, schema[i]);
  g_assert_null (schema[i]);
  for (i = 0; schema[i] != NULL; i++)
    {
      g_autofree char *entry = g_strdup_printf ("\n.TP\n.B %s\n", schema[i]);

      g_assert_nonnull (strstr (page, entry));
    }
}

/* util-linux flock(1) holds an exclusive flock on @path (-o: in itself only) until its stdin
 * closes. */
static GSubprocess *
spawn_flock (const char *path)
{
  g_autoptr(GError) error = NULL;
  GSubprocess *locker = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE
                                          | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error,
                                          "flock", "-o", path, "sh", "-c", "echo ready; exec cat",
                                          NULL);
  g_autofree char *line = NULL;

  g_assert_no_error (error);
  line = flctl_test_read_line (g_subprocess_get_stdout_pipe (locker), FLCTL_TEST_TIMEOUT_MS);
  g_assert_cmpstr (line, ==, "ready");
  return locker;
}

static JsonArray *
list_kernel_json_as (FlctlRunFlags   flags,
                     const char     *dir,
                     char          **err)
{
  g_autoptr(FlctlResult) result = flctl_test_run (flags, NULL, "list", "--kernel", "--records", dir,
                                                  NULL);

  g_assert_cmpint (result->status, ==, 0);
  if (err != NULL)
    *err = g_strdup (result->err);
  return flctl_test_parse_array (result->out);
}

static JsonArray *
list_kernel_json (const char *dir)
{
  return list_kernel_json_as (FLCTL_RUN_DEFAULT, dir, NULL);
}

static void
test_list_kernel (void)
{
  g_autofree char *dir = flctl_test_make_dir ();
  g_autofree char *target = g_build_filename (dir, "t", NULL);
  g_autofree char *lock = g_build_filename (dir, "t.lock", NULL);
  g_autofree char *plain = g_build_filename (dir, "plain", NULL);
  g_autoptr(GSubprocess) holder = flctl_test_hold (target);
  g_autoptr(GSubprocess) locker = spawn_flock (plain);
  g_autoptr(JsonArray) records = list_kernel_json (dir);
  g_autoptr(FlctlResult) human = NULL;
  JsonObject *record;

  /* Only the locks on files in DIR: the libfl holder's, once, as its lock file. */
  g_assert_cmpuint (json_array_get_length (records), ==, 2);
  record = flctl_test_find_record (records, lock);
  g_assert_nonnull (record);
  g_assert_cmpstr (json_object_get_string_member (record, "lock_file"), ==, lock);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (record, "open_path"),
                                   " (deleted)"));
  g_assert_cmpstr (json_object_get_string_member (record, "type"), ==, "flock");
  g_assert_cmpstr (json_object_get_string_member (record, "mode"), ==, "write");
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, flctl_test_pid (holder));
  g_assert_false (json_object_get_boolean_member (record, "blocked"));
  assert_schema (record);

  record = flctl_test_find_record (records, plain);
  g_assert_nonnull (record);
  g_assert_true (json_object_get_null_member (record, "lock_file"));
  g_assert_cmpstr (json_object_get_string_member (record, "open_path"), ==, plain);
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, flctl_test_pid (locker));

  /* People see the lock file too, never the removed name lslocks shows. */
  human = flctl_test_run (FLCTL_RUN_DEFAULT, NULL, "list", "--kernel", dir, NULL);
  g_assert_cmpint (human->status, ==, 0);
  g_assert_nonnull (strstr (human->out, lock));
  g_assert_nonnull (strstr (human->out, plain));
  g_assert_null (strstr (human->out, "(deleted)"));

  flctl_test_release (holder);
  g_clear_pointer (&records, json_array_unref);
  records = list_kernel_json (dir);
  g_assert_null (flctl_test_find_record (records, lock));
  g_assert_nonnull (flctl_test_find_record (records, plain));

  g_assert_true (g_output_stream_close (g_subprocess_get_stdin_pipe (locker), NULL, NULL));
  g_assert_cmpint (flctl_test_wait (locker, FLCTL_TEST_TIMEOUT_MS), ==, 0);
  flctl_test_remove_dir (dir);
}

/* A user who may not look into the holder's open files still finds the lock, by the device
 * and inode of the file named in DIR (issue 32). */
static void
test_list_kernel_unprivileged (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *target = NULL;
  g_autofree char *lock = NULL;
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(JsonArray) records = NULL;
  g_autoptr(FlctlResult) human = NULL;
  JsonObject *record;

  if (!flctl_test_check_unprivileged ())
    return;
  dir = flctl_test_make_dir ();
  target = g_build_filename (dir, "t", NULL);
  lock = g_build_filename (dir, "t.lock", NULL);
  holder = flctl_test_hold (target);
  records = list_kernel_json_as (FLCTL_RUN_UNPRIVILEGED, dir, NULL);
  record = flctl_test_find_record (records, lock);
  g_assert_nonnull (record);
  g_assert_cmpstr (json_object_get_string_member (record, "lock_file"), ==, lock);
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, flctl_test_pid (holder));
  g_assert_cmpstr (json_object_get_string_member (record, "mode"), ==, "write");

  human = flctl_test_run (FLCTL_RUN_UNPRIVILEGED, NULL, "list", "--kernel", dir, NULL);
  g_assert_cmpint (human->status, ==, 0);
  g_assert_nonnull (strstr (human->out, lock));
  g_assert_null (strstr (human->err, "no kernel locks found"));

  flctl_test_release (holder);
  flctl_test_remove_dir (dir);
}

/* `flctl run T -- COMMAND` SIGKILLed: the command keeps the kernel lock through the descriptor
 * it inherited, while /proc/locks still shows the PID of the flctl that took it. The lock is
 * listed all the same, and what cannot be said of its holder is said. */
static void
test_list_kernel_inherited (void)
{
  g_autofree char *dir = flctl_test_make_dir ();
  g_autofree char *target = g_build_filename (dir, "job", NULL);
  g_autofree char *lock = g_build_filename (dir, "job.lock", NULL);
  g_autoptr(GSubprocess) runner = NULL;
  g_autoptr(JsonArray) records = NULL;
  g_autofree char *err = NULL;
  g_autofree char *keeper = NULL;
  JsonObject *record;
  int flctl_pid = 0;
  int command_pid = flctl_test_start_orphaned_command (target, &runner, &flctl_pid);

  records = list_kernel_json_as (FLCTL_RUN_DEFAULT, dir, &err);
  record = flctl_test_find_record (records, lock);
  g_assert_nonnull (record);
  g_assert_cmpstr (json_object_get_string_member (record, "lock_file"), ==, lock);
  g_assert_cmpint (json_object_get_int_member (record, "pid"), ==, flctl_pid);
  /* The PID /proc/locks shows has exited: the one that keeps the lock is named instead. */
  keeper = g_strdup_printf ("PID %d (sh) keeps it", command_pid);
  g_assert_nonnull (strstr (err, keeper));

  flctl_test_write (runner, "done\n");
  g_assert_true (flctl_test_wait_pid_gone (command_pid, FLCTL_TEST_TIMEOUT_MS));
  flctl_test_remove_dir (dir);
}

/* Without --kernel a DIR is still needed. */
static void
test_list_needs_dir (void)
{
  g_autoptr(FlctlResult) result = flctl_test_run (FLCTL_RUN_DEFAULT, NULL, "list", NULL);

  g_assert_cmpint (result->status, ==, 2);
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

  g_test_add_func ("/flctl/list/kernel", test_list_kernel);
  g_test_add_func ("/flctl/list/kernel-unprivileged", test_list_kernel_unprivileged);
  g_test_add_func ("/flctl/list/kernel-inherited", test_list_kernel_inherited);
  g_test_add_func ("/flctl/list/needs-dir", test_list_needs_dir);
  return g_test_run ();
}
