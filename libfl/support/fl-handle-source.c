/* fl-handle-source.c: a main-loop source on a platform handle
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include "support/fl-handle-source-private.h"

typedef struct
{
  GSource  source;
  GPollFD  poll_fd;
  FlHandle handle;
} HandleSource;

static gboolean
handle_source_check (GSource *source)
{
  HandleSource *self = (HandleSource *) source;

  return (self->poll_fd.revents & (G_IO_IN | G_IO_HUP | G_IO_ERR)) != 0;
}

static gboolean
handle_source_dispatch (GSource     *source,
                        GSourceFunc  callback,
                        gpointer     user_data)
{
  HandleSource *self = (HandleSource *) source;
  FlHandleFunc func = (FlHandleFunc) (void (*) (void)) callback;

  return func != NULL ? func (self->handle, user_data) : G_SOURCE_REMOVE;
}

static GSourceFuncs handle_source_funcs = {
  NULL,
  handle_source_check,
  handle_source_dispatch,
  NULL,
  NULL,
  NULL,
};

guint
_fl_handle_add_watch (FlHandle     handle,
                      FlHandleFunc func,
                      gpointer     user_data)
{
  GSource *source = g_source_new (&handle_source_funcs, sizeof (HandleSource));
  HandleSource *self = (HandleSource *) source;
  guint id;

  self->handle = handle;
  self->poll_fd.fd = handle;  /* gint on POSIX, gint64 (a HANDLE) on Win64 */
  self->poll_fd.events = G_IO_IN;
  g_source_add_poll (source, &self->poll_fd);
  g_source_set_callback (source, (GSourceFunc) (void (*) (void)) func, user_data, NULL);
  g_source_set_static_name (source, "[libfl] process exit");
  id = g_source_attach (source, NULL);  /* where g_unix_fd_add() and the model's timeouts go */
  g_source_unref (source);
  return id;
}
