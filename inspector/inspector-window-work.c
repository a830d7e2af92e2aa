/* inspector-window-work.c: removing many orphaned files while the window stays live
 *
 * fl_directory_model_reclaim_async() does the removals in a worker thread; this file shows how
 * far it has come in the work bar, lets the person stop it (after the file being removed:
 * nothing is left half done) and reports the outcome in the banner. The rows leave the list as
 * the files go, a slice at a time, like any file events.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <glib/gi18n.h>

#include "inspector-window-private.h"

static void
progress_cb (guint    done,
             guint    total,
             gpointer user_data)
{
  InspectorWindow *self = user_data;
  g_autofree char *text = NULL;

  text = g_strdup_printf (_("Removing orphaned files: %u of %u…"), done, total);
  gtk_label_set_text (self->work_label, text);
  gtk_progress_bar_set_fraction (self->work_progress, total > 0 ? (double) done / total : 1.0);
}

static void
removed_cb (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(InspectorWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  guint removed = 0, refused = 0;
  gboolean stopped;

  stopped = !fl_directory_model_reclaim_finish (FL_DIRECTORY_MODEL (object), result, &removed,
                                                &refused, &error);
  g_clear_object (&self->work);
  if (self->work_bar == NULL)
    return;  /* the window was closed, which stopped the work: nobody to tell */
  gtk_revealer_set_reveal_child (self->work_bar, FALSE);
  g_object_notify (G_OBJECT (self), "working");

  g_string_printf (text, g_dngettext (GETTEXT_PACKAGE, "Removed %u orphaned file.",
                                      "Removed %u orphaned files.", removed), removed);
  if (refused > 0)
    {
      g_string_append_c (text, ' ');
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE,
                                                 "%u file was left alone because it changed.",
                                                 "%u files were left alone because they changed.",
                                                 refused), refused);
    }
  if (stopped)
    {
      g_string_append_c (text, ' ');
      g_string_append (text, _("Stopped before the end, as you asked: the files not yet "
                               "reached are untouched."));
    }
  _inspector_window_show_banner (self, refused == 0 && !stopped, text->str);
}

void
_inspector_window_remove_orphans (InspectorWindow *self,
                                  GPtrArray       *seen)
{
  g_return_if_fail (self->work == NULL);

  self->work = g_cancellable_new ();
  progress_cb (0, seen->len, self);
  gtk_revealer_set_reveal_child (self->work_bar, TRUE);
  g_object_notify (G_OBJECT (self), "working");
  /* The window is kept until the worker is done: its rows and banner are what it reports to. */
  fl_directory_model_reclaim_async (self->model, seen, self->work, progress_cb, self, NULL,
                                    removed_cb, g_object_ref (self));
}

void
_inspector_window_stop_work (InspectorWindow *self)
{
  if (self->work != NULL)
    g_cancellable_cancel (self->work);
}
