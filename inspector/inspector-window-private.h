/* inspector-window-private.h: what the window's files share, and the tests' hooks
 *
 * One class, InspectorWindow, split by concern as GNOME Text Editor splits its window:
 * inspector-window.c (the class: list, search, layout, banner), -actions.c (what a person
 * does), -cells.c (what the list's cells compute), -columns.c (columns shown, sort
 * remembered), -folders.c (the watched folders), -notify.c, -rows.c (cursor and row menu),
 * -top.c (the list kept at its top while it fills), -work.c (a bulk removal). They call each
 * other in one direction: inspector-window.c -> -rows.c -> -top.c; inspector-window.c ->
 * -actions.c -> -work.c, -folders.c -> -columns.c, -notify.c, and everything reports to the
 * banner (inspector-window.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "inspector-details.h"
#include "inspector-filter-model.h"
#include "inspector-kernel-view.h"
#include "inspector-demo.h"
#include "inspector-window.h"

G_BEGIN_DECLS

struct _InspectorWindow
{
  GtkApplicationWindow  parent_instance;

  /* template children */
  GtkRevealer          *banner;
  GtkImage             *banner_icon;
  GtkLabel             *banner_label;
  GtkRevealer          *work_bar;      /* a bulk removal's progress, with Stop */
  GtkLabel             *work_label;
  GtkProgressBar       *work_progress;
  GtkSearchEntry       *search_entry;
  GtkToggleButton      *problems_button;
  GtkLabel             *counts_label;
  GtkLabel             *shown_label;   /* "N of M shown" while rows are hidden */
  GtkStack             *views;         /* "files" or "kernel" (the kernel's own locks) */
  InspectorKernelView  *kernel_view;
  GtkPaned             *paned;
  GtkStack             *stack;
  GtkSpinner           *loading_spinner;  /* spins only while its page is shown */
  GtkColumnView        *column_view;
  GtkColumnViewColumn  *name_column;
  GtkColumnViewColumn  *state_column;
  GtkColumnViewColumn  *holder_column;
  GtkColumnViewColumn  *age_column;
  GtkColumnViewColumn  *kernel_column;
  GtkColumnViewColumn  *target_column;
  GtkColumnViewColumn  *folder_column;   /* shown while several folders are watched */
  GtkColumnViewColumn  *host_column;     /* shown while an etcd prefix is watched */
  GtkColumnViewColumn  *lease_column;
  GtkEntry             *etcd_entry;
  GtkListBox           *directories_list;
  InspectorDetails     *details;

  FlDirectoryModel     *model;
  InspectorFilterModel *filter_model;
  GtkSortListModel     *sort_model;
  GtkSingleSelection   *selection;
  GSignalGroup         *selected_signals; /* the selected entry's notify::snapshot */
  GSignalGroup         *model_signals;

  GSettings            *settings;
  InspectorDemo        *demo;
  GCancellable         *cancellable;

  gint64                now;           /* "now": the model's clock at the last tick */
  guint                 tick_id;
  guint                 banner_id;     /* hides a success banner after a while */
  GHashTable           *recursive_dirs; /* path -> whether it was added recursively */
  char                 *search_text;
  char                 *selected_path; /* the last selected lock's, kept when its row goes */
  char                 *pending_show_path; /* "Show Lock File" before its row came */
  guint                 pending_show_id;   /* ... given up on after a while */
  char                 *problems_text; /* what the model could not read, while it is so */
  gboolean              problems_only;

  GMenuModel           *row_menu_model;
  GtkWidget            *row_menu;      /* the rows' context menu, a popover on the list */
  guint                 focus_tick_id; /* putting the focus on a row the list has yet to make */
  guint                 focus_tries;
  gboolean              narrow;        /* the details pane goes below the list */
  guint                 layout_id;

  gboolean              several_folders; /* Folder says something (inspector-window-columns.c) */
  gboolean              watching_etcd;   /* so do Host and Lease */
  guint                 sort_id;         /* remembering the sort the person chose */
  gboolean              restoring_sort;
  char                **roots;           /* the watched folders, for the Folder column */
  gboolean              keep_top;        /* the list shown from its top (-top.c) */
  guint                 top_tick_id;
  guint                 settle_id;       /* ends keep_top once the list has filled */
  guint                 settle_frames;

  guint                 stale_gather_id; /* locks turned stale, gathered (-notify.c) */
  guint                 stale_count;
  guint                 stale_sent;      /* notifications sent: a test hook */
  guint                 stale_locks;     /* locks they announced: a test hook */
  char                 *stale_title;     /* the last one's, a test hook */
  char                 *stale_body;

  GtkWindow            *dialog;        /* the open confirmation or report, if any */
  GtkWindow            *help;          /* the user guide, while open */
  GCancellable         *work;          /* the bulk removal under way, if any */
};

