/* model-test-util.c: fixtures for the directory model tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "model-test-util.h"

static gint64
fixed_clock (gpointer user_data)
{
  return ((ModelFixture *) user_data)->now;
}

static void
items_changed_cb (GListModel   *list,
                  guint         position,
                  guint         removed,
                  guint         added,
                  ModelFixture *fx)
{
  fx->n_items_changed++;
  g_assert_cmpuint (position + removed, <=, fx->shadow->len);
  g_ptr_array_remove_range (fx->shadow, position, removed);
  for (guint i = 0; i < added; i++)
    g_ptr_array_insert (fx->shadow, position + i, g_list_model_get_item (list, position + i));
}

static void
entry_changed_cb (FlDirectoryModel *model,
                  FlEntry          *entry,
                  FlChange          change,
                  ModelFixture     *fx)
{
  g_autoptr(GEnumClass) klass = g_type_class_ref (FL_TYPE_CHANGE);
  GEnumValue *value = g_enum_get_value (klass, change);
  const char *name = fl_snapshot_get_name (fl_entry_get_snapshot (entry));

  g_ptr_array_add (fx->changes, g_strdup_printf ("%s:%s", value->value_nick, name));
}

void
model_fixture_watch (ModelFixture     *fx,
                     FlDirectoryModel *model)
{
  g_signal_connect (model, "items-changed", G_CALLBACK (items_changed_cb), fx);
  g_signal_connect (model, "entry-changed", G_CALLBACK (entry_changed_cb), fx);
}

/* data: GINT_TO_POINTER (TRUE) for real monitoring, FALSE for events fed by hand. */
void
model_fixture_setup (ModelFixture  *fx,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fx->dir = g_dir_make_tmp ("fl-model-XXXXXX", &error);
  g_assert_no_error (error);
  fx->model = fl_directory_model_new (NULL);
  _fl_directory_model_set_monitoring (fx->model, GPOINTER_TO_INT (data));
  fx->shadow = g_ptr_array_new_with_free_func (g_object_unref);
  fx->changes = g_ptr_array_new_with_free_func (g_free);
  fx->now = g_get_real_time ();
  fl_directory_model_set_clock (fx->model, fixed_clock, fx, NULL);
  model_fixture_watch (fx, fx->model);
}

void
model_fixture_teardown (ModelFixture  *fx,
                        gconstpointer  data)
{
  g_assert_finalize_object (fx->model);
  g_ptr_array_unref (fx->shadow);
  g_ptr_array_unref (fx->changes);
  fl_test_rm_rf (fx->dir);
  g_free (fx->dir);
}

void
model_assert_shadow (ModelFixture *fx)
{
  GListModel *list = G_LIST_MODEL (fx->model);

  g_assert_cmpuint (fx->shadow->len, ==, g_list_model_get_n_items (list));
  for (guint i = 0; i < fx->shadow->len; i++)
    {
      g_autoptr(GObject) item = g_list_model_get_item (list, i);

      g_assert_true (item == fx->shadow->pdata[i]);
    }
}

void
model_assert_sorted (FlDirectoryModel *model)
{
  GListModel *list = G_LIST_MODEL (model);
  g_autofree char *prev = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(FlEntry) entry = g_list_model_get_item (list, i);
      const char *path = fl_entry_get_path (entry);

      if (prev != NULL)
        g_assert_cmpint (strcmp (prev, path), <, 0);
      g_free (prev);
      prev = g_strdup (path);
    }
}

/* The entry-changed log so far, joined by spaces, and cleared. */
char *
model_changes_string (ModelFixture *fx)
{
  char *joined;

  g_ptr_array_add (fx->changes, NULL);
  joined = g_strjoinv (" ", (char **) fx->changes->pdata);
  g_ptr_array_set_size (fx->changes, 0);
  return joined;
}

/* The entry-changed log since the last look is exactly @expected; it is cleared. */
void
model_assert_changes (ModelFixture *fx,
                      const char   *expected)
{
  g_autofree char *changes = model_changes_string (fx);

  g_assert_cmpstr (changes, ==, expected);
}

char *
model_path (ModelFixture *fx,
            const char   *name)
{
  return g_build_filename (fx->dir, name, NULL);
}

FlEntry *
model_lookup (ModelFixture *fx,
              const char   *name)
{
  g_autofree char *path = model_path (fx, name);

  return fl_directory_model_lookup (fx->model, path);
}

void
model_event (ModelFixture      *fx,
             GFileMonitorEvent  event,
             const char        *name,
             const char        *other_name)
{
  g_autofree char *path = model_path (fx, name);
  g_autofree char *other = other_name != NULL ? model_path (fx, other_name) : NULL;

  _fl_directory_model_apply_event (fx->model, event, path, other);
}

void
write_pid_file (const char *path,
                int         pid)
{
  g_autofree char *content = g_strdup_printf ("%d", pid);

  fl_test_write (path, content, -1);
}
