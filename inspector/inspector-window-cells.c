/* inspector-window-cells.c: what the column view's cells and sorters compute, and the search
 *
 * The cells are declared in cell-*.ui (GtkBuilderListItemFactory templates) and bind to the
 * entry's "snapshot": a lock that changes refreshes its row in place. Words that need a
 * computation come from these closures, which the templates name. Only bound cells exist (the
 * visible rows and a few more), and only bound age cells watch the window's "now", so nothing
 * here is proportional to the number of locks.
 *
 * A closure's first argument is the expression's `this` (the list item), unused here. A NULL
 * snapshot happens while a cell is being unbound.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "inspector-state.h"
#include "inspector-window-private.h"

static char *
basename_cb (gpointer    unused,
             const char *path)
{
  return path != NULL ? g_path_get_basename (path) : NULL;
}

static char *
dirname_cb (gpointer    unused,
            const char *path)
{
  return path != NULL ? g_path_get_dirname (path) : NULL;
}

/* The folder relative to the watched folder it is in, as Baobab and Files name a place under
 * a root: "projects/site", nothing for the watched folder itself; while several folders are
 * watched, that folder's own name first ("demo/projects/site", "demo"). What differs between
 * rows is at the end, which the cell's start-ellipsis keeps. Outside every root (a folder
 * removed meanwhile): the whole folder, the home folder as "~". */
static char *
folder_label_cb (gpointer            unused,
                 const char         *path,
                 const char * const *roots)
{
  g_autofree char *dir = path != NULL ? g_path_get_dirname (path) : NULL;
  const char *best = NULL;
  const char *home = g_get_home_dir ();
  size_t len;

  if (dir == NULL)
    return NULL;
  for (guint i = 0; roots != NULL && roots[i] != NULL; i++)
    {
      len = strlen (roots[i]);
      if (strncmp (dir, roots[i], len) == 0 && (dir[len] == '/' || dir[len] == '\0')
          && (best == NULL || len > strlen (best)))
        best = roots[i];
    }
  if (best != NULL && roots[1] == NULL)
    {
      const char *rest = dir + strlen (best);

      return g_strdup (rest[0] == '/' ? rest + 1 : rest);
    }
  if (best != NULL)
    {
      g_autofree char *name = g_path_get_basename (best);

      return g_strconcat (name, dir + strlen (best), NULL);
    }
  len = strlen (home);
  if (len > 1 && strncmp (dir, home, len) == 0 && (dir[len] == '/' || dir[len] == '\0'))
    return g_strconcat ("~", dir + len, NULL);
  return g_steal_pointer (&dir);
}

/* A temp's or graveyard's name, T.lock.<pid>.<8 hex>.tmp or T.lock.gy.<pid>.<8 hex>: the length
 * of its lock's name (T.lock) and where its PID starts; FALSE for any other name. */
static gboolean
split_leftover (FlSnapshot *snap,
                gsize      *lock_len,
                const char **pid)
{
  const char *name = fl_snapshot_get_name (snap);
  FlEntryKind kind = fl_snapshot_get_kind (snap);
  g_autofree char *copy = NULL;
  char *dot;

  if (kind != FL_ENTRY_TEMP && kind != FL_ENTRY_GRAVEYARD)
    return FALSE;
  copy = g_strdup (name);
  if (kind == FL_ENTRY_TEMP)
    {
      if (!g_str_has_suffix (copy, ".tmp"))
        return FALSE;
      copy[strlen (copy) - strlen (".tmp")] = '\0';
    }
  if ((dot = strrchr (copy, '.')) == NULL)   /* .<8 hex> */
    return FALSE;
  *dot = '\0';
  if ((dot = strrchr (copy, '.')) == NULL)   /* .<pid> */
    return FALSE;
  *pid = name + (dot + 1 - copy);
  *dot = '\0';
  if (kind == FL_ENTRY_GRAVEYARD)
    {
      if (!g_str_has_suffix (copy, ".gy"))
        return FALSE;
      copy[strlen (copy) - strlen (".gy")] = '\0';
    }
  *lock_len = strlen (copy);
  return *lock_len > 0;
}

