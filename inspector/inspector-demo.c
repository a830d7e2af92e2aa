/* inspector-demo.c: --demo, a fresh directory filled by `flctl demo`
 *
 * The demo directory is made by the very code behind `flctl demo DIR`, run as a child: it
 * prints one line per file and then exactly "ready", and keeps its live holders until SIGTERM.
 * So a newcomer sees in the window exactly what the command line shows.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <sys/stat.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#ifdef __linux__
#include <sys/prctl.h>   /* PR_SET_PDEATHSIG: Linux only, as flctl demo is */
#endif

#include "inspector-build-tree.h"
#include "inspector-demo.h"

#define STOP_TIMEOUT_MS 5000

struct _InspectorDemo
{
  GObject           parent_instance;

  char             *directory;
  char             *flctl;
  GSubprocess      *process;
  GDataInputStream *output;
};

G_DEFINE_FINAL_TYPE (InspectorDemo, inspector_demo, G_TYPE_OBJECT)

/* The build tree's flctl when fl-inspector runs from the build tree, else the installed one
 * in bindir. FL_INSPECTOR_FLCTL overrides both, for the tests and build-aux/screenshot. */
char *
inspector_demo_find_flctl (void)
{
  const char *env = g_getenv ("FL_INSPECTOR_FLCTL");
  g_autofree char *root = NULL;

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);

  root = inspector_dup_build_root ();
  if (root != NULL)
    {
      g_autofree char *flctl = g_build_filename (root, "flctl", "flctl", NULL);

      if (g_file_test (flctl, G_FILE_TEST_IS_EXECUTABLE))
        return g_steal_pointer (&flctl);
    }
  return g_build_filename (FL_BINDIR, "flctl", NULL);
}

/* Removes what flctl demo made, never following a symbolic link out of the directory. */
static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      GStatBuf st;

      if (g_lstat (child, &st) == 0 && S_ISDIR (st.st_mode))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
inspector_demo_dispose (GObject *object)
{
  inspector_demo_stop (INSPECTOR_DEMO (object));

  G_OBJECT_CLASS (inspector_demo_parent_class)->dispose (object);
}

static void
inspector_demo_finalize (GObject *object)
{
  InspectorDemo *self = INSPECTOR_DEMO (object);

  g_free (self->directory);
  g_free (self->flctl);

  G_OBJECT_CLASS (inspector_demo_parent_class)->finalize (object);
}

static void
inspector_demo_class_init (InspectorDemoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = inspector_demo_dispose;
  object_class->finalize = inspector_demo_finalize;
}

static void
inspector_demo_init (InspectorDemo *self)
{
}

InspectorDemo *
inspector_demo_new (void)
{
  return g_object_new (INSPECTOR_TYPE_DEMO, NULL);
}

/* Runs between fork() and exec(): if the inspector dies without cleaning up, so does the demo,
 * and with it its holders. */
#ifdef __linux__
static void
child_setup_cb (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
}
#endif

static void read_line_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data);

static void
read_next_line (GTask *task)
{
  InspectorDemo *self = g_task_get_source_object (task);

  g_data_input_stream_read_line_async (self->output, G_PRIORITY_DEFAULT,
                                       g_task_get_cancellable (task), read_line_cb, task);
}

static void
read_line_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InspectorDemo *self = g_task_get_source_object (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;

  line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (source), result, NULL,
                                               &error);
  if (line == NULL)
    {
      if (error == NULL)
        g_set_error (&error, G_IO_ERROR, G_IO_ERROR_FAILED,
                     _("The demo could not be set up: “%s demo” stopped before it was ready."),
                     self->flctl);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  g_debug ("flctl demo: %s", line);
  if (g_str_equal (line, "ready"))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  read_next_line (g_steal_pointer (&task));
}

void
inspector_demo_start_async (InspectorDemo       *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (INSPECTOR_IS_DEMO (self));
  g_return_if_fail (self->process == NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, inspector_demo_start_async);

  self->flctl = inspector_demo_find_flctl ();
  self->directory = g_dir_make_tmp ("fl-inspector-demo-XXXXXX", &error);
  if (self->directory == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
#ifdef __linux__
  g_subprocess_launcher_set_child_setup (launcher, child_setup_cb, NULL, NULL);
#endif
  self->process = g_subprocess_launcher_spawn (launcher, &error,
                                               self->flctl, "demo", self->directory, NULL);
  if (self->process == NULL)
    {
      g_prefix_error (&error, _("The demo needs flctl (%s): "), self->flctl);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  self->output = g_data_input_stream_new (g_subprocess_get_stdout_pipe (self->process));
  read_next_line (g_steal_pointer (&task));
}

gboolean
inspector_demo_start_finish (InspectorDemo  *self,
                             GAsyncResult   *result,
                             GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

const char *
inspector_demo_get_directory (InspectorDemo *self)
{
  g_return_val_if_fail (INSPECTOR_IS_DEMO (self), NULL);

  return self->directory;
}

typedef struct
{
  GSubprocess  *process;
  char         *directory;
  GApplication *application;   /* held until the child is gone, if there is one */
  guint         timeout_id;
} Stop;

static void
stop_free (Stop *stop)
{
  g_clear_handle_id (&stop->timeout_id, g_source_remove);
  if (stop->directory != NULL)
    remove_tree (stop->directory);
  g_free (stop->directory);
  g_clear_object (&stop->process);
  if (stop->application != NULL)
    g_application_release (stop->application);
  g_clear_object (&stop->application);
  g_free (stop);
}

static void
stop_waited_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  stop_free (user_data);
}

static gboolean
stop_timeout_cb (gpointer user_data)
{
  Stop *stop = user_data;

  stop->timeout_id = 0;
  g_subprocess_force_exit (stop->process);
  return G_SOURCE_REMOVE;
}

/* SIGTERM ends flctl demo, which ends its holders: they release their locks. The demo's
 * directory can go only once they have, so the rest happens when the child has exited (or was
 * killed after STOP_TIMEOUT_MS): asynchronously, since this runs from dispose, where spinning
 * the main loop would run arbitrary callbacks against half-destroyed objects. The application
 * is held meanwhile, so that quitting waits for the holders instead of leaving them behind. */
void
inspector_demo_stop (InspectorDemo *self)
{
  Stop *stop;

  g_return_if_fail (INSPECTOR_IS_DEMO (self));

  stop = g_new0 (Stop, 1);
  stop->directory = g_steal_pointer (&self->directory);
  g_clear_object (&self->output);
  if (self->process == NULL)
    {
      stop_free (stop);
      return;
    }

  stop->process = g_steal_pointer (&self->process);
  stop->application = g_application_get_default ();
  if (stop->application != NULL)
    {
      g_object_ref (stop->application);
      g_application_hold (stop->application);
    }
#ifdef G_OS_UNIX
  g_subprocess_send_signal (stop->process, SIGTERM);
#else
  /* No signals on Windows (g_subprocess_send_signal() is Unix only); flctl demo does not run
   * there anyway (flctl-demo-none.c), so this ends a process that is already gone. */
  g_subprocess_force_exit (stop->process);
#endif
  stop->timeout_id = g_timeout_add (STOP_TIMEOUT_MS, stop_timeout_cb, stop);
  g_subprocess_wait_async (stop->process, NULL, stop_waited_cb, stop);
}