/* inspector-window-cells.c */
gboolean    _inspector_window_matches          (InspectorWindow *self,
                                                FlEntry         *item);
void        _inspector_window_bind_cell_callbacks (GtkWidgetClass *widget_class);

/* inspector-window.c */
/* Also a test hook: what the once-a-second timer does. */
void        _inspector_window_tick             (InspectorWindow *self);

/* inspector-window-folders.c */
void        _inspector_window_update_page      (InspectorWindow *self);
void        _inspector_window_install_folder_actions (GtkWidgetClass *widget_class);
void        _inspector_window_remove_directory (InspectorWindow *self,
                                                const char      *directory);
void        _inspector_window_rebuild_directories (InspectorWindow *self);
void        _inspector_window_show_problems    (InspectorWindow *self);
gboolean    _inspector_window_drop_cb          (GtkDropTarget   *target,
                                                const GValue    *value,
                                                double           x,
                                                double           y,
                                                InspectorWindow *self);

/* inspector-window-actions.c */
void        _inspector_window_install_actions  (GtkWidgetClass  *widget_class);
void        _inspector_window_update_actions   (InspectorWindow *self);
void        _inspector_window_etcd_entry_activate_cb (GtkEntry        *entry,
                                                      InspectorWindow *self);

/* inspector-window-rows.c */
void        _inspector_window_setup_rows       (InspectorWindow *self);
void        _inspector_window_teardown_rows    (InspectorWindow *self);
void        _inspector_window_install_row_actions (GtkWidgetClass *widget_class);
void        _inspector_window_focus_selected_row (InspectorWindow *self);
void        _inspector_window_cursor_follow_selection (InspectorWindow *self);
/* Also a test hook: the position of the row that has the keyboard focus, if any. */
guint       _inspector_window_get_focused_position (InspectorWindow *self);
/* What a right click at (@x, @y) of the list picks, and where a row is (tests too). */
guint       _inspector_window_get_position_at  (InspectorWindow *self,
                                                double           x,
                                                double           y);
gboolean    _inspector_window_get_row_bounds   (InspectorWindow *self,
                                                guint            position,
                                                graphene_rect_t *bounds);

/* inspector-window-notify.c */
void        _inspector_window_setup_notify     (InspectorWindow *self);
void        _inspector_window_teardown_notify  (InspectorWindow *self);

/* inspector-window-columns.c */
void        _inspector_window_setup_columns    (InspectorWindow *self);
void        _inspector_window_teardown_columns (InspectorWindow *self);
void        _inspector_window_update_columns   (InspectorWindow *self);
/* Also a test hook: the sort the header shows ("age", ...), NULL when unsorted. */
const char *_inspector_window_get_sort         (InspectorWindow *self,
                                                gboolean        *descending);
/* Also a test hook: whether the details pane is below the list. */
gboolean    _inspector_window_is_narrow        (InspectorWindow *self);

/* inspector-window-top.c */
void        _inspector_window_setup_top        (InspectorWindow *self);
void        _inspector_window_teardown_top     (InspectorWindow *self);
void        _inspector_window_keep_top         (InspectorWindow *self,
                                                gboolean         keep);


/* inspector-window-work.c */
void        _inspector_window_remove_orphans   (InspectorWindow *self,
                                                GPtrArray       *seen);
void        _inspector_window_stop_work        (InspectorWindow *self);

void        _inspector_window_show_banner      (InspectorWindow *self,
                                                gboolean         success,
                                                const char      *text);

/* The selected entry, which every part of the window acts on; also a test hook. */
static inline FlEntry *
_inspector_window_get_selected (InspectorWindow *self)
{
  return gtk_single_selection_get_selected_item (self->selection);
}

/* Test hooks */
gboolean    _inspector_window_select_path      (InspectorWindow *self,
                                                const char      *path);
GtkWindow  *_inspector_window_get_dialog       (InspectorWindow *self);
const char *_inspector_window_get_banner_text  (InspectorWindow *self);
GListModel *_inspector_window_get_rows         (InspectorWindow *self);
/* "files" or "kernel"; switching shows that view, as its header bar button does. */
void        _inspector_window_show_view        (InspectorWindow *self,
                                                const char      *view);
InspectorKernelView *_inspector_window_get_kernel_view (InspectorWindow *self);

G_END_DECLS
