/* flctl-kernel.c: `flctl list --kernel`, every kernel lock of the system, as lslocks shows them
 *
 * What lslocks cannot say is which of them are libfl locks: a libfl holder's kernel lock is on
 * the file it created under a name that is gone by now. libfl matches it to its lock file
 * (fl_list_kernel_locks()), and that is the path shown here.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "flctl-private.h"

static char *
format_mode (FlKernelLockInfo *info)
{
  const char *mode = fl_kernel_lock_mode_to_string (fl_kernel_lock_info_get_mode (info));

  if (fl_kernel_lock_info_get_blocked (info))
    return g_strdup_printf (_("%s (waiting)"), mode);
  return g_strdup (mode);
}

static char *
format_range (FlKernelLockInfo *info)
{
  gint64 end = fl_kernel_lock_info_get_end (info);

  if (end < 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT "-EOF", fl_kernel_lock_info_get_start (info));
  return g_strdup_printf ("%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT,
                          fl_kernel_lock_info_get_start (info), end);
}

/* lslocks' names where they mean the same; LIBFL: "lock" when the kernel lock is a libfl
 * holder's (PATH is then its lock file, not the name it is gone from). */
static const char *const column_names[] = {
  "TYPE", "MODE", "PID", "PROCESS", "RANGE", "LIBFL", "PATH", NULL
};
enum { COL_TYPE, COL_MODE, COL_PID, COL_PROCESS, COL_RANGE, COL_LIBFL, COL_PATH };
static const guint default_columns[] = {
  COL_TYPE, COL_MODE, COL_PID, COL_PROCESS, COL_RANGE, COL_LIBFL, COL_PATH
};

static char *
kernel_cell (FlKernelLockInfo *info,
             guint             column)
{
  const char *process = fl_kernel_lock_info_get_process_name (info);
  const char *path = fl_kernel_lock_info_get_display_path (info);
  int pid = fl_kernel_lock_info_get_pid (info);

  switch (column)
    {
    case COL_TYPE:
      return g_strdup (fl_kernel_lock_type_to_string (fl_kernel_lock_info_get_lock_type (info)));
    case COL_MODE:
      return format_mode (info);
    case COL_PID:
      return pid > 0 ? g_strdup_printf ("%d", pid) : g_strdup ("-");
    case COL_PROCESS:
      return g_strdup (process != NULL ? process : "-");
    case COL_RANGE:
      return format_range (info);
    case COL_LIBFL:
      return g_strdup (fl_kernel_lock_info_get_lock_file (info) != NULL ? "lock" : "-");
    case COL_PATH:
      return g_strdup (path != NULL ? path : "?");
    default:
      g_assert_not_reached ();
    }
}

static void
print_table (const FlctlArgs *args,
             GArray          *columns,
             GPtrArray       *locks)
{
  g_autoptr(FlctlTable) table = flctl_table_new_for_args (args);

  for (guint c = 0; c < columns->len; c++)
    {
      guint column = g_array_index (columns, guint, c);

      flctl_table_add_column (table, column_names[column],
                              column == COL_PID ? FLCTL_COLUMN_RIGHT
                              : column == COL_PATH ? FLCTL_COLUMN_TRUNCATE
                              : FLCTL_COLUMN_DEFAULT);
    }
  for (guint i = 0; i < locks->len; i++)
    {
      g_auto(GStrv) cells = g_new0 (char *, columns->len + 1);

      for (guint c = 0; c < columns->len; c++)
        cells[c] = kernel_cell (g_ptr_array_index (locks, i), g_array_index (columns, guint, c));
      flctl_table_add_row (table, (const char * const *) cells, NULL);
    }
  flctl_table_print (table);
}

