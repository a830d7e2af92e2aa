/* test-burst.c: a folder of 20,000 lock files shows its first rows before it is all read,
 * and a burst of lock files arriving in the sorted list, with a row selected, does not hold
 * the main loop until it is all applied (under Xvfb)
 *
 * The model applies queued file events a slice at a time (libfl/model/fl-directory-model.c,
 * FLUSH_SLICE_US): between its first and its last change, a timer of the main loop must
 * have run. The worst stall itself is a figure for bench/fl-inspector-bench.c, not for a
 * test. Once the folder is read, the window stops drawing: the "Reading the folders" spinner,
 * hidden with its page, kept asking for a frame every vsync.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ui-test-util.h"

#define N_LOCKS 20000
#define BURST   300

typedef struct
{
  guint ticks;          /* of a 1 ms timer */
  guint first_change;   /* ticks when the burst's first change reached the model's rows */
  guint last_change;
  guint n_changes;
} Counter;

static gboolean
tick_cb (gpointer data)
{
  ((Counter *) data)->ticks++;
  return G_SOURCE_CONTINUE;
}

static void
rows_changed_cb (GListModel *rows,
                 guint       position,
                 guint       removed,
                 guint       added,
                 Counter    *c)
{
  if (c->n_changes++ == 0)
    c->first_change = c->ticks;
  c->last_change = c->ticks;
}

static void
write_lock (const char *path)
{
  g_autofree char *pid = g_strdup_printf ("%d", getpid ());

  g_assert_true (g_file_set_contents (path, pid, -1, NULL));
}

typedef struct
{
  InspectorWindow *window;
  guint            n;
} HasN;

static gboolean
has_n (gpointer data)
{
  HasN *h = data;

  return g_list_model_get_n_items (G_LIST_MODEL (h->window->model)) == h->n;
}

/* While the folder is first read: the rows that are already there. */
typedef struct
{
  guint partial;   /* items-changed seen with some rows but not all, still loading */
  guint n_all;
} Loading;

static void
loading_rows_cb (GListModel *model,
                 guint       position,
                 guint       removed,
                 guint       added,
                 Loading    *l)
{
  gboolean loading = FALSE;
  guint n = g_list_model_get_n_items (model);

  g_object_get (model, "loading", &loading, NULL);
  if (loading && n > 0 && n < l->n_all)
    l->partial++;
}

static void
page_shown_cb (GtkStack   *stack,
               GParamSpec *pspec,
               gboolean   *saw_loading)
{
  if (g_strcmp0 (gtk_stack_get_visible_child_name (stack), "loading") == 0)
    *saw_loading = TRUE;
}

static gboolean
keep_turning_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
run_for (gint64 us)
{
  gint64 until = g_get_monotonic_time () + us;
  guint wake = g_timeout_add (10, keep_turning_cb, NULL);

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (wake);
}

static void
count_layout_cb (GdkFrameClock *clock,
                 guint         *n)
{
  (*n)++;
}

/* Frames the window lays out in a second of its main loop with nothing changing, once the
 * list has the focus: the ages' tick asks for one. (Frames that only paint are not counted:
 * the overlay scrollbars fade in and out on their own.) */
static guint
layouts_in_a_second (InspectorWindow *window)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  guint n = 0;
  gulong handler;

  gtk_widget_grab_focus (GTK_WIDGET (window->column_view));
  run_for (G_USEC_PER_SEC / 2);
  handler = g_signal_connect (clock, "layout", G_CALLBACK (count_layout_cb), &n);
  run_for (G_USEC_PER_SEC);
  g_signal_handler_disconnect (clock, handler);
  return n;
}

static void
test_burst_sorted (void)
{
  g_autofree char *dir = g_dir_make_tmp ("fl-ui-burst-XXXXXX", NULL);
  g_autoptr(GtkColumnViewColumn) name_column = NULL;
  g_autoptr(GObject) selected = NULL;
  InspectorWindow *window = NULL;
  Counter c = { 0 };
  Loading loading = { 0 };
  HasN h;
  guint timer;
  gboolean saw_loading = FALSE;
  guint layouts;

  for (guint i = 0; i < N_LOCKS; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/lock-%05u.lock", dir, i);

      write_lock (path);
    }
  window = inspector_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  loading.n_all = N_LOCKS;
  g_signal_connect (window->model, "items-changed", G_CALLBACK (loading_rows_cb), &loading);
  g_signal_connect (window->stack, "notify::visible-child-name", G_CALLBACK (page_shown_cb),
                    &saw_loading);
  inspector_window_add_directory (window, dir, FALSE, FALSE);
  h = (HasN) { window, N_LOCKS };
  g_assert_true (fl_test_wait_until (has_n, &h, 120000));
  g_signal_handlers_disconnect_by_data (window->model, &loading);
  g_signal_handlers_disconnect_by_data (window->stack, &saw_loading);
  /* The first rows were shown before the whole folder was read. */
  g_assert_cmpuint (loading.partial, >, 0);
  /* Read: the window goes quiet (it laid itself out some 50 times a second while its
   * loading page's spinner, hidden, still spun). */
  g_assert_true (saw_loading);
  g_assert_false (gtk_spinner_get_spinning (window->loading_spinner));
  layouts = layouts_in_a_second (window);
  g_test_message ("%u layouts in a second with nothing changing", layouts);
  g_assert_cmpuint (layouts, <=, 10);

  name_column = g_list_model_get_item (gtk_column_view_get_columns (window->column_view), 0);
  gtk_column_view_sort_by_column (window->column_view, name_column, GTK_SORT_DESCENDING);
  gtk_single_selection_set_selected (window->selection, N_LOCKS / 2);
  selected = g_object_ref (gtk_single_selection_get_selected_item (window->selection));

  /* Scattered names: each lands in a place of its own in the sorted rows. */
  for (guint i = 0; i < BURST; i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/lock-%05u-%u.lock", dir,
                                               (i * 7919) % N_LOCKS, i);

      write_lock (path);
    }
  g_signal_connect (_inspector_window_get_rows (window), "items-changed",
                    G_CALLBACK (rows_changed_cb), &c);
  timer = g_timeout_add (1, tick_cb, &c);
  h.n = N_LOCKS + BURST;
  g_assert_true (fl_test_wait_until (has_n, &h, 120000));
  g_source_remove (timer);
  g_signal_handlers_disconnect_by_data (_inspector_window_get_rows (window), &c);

  g_test_message ("%u changes; the main loop's timer ran %u times between the first and the last",
                  c.n_changes, c.last_change - c.first_change);
  g_assert_cmpuint (c.n_changes, >=, 2);
  g_assert_cmpuint (c.last_change - c.first_change, >, 0);
  /* The selection stayed on its lock. */
  g_assert_true (gtk_single_selection_get_selected_item (window->selection) == selected);

  ui_window_close (window);
  fl_test_rm_rf (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!ui_test_init (&argc, &argv))
    return 0;

  g_test_add_func ("/ui/burst/sorted-20000", test_burst_sorted);
  return g_test_run ();
}
