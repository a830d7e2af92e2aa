/* ui-test-util.c: driving the Lock Inspector's window in-process, under Xvfb
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <locale.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ui-test-util.h"

/* As a person running `LANGUAGE=de fl-inspector` in a C.UTF-8 session, with the German
 * catalogue built in the tree rather than an installed one. Call it first, before anything is
 * translated. */
void
ui_test_use_german (void)
{
  g_setenv ("LANGUAGE", "de", TRUE);
  setlocale (LC_ALL, "C.UTF-8");
  bindtextdomain (GETTEXT_PACKAGE, INSPECTOR_LOCALE_BUILD_DIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}

/* The display named by DISPLAY (or WAYLAND_DISPLAY), or NULL. */
static const char *
named_display (void)
{
  const char *names[] = { "DISPLAY", "WAYLAND_DISPLAY" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      const char *value = g_getenv (names[i]);

      if (value != NULL && *value != '\0')
        return value;
    }
  return NULL;
}

/* gtk_init_check(), then the display asked for again a few times while one is named: once,
 * under ASan on a busy machine, one test of many sharing one Xvfb could not open it and
 * skipped (the CI counts a skipped UI test as failed). The display is the X server's, not ours
 * to wait for by any event: each try is 200 ms after the last, 2 s in all, each said in the
 * log. gtk_init_check() itself is asked once only: it counts GTK as initialised even when the
 * display failed, and says TRUE the second time. */
static gboolean
init_display (void)
{
  const guint tries = 10;

  if (gtk_init_check ())
    return TRUE;
  if (named_display () == NULL)
    return FALSE;
  for (guint i = 1; i <= tries; i++)
    {
      gint64 next = g_get_monotonic_time () + 200 * G_TIME_SPAN_MILLISECOND;
      GdkDisplay *display;

      g_print ("# the display %s could not be opened (try %u of %u)\n", named_display (), i,
               tries);
      while (g_get_monotonic_time () < next)
        g_usleep (next - g_get_monotonic_time ());
      display = gdk_display_open (NULL);
      if (display != NULL)
        {
          gdk_display_manager_set_default_display (gdk_display_manager_get (), display);
          return TRUE;
        }
    }
  return FALSE;
}

/* Without a display the tests skip cleanly, unless FL_REQUIRE_DISPLAY is set (CI): then a
 * skip would hide that nothing was tested, so it fails. */
gboolean
ui_test_init (int    *argc,
              char ***argv)
{
  g_setenv ("GSETTINGS_SCHEMA_DIR", INSPECTOR_SCHEMA_BUILD_DIR, TRUE);
  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  g_setenv ("FL_INSPECTOR_FLCTL", FLCTL_BUILD_PATH, TRUE);
  g_test_init (argc, argv, NULL);

  if (!init_display ())
    {
      if (g_getenv ("FL_REQUIRE_DISPLAY") != NULL)
        {
          g_print ("Bail out! no display, and FL_REQUIRE_DISPLAY is set: run under xvfb-run\n");
          exit (1);
        }
      g_print ("1..0 # SKIP no display\n");
      return FALSE;
    }
  return TRUE;
}

static gboolean
demo_loaded (gpointer data)
{
  InspectorWindow *window = data;
  gboolean loading = TRUE;

  if (window->demo == NULL || inspector_demo_get_directory (window->demo) == NULL)
    return FALSE;
  g_object_get (window->model, "loading", &loading, NULL);
  /* flctl demo makes 9 entries: 3 held, 3 stale, 2 orphans, 1 foreign */
  return !loading && g_list_model_get_n_items (G_LIST_MODEL (window->model)) >= 9;
}

InspectorWindow *
ui_window_with_demo (void)
{
  InspectorWindow *window = inspector_window_new (NULL);

  inspector_window_start_demo (window);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (fl_test_wait_until (demo_loaded, window, 30000));
  return window;
}

static gboolean
is_destroyed (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static gboolean
is_gone (gpointer data)
{
  return !g_file_test (data, G_FILE_TEST_EXISTS);
}

/* Also waits for the demo's stop, which ends asynchronously (inspector_demo_stop()): its
 * directory goes once flctl demo and its holders have exited. */
void
ui_window_close (InspectorWindow *window)
{
  gpointer weak = window;
  g_autofree char *demo_dir = NULL;

  if (window->demo != NULL && inspector_demo_get_directory (window->demo) != NULL)
    demo_dir = g_strdup (inspector_demo_get_directory (window->demo));
  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_destroy (GTK_WINDOW (window));
  g_assert_true (fl_test_wait_until (is_destroyed, &weak, 10000));
  if (demo_dir != NULL)
    g_assert_true (fl_test_wait_until (is_gone, demo_dir, 10000));
}

char *
ui_demo_path (InspectorWindow *window,
              const char      *name)
{
  return g_build_filename (inspector_demo_get_directory (window->demo), name, NULL);
}

FlEntry *
ui_lookup (InspectorWindow *window,
           const char      *name)
{
  g_autofree char *path = ui_demo_path (window, name);

  return fl_directory_model_lookup (window->model, path);
}

GtkWidget *
ui_find_actionable (GtkWidget  *root,
                    const char *action_name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_ACTIONABLE (child)
          && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (child)), action_name) == 0)
        return child;
      found = ui_find_actionable (child, action_name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_named (GtkWidget  *root,
            const char *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (g_str_equal (gtk_widget_get_name (child), name))
        return child;
      found = find_named (child, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A row's cells are siblings: the state cell's row (the nearest ancestor that holds a name
 * cell) holds the name cell, whose tooltip is the entry's path (cell-name.ui, cell-state.ui). */
static void
collect_states (GtkWidget  *widget,
                GHashTable *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (g_str_equal (gtk_widget_get_name (child), "state-cell"))
        {
          GtkWidget *row = gtk_widget_get_parent (child);
          GtkWidget *name = NULL;

          for (; row != NULL && (name = find_named (row, "name-cell")) == NULL;
               row = gtk_widget_get_parent (row))
            ;
          GtkWidget *label = gtk_widget_get_last_child (child);
          const char *path = name != NULL ? gtk_widget_get_tooltip_text (name) : NULL;

          if (path != NULL && gtk_widget_get_visible (row))
            g_hash_table_insert (out, g_strdup (path),
                                 g_strdup (ui_text_of (label)));
        }
      collect_states (child, out);
    }
}

/* path -> the state text a state cell shows for it */
GHashTable *
ui_rendered_states (GtkWidget *root)
{
  GHashTable *out = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  collect_states (root, out);
  return out;
}

void
ui_collect_widgets (GtkWidget *root,
                    GType      type,
                    GPtrArray *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (g_type_is_a (G_OBJECT_TYPE (child), type))
        g_ptr_array_add (out, child);
      ui_collect_widgets (child, type, out);
    }
}

void
ui_collect_texts (GtkWidget *root,
                  GPtrArray *out)
{
  ui_collect_widgets (root, GTK_TYPE_LABEL, out);
  ui_collect_widgets (root, GTK_TYPE_INSCRIPTION, out);
}

const char *
ui_text_of (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget))
    return gtk_label_get_text (GTK_LABEL (widget));
  if (GTK_IS_INSCRIPTION (widget))
    return gtk_inscription_get_text (GTK_INSCRIPTION (widget));
  return NULL;
}