/* The list's members where they mean the same (path, pid, process), null where unknown. */
static void
lock_to_json (FlctlJson        *builder,
              FlKernelLockInfo *info)
{
  int pid = fl_kernel_lock_info_get_pid (info);
  gint64 end = fl_kernel_lock_info_get_end (info);

  flctl_json_begin_object (builder);
  flctl_json_add_string_or_null (builder, "path", fl_kernel_lock_info_get_display_path (info));
  flctl_json_add_string_or_null (builder, "lock_file", fl_kernel_lock_info_get_lock_file (info));
  flctl_json_add_string_or_null (builder, "open_path", fl_kernel_lock_info_get_path (info));
  flctl_json_add_string_or_null (builder, "type", fl_kernel_lock_type_to_string (
                                                    fl_kernel_lock_info_get_lock_type (info)));
  flctl_json_add_string_or_null (builder, "mode", fl_kernel_lock_mode_to_string (
                                                    fl_kernel_lock_info_get_mode (info)));
  flctl_json_set_member_name (builder, "blocked");
  flctl_json_add_boolean_value (builder, fl_kernel_lock_info_get_blocked (info));
  flctl_json_add_int_or_null (builder, "pid", pid > 0, pid);
  flctl_json_add_string_or_null (builder, "process", fl_kernel_lock_info_get_process_name (info));
  flctl_json_add_int_or_null (builder, "device", TRUE,
                              (gint64) fl_kernel_lock_info_get_device (info));
  flctl_json_add_int_or_null (builder, "inode", TRUE, (gint64) fl_kernel_lock_info_get_inode (info));
  flctl_json_add_int_or_null (builder, "start", TRUE, fl_kernel_lock_info_get_start (info));
  flctl_json_add_int_or_null (builder, "end", end >= 0, end);
  flctl_json_add_schema (builder);
  flctl_json_end_object (builder);
}

/* A listed lock whose holder no process shows any more is not an empty answer: say so
 * (flctl(1): an empty listing with status 0 means there is nothing to find). */
static void
report_unnamed (GPtrArray *locks)
{
  for (guint i = 0; i < locks->len; i++)
    {
      FlKernelLockInfo *info = g_ptr_array_index (locks, i);
      const char *path = fl_kernel_lock_info_get_display_path (info);
      int pid = fl_kernel_lock_info_get_pid (info);

      int keeper = fl_kernel_lock_info_get_keeper_pid (info);
      const char *keeper_name = fl_kernel_lock_info_get_keeper_name (info);

      if (fl_kernel_lock_info_get_process_name (info) != NULL)
        continue;
      if (path == NULL)
        path = "?";
      if (keeper > 0)
        g_printerr (_("flctl list: PID %d, which took the lock on %s, has exited; PID %d (%s) "
                      "keeps it through the descriptor it inherited\n"), pid, path, keeper,
                    keeper_name != NULL ? keeper_name : "?");
      else if (pid > 0)
        g_printerr (_("flctl list: some holders could not be named: PID %d, which took the "
                      "lock on %s, has exited or is hidden from this user; a process that "
                      "inherited its descriptor keeps the lock (run as root to name it)\n"),
                    pid, path);
      else
        g_printerr (_("flctl list: some holders could not be named: no process shows the lock "
                      "on %s (an open file description lock of a process hidden from this "
                      "user)\n"), path);
    }
}

int
flctl_list_kernel_main (const FlctlArgs *args)
{
  g_autoptr(GPtrArray) locks = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) columns = NULL;

  columns = flctl_columns_select (args->output, args->output_all, column_names, default_columns,
                                  G_N_ELEMENTS (default_columns), &error);
  if (columns == NULL)
    return flctl_usage_error ("list", "%s", error->message);
  if (args->operands != NULL && args->operands[0] != NULL)
    locks = fl_list_kernel_locks_in ((const char * const *) args->operands, args->recursive,
                                     &error);
  else
    locks = fl_list_kernel_locks (&error);
  if (locks == NULL)
    {
      if (g_error_matches (error, FL_ERROR, FL_ERROR_NOT_SUPPORTED))
        {
          g_printerr (_("flctl list: --kernel is not available on this platform: it keeps no "
                        "table of its kernel locks\n"));
          return FLCTL_EXIT_USAGE;
        }
      return flctl_report_error ("list", error);
    }
  if (args->pid > 0)
    for (guint i = locks->len; i-- > 0;)
      if (fl_kernel_lock_info_get_pid (g_ptr_array_index (locks, i)) != args->pid)
        g_ptr_array_remove_index (locks, i);
  report_unnamed (locks);

  if (args->records)
    {
      g_autoptr(FlctlJson) builder = flctl_json_new (TRUE);

      flctl_json_begin_array (builder);
      for (guint i = 0; i < locks->len; i++)
        lock_to_json (builder, g_ptr_array_index (locks, i));
      flctl_json_end_array (builder);
      flctl_print_json (builder);
      return FLCTL_EXIT_OK;
    }
  if (locks->len == 0 && !args->json)
    g_printerr (_("flctl list: no kernel locks found\n"));
  else
    print_table (args, columns, locks);
  return FLCTL_EXIT_OK;
}