/* The Lock column: a temp's or graveyard's name is its lock's (which a middle ellipsis would
 * cut where they differ) with what it is beside it ("temp", "graveyard"), as Files shows a
 * name and its kind; the PID and random part of the name are in the tooltip, the details and
 * the accessible name, the process in the Holder column. */
static char *
lock_name_cb (gpointer    unused,
              FlSnapshot *snap)
{
  gsize lock_len;
  const char *pid;

  if (snap == NULL)
    return NULL;
  if (split_leftover (snap, &lock_len, &pid))
    return g_strndup (fl_snapshot_get_name (snap), lock_len);
  return g_strdup (fl_snapshot_get_name (snap));
}

static gboolean
is_leftover_cb (gpointer    unused,
                FlSnapshot *snap)
{
  gsize lock_len;
  const char *pid;

  return snap != NULL && split_leftover (snap, &lock_len, &pid);
}

static char *
leftover_label_cb (gpointer    unused,
                   FlSnapshot *snap)
{
  gsize lock_len;
  const char *pid;

  if (snap == NULL || !split_leftover (snap, &lock_len, &pid))
    return NULL;
  /* TRANSLATORS: beside a lock's name in the Lock column: a temp file of that lock (its
   * writer's PID is in the Holder column); keep it short */
  if (fl_snapshot_get_kind (snap) == FL_ENTRY_TEMP)
    return g_strdup (C_("lock column", "temp"));
  /* TRANSLATORS: beside a lock's name in the Lock column: a lock moved aside by a takeover;
   * keep it short */
  return g_strdup (C_("lock column", "graveyard"));
}

/* The Target column: empty where the Lock column says it already (the target of T.lock, and
 * of its temps and graveyards, is T), as a column that repeats its neighbour only costs
 * width; another program's target (LCK..ttyUSB0, Emacs's .#notes.txt) is named. */
static char *
target_label_cb (gpointer    unused,
                 FlSnapshot *snap)
{
  const char *target = snap != NULL ? fl_snapshot_get_target (snap) : NULL;
  g_autofree char *base = NULL;
  g_autofree char *lock = NULL;
  gsize lock_len;
  const char *pid;

  if (target == NULL)
    return NULL;
  base = g_path_get_basename (target);
  lock = split_leftover (snap, &lock_len, &pid)
         ? g_strndup (fl_snapshot_get_name (snap), lock_len)
         : g_strdup (fl_snapshot_get_name (snap));
  if (g_str_has_suffix (lock, ".lock") && strlen (lock) == strlen (base) + strlen (".lock")
      && strncmp (lock, base, strlen (base)) == 0)
    return g_strdup ("");
  return g_steal_pointer (&base);
}

static char *
format_holder_cb (gpointer    unused,
                  FlSnapshot *snap)
{
  return snap != NULL ? inspector_format_holder (snap) : NULL;
}

static char *
kernel_label_cb (gpointer    unused,
                 FlSnapshot *snap)
{
  if (snap == NULL)
    return NULL;
  return g_strdup (fl_snapshot_get_kind (snap) == FL_ENTRY_LOCK ||
                   fl_snapshot_get_kind (snap) == FL_ENTRY_OTHER_PROGRAM
                   ? fl_kernel_lock_get_label (fl_snapshot_get_kernel_lock (snap)) : "—");
}

/* etcd locks only: lock files have no host or lease (fl_snapshot_get_revision() is 0). */
static char *
host_label_cb (gpointer    unused,
               FlSnapshot *snap)
{
  const char *host;

  if (snap == NULL)
    return NULL;
  host = fl_snapshot_get_host (snap);
  return g_strdup (fl_snapshot_get_revision (snap) == 0 ? "—" : host != NULL ? host : "?");
}

