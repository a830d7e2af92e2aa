/* fl-model-roots-private.h: the roots a model follows (directories, another backend's
 * prefixes) and the paths each covers
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* An atomic rc box: a scan in a worker thread holds a reference. Only the main context
 * changes it; a worker reads path, prefix and recursive, which never change. */
typedef struct _FlLockBackend FlLockBackend;
typedef struct _FlRootFollower FlRootFollower;

typedef struct
{
  char                *path;      /* canonical, as given (symbolic links in it are kept); for
                                   * another backend's root, its URI (etcd://HOSTS/PREFIX) */
  char                *prefix;    /* path with exactly one trailing slash */
  gboolean             recursive; /* as its follower has it: a root read whole always is */
  gboolean             removed;
  guint                serial;    /* of the last scan started */
  guint                applied;   /* of the last scan applied: older results are dropped */
  /* Its backend, and how the model follows it (fl-model-follower-private.h), from the
   * backend. What the follower keeps: a directory's GFileMonitors (directory path ->
   * GFileMonitor), or the watch of a root read whole and the coalesced rescan it asks for
   * (fl-model-monitor.c). */
  const FlLockBackend  *backend;
  const FlRootFollower *follower;
  GHashTable          *monitors;
  gpointer             remote_watch;
  guint                remote_rescan_id;
  /* What the last applied scan could not read, translated, for the person watching: the
   * subfolders left out (char *), and why the root itself was not read (NULL when it was);
   * @missing: the root is gone, and is looked for until it comes back. Main context only. */
  GPtrArray           *problems;
  char                *unread;
  gboolean             missing;
} FlModelRoot;

/* Takes @path (@backend's root_path()); @recursive as @backend's follower has it. */
FlModelRoot *_fl_model_root_new          (char                *path,
                                          gboolean             recursive,
                                          const FlLockBackend *backend);
/* No more events from the root's monitors or watch: it is no longer watched. */
void         _fl_model_root_stop         (FlModelRoot      *root);
/* The form in which @directory is a root's path: canonical for a directory, the URI without
 * its trailing slash for another backend's root. */
char        *_fl_model_root_path_for     (const char       *directory);
FlModelRoot *_fl_model_root_ref          (FlModelRoot      *root);
void         _fl_model_root_unref        (FlModelRoot      *root);
gboolean     _fl_model_root_covers       (FlModelRoot      *root,
                                          const char       *path);

/* @roots: FlModelRoot * */
FlModelRoot *_fl_model_roots_find        (GPtrArray        *roots,
                                          const char       *path);
FlModelRoot *_fl_model_roots_covering    (GPtrArray        *roots,
                                          FlModelRoot      *except,
                                          const char       *path);

/* Why a directory cannot be watched, in words that say what to do (translated). */
void         _fl_model_root_set_error    (GError          **error,
                                          const char       *path,
                                          int               errno_value);

G_END_DECLS