/* A label says so itself; GTK 4.8 keeps an inscription's layout private, so its text is laid
 * out again here, in its own font, and measured against its width. */
gboolean
ui_text_is_whole (GtkWidget *widget)
{
  g_autoptr(PangoLayout) layout = NULL;
  int width;

  if (GTK_IS_LABEL (widget))
    return !pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (widget)));
  g_assert_true (GTK_IS_INSCRIPTION (widget));
  layout = gtk_widget_create_pango_layout (widget, ui_text_of (widget));
  pango_layout_get_pixel_size (layout, &width, NULL);
  return width <= gtk_widget_get_width (widget);
}

static GtkLabel *
value_of (GtkWidget  *root,
          const char *key)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkLabel *found;

      if (GTK_IS_LABEL (child) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (child)), key) == 0 &&
          GTK_IS_GRID (root))
        {
          int column, row, width, height;

          gtk_grid_query_child (GTK_GRID (root), child, &column, &row, &width, &height);
          return GTK_LABEL (gtk_grid_get_child_at (GTK_GRID (root), 1, row));
        }
      found = value_of (child, key);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The value the details pane shows beside @key ("Content", "Lease"), or NULL without one. */
const char *
ui_detail (InspectorWindow *window,
           const char      *key)
{
  GtkLabel *label = value_of (GTK_WIDGET (window->details), key);

  return label != NULL ? gtk_label_get_text (label) : NULL;
}

typedef struct
{
  InspectorWindow *window;
  const char      *path;
} Listed;

static gboolean
is_listed (gpointer data)
{
  Listed *listed = data;

  return fl_directory_model_lookup (listed->window->model, listed->path) != NULL;
}

/* Whether the window's model lists @path within @timeout_ms. */
gboolean
ui_wait_listed (InspectorWindow *window,
                const char      *path,
                guint            timeout_ms)
{
  Listed listed = { window, path };

  return fl_test_wait_until (is_listed, &listed, timeout_ms);
}

/* Emits "key-pressed" on @widget's key controllers of @phase; TRUE if one handled it. */
static gboolean
key_to_controllers (GtkWidget        *widget,
                    GtkPropagationPhase phase,
                    guint             keyval,
                    GdkModifierType   state)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);
      gboolean handled = FALSE;

      if (GTK_IS_EVENT_CONTROLLER_KEY (controller)
          && gtk_event_controller_get_propagation_phase (controller) == phase)
        {
          g_signal_emit_by_name (controller, "key-pressed", keyval, 0, state, &handled);
          if (handled)
            return TRUE;
        }
    }
  return FALSE;
}

/* GTK 4.8 has no public way to make a key event, and Xvfb without a window manager gives no
 * window the keyboard: a key press goes to the focus widget's key controllers as GTK
 * delivers it (capture from the window down, then bubble up), and one nobody handles moves
 * the focus as GtkWindow's own bindings do (Tab, Shift+Tab, the arrows). */
void
ui_send_key (GtkWindow       *window,
             guint            keyval,
             GdkModifierType  state)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();
  GtkDirectionType direction;

  for (GtkWidget *w = focus != NULL ? focus : GTK_WIDGET (window); w != NULL;
       w = gtk_widget_get_parent (w))
    g_ptr_array_insert (chain, 0, w);
  for (guint i = 0; i < chain->len; i++)
    if (key_to_controllers (chain->pdata[i], GTK_PHASE_CAPTURE, keyval, state))
      return;
  for (guint i = chain->len; i-- > 0;)
    if (key_to_controllers (chain->pdata[i], GTK_PHASE_BUBBLE, keyval, state))
      return;

  switch (keyval)
    {
    case GDK_KEY_Tab:
      direction = state & GDK_SHIFT_MASK ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD;
      break;
    case GDK_KEY_ISO_Left_Tab:
      direction = GTK_DIR_TAB_BACKWARD;
      break;
    case GDK_KEY_Down:
      direction = GTK_DIR_DOWN;
      break;
    case GDK_KEY_Up:
      direction = GTK_DIR_UP;
      break;
    default:
      return;
    }
  gtk_widget_child_focus (GTK_WIDGET (window), direction);
}