static char *
lease_label_cb (gpointer    unused,
                FlSnapshot *snap)
{
  return snap != NULL ? inspector_format_lease (snap) : NULL;
}

static char *
state_summary_cb (gpointer    unused,
                  FlSnapshot *snap)
{
  return snap != NULL ? fl_snapshot_dup_state_summary (snap) : NULL;
}

/* A row as a screen reader reads it: "report.csv.lock, Stale: holder exited". */
static char *
row_label_cb (gpointer    unused,
              const char *name,
              FlSnapshot *snap)
{
  g_autofree char *state = snap != NULL ? fl_snapshot_dup_state_summary (snap) : NULL;

  if (name == NULL)
    return NULL;
  return state != NULL ? g_strdup_printf ("%s, %s", name, state) : g_strdup (name);
}

static char *
state_icon_cb (gpointer    unused,
               FlSnapshot *snap)
{
  return snap != NULL ? g_strdup (inspector_state_icon_name (fl_snapshot_get_state (snap)))
                      : NULL;
}

/* @now is the window's clock, set once a second (see _inspector_window_tick()). */
static char *
format_age_cb (gpointer    unused,
               FlSnapshot *snap,
               gint64      now)
{
  return snap != NULL ? fl_format_age (MAX (0, fl_snapshot_get_age_at (snap, now))) : NULL;
}

static int
state_rank_cb (gpointer    unused,
               FlSnapshot *snap)
{
  return snap != NULL ? inspector_state_rank (fl_snapshot_get_state (snap)) : 0;
}

static int
kernel_rank_cb (gpointer    unused,
                FlSnapshot *snap)
{
  return snap != NULL ? (int) fl_snapshot_get_kernel_lock (snap) : 0;
}

/* Search by lock name, target, PID or process name; "problems only" hides held locks. */
gboolean
_inspector_window_matches (InspectorWindow *self,
                           FlEntry         *item)
{
  FlSnapshot *snap = fl_entry_get_snapshot (item);
  const char *text = self->search_text;
  g_autofree char *pid = NULL;
  g_autofree char *name = NULL;
  const char *process;

  if (self->problems_only && !fl_entry_state_is_problem (fl_snapshot_get_state (snap)))
    return FALSE;
  if (text == NULL || text[0] == '\0')
    return TRUE;

  pid = g_strdup_printf ("%d", fl_snapshot_get_pid (snap));
  if (g_str_equal (pid, text))
    return TRUE;
  name = g_utf8_casefold (fl_snapshot_get_name (snap), -1);
  if (strstr (name, text) != NULL)
    return TRUE;
  process = fl_snapshot_get_process_name (snap);
  if (process != NULL)
    {
      g_autofree char *folded = g_utf8_casefold (process, -1);

      if (strstr (folded, text) != NULL)
        return TRUE;
    }
  return FALSE;
}

void
_inspector_window_bind_cell_callbacks (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, basename_cb);
  gtk_widget_class_bind_template_callback (widget_class, lock_name_cb);
  gtk_widget_class_bind_template_callback (widget_class, is_leftover_cb);
  gtk_widget_class_bind_template_callback (widget_class, leftover_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, target_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, dirname_cb);
  gtk_widget_class_bind_template_callback (widget_class, folder_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, format_holder_cb);
  gtk_widget_class_bind_template_callback (widget_class, kernel_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, host_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, lease_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, state_summary_cb);
  gtk_widget_class_bind_template_callback (widget_class, state_icon_cb);
  gtk_widget_class_bind_template_callback (widget_class, row_label_cb);
  gtk_widget_class_bind_template_callback (widget_class, format_age_cb);
  gtk_widget_class_bind_template_callback (widget_class, state_rank_cb);
  gtk_widget_class_bind_template_callback (widget_class, kernel_rank_cb);
}
