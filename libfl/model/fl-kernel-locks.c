/* fl-kernel-locks.c: every kernel lock of the system, and the libfl lock file each belongs to
 *
 * A libfl holder takes its kernel lock on a file it created under another name (an O_TMPFILE
 * "#inode" or a temp name, docs/protocol.md, step A2) and then links it to T.lock: its open
 * file, which is where lslocks and the platform find a path, keeps the first name, removed
 * since. So a lock is matched to its lock file by file identity, among the lock names in the
 * directory that first name was in.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-enum-types.h"
#include "fl-error.h"
#include "fl-error-private.h"
#include "fl-kernel-lock-info.h"
#include "protocol/fl-names-private.h"
#include "support/fl-process-private.h"
#include "platform/fl-platform.h"

/* What the system appends to the name of an open file whose name was removed. */
#define DELETED_SUFFIX " (deleted)"
/* A directory of more names is not searched for lock files: the lock stays unmatched. */
#define DIRECTORY_NAMES_MAX 65536

/**
 * FlKernelLockInfo:
 *
 * One kernel lock of the system, as lslocks shows it: its type and mode, the process that
 * holds it (or waits for it), the file and byte range, and the libfl lock file it belongs to
 * when it is one. Immutable; fl_list_kernel_locks() makes them.
 *
 * Since: 0.1
 */
struct _FlKernelLockInfo
{
  GObject           parent_instance;

  FlKernelLockType  type;
  FlKernelLockMode  mode;
  int               pid;
  gboolean          blocked;
  FlFileId          id;
  gint64            start;
  gint64            end;
  char             *process_name;
  char             *path;
  char             *lock_file;
  int               keeper_pid;
  char             *keeper_name;
};

G_DEFINE_FINAL_TYPE (FlKernelLockInfo, fl_kernel_lock_info, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_LOCK_TYPE,
  PROP_MODE,
  PROP_PID,
  PROP_PROCESS_NAME,
  PROP_PATH,
  PROP_LOCK_FILE,
  PROP_DISPLAY_PATH,
  PROP_BLOCKED,
  PROP_KEEPER_PID,
  PROP_KEEPER_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
fl_kernel_lock_info_finalize (GObject *object)
{
  FlKernelLockInfo *self = FL_KERNEL_LOCK_INFO (object);

  g_free (self->process_name);
  g_free (self->path);
  g_free (self->lock_file);
  g_free (self->keeper_name);
  G_OBJECT_CLASS (fl_kernel_lock_info_parent_class)->finalize (object);
}

static void
fl_kernel_lock_info_get_property (GObject    *object,
                                  guint       prop_id,
                                  GValue     *value,
                                  GParamSpec *pspec)
{
  FlKernelLockInfo *self = FL_KERNEL_LOCK_INFO (object);

  switch (prop_id)
    {
    case PROP_LOCK_TYPE:
      g_value_set_enum (value, self->type);
      break;
    case PROP_MODE:
      g_value_set_enum (value, self->mode);
      break;
    case PROP_PID:
      g_value_set_int (value, self->pid);
      break;
    case PROP_PROCESS_NAME:
      g_value_set_string (value, self->process_name);
      break;
    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;
    case PROP_LOCK_FILE:
      g_value_set_string (value, self->lock_file);
      break;
    case PROP_DISPLAY_PATH:
      g_value_set_string (value, fl_kernel_lock_info_get_display_path (self));
      break;
    case PROP_BLOCKED:
      g_value_set_boolean (value, self->blocked);
      break;
    case PROP_KEEPER_PID:
      g_value_set_int (value, self->keeper_pid);
      break;
    case PROP_KEEPER_NAME:
      g_value_set_string (value, self->keeper_name);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
fl_kernel_lock_info_class_init (FlKernelLockInfoClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = fl_kernel_lock_info_finalize;
  object_class->get_property = fl_kernel_lock_info_get_property;

  /**
   * FlKernelLockInfo:lock-type:
   *
   * Which system call took the lock (fl_kernel_lock_info_get_lock_type()).
   *
   * Since: 0.1
   */
  properties[PROP_LOCK_TYPE] =
    g_param_spec_enum ("lock-type", NULL, NULL, FL_TYPE_KERNEL_LOCK_TYPE,
                       FL_KERNEL_LOCK_TYPE_UNKNOWN, flags);
  /**
   * FlKernelLockInfo:mode:
   *
   * Shared or exclusive (fl_kernel_lock_info_get_mode()).
   *
   * Since: 0.1
   */
  properties[PROP_MODE] =
    g_param_spec_enum ("mode", NULL, NULL, FL_TYPE_KERNEL_LOCK_MODE, FL_KERNEL_LOCK_MODE_NONE,
                       flags);
  /**
   * FlKernelLockInfo:pid:
   *
   * The holder's (or waiter's) PID, or 0 (fl_kernel_lock_info_get_pid()).
   *
   * Since: 0.1
   */
  properties[PROP_PID] = g_param_spec_int ("pid", NULL, NULL, 0, G_MAXINT, 0, flags);
  /**
   * FlKernelLockInfo:process-name:
   *
   * The holder's process name, or %NULL (fl_kernel_lock_info_get_process_name()).
   *
   * Since: 0.1
   */
  properties[PROP_PROCESS_NAME] = g_param_spec_string ("process-name", NULL, NULL, NULL, flags);
  /**
   * FlKernelLockInfo:path:
   *
   * The locked file's path, or %NULL (fl_kernel_lock_info_get_path()).
   *
   * Since: 0.1
   */
  properties[PROP_PATH] = g_param_spec_string ("path", NULL, NULL, NULL, flags);
  /**
   * FlKernelLockInfo:lock-file:
   *
   * The libfl lock file, or %NULL (fl_kernel_lock_info_get_lock_file()).
   *
   * Since: 0.1
   */
  properties[PROP_LOCK_FILE] = g_param_spec_string ("lock-file", NULL, NULL, NULL, flags);
  /**
   * FlKernelLockInfo:display-path:
   *
   * The path a view shows (fl_kernel_lock_info_get_display_path()).
   *
   * Since: 0.1
   */
  properties[PROP_DISPLAY_PATH] = g_param_spec_string ("display-path", NULL, NULL, NULL, flags);
  /**
   * FlKernelLockInfo:blocked:
   *
   * Whether this is a waiter (fl_kernel_lock_info_get_blocked()).
   *
   * Since: 0.1
   */
  properties[PROP_BLOCKED] = g_param_spec_boolean ("blocked", NULL, NULL, FALSE, flags);
  /**
   * FlKernelLockInfo:keeper-pid:
   *
   * The process that keeps the lock of an exited holder, or 0
   * (fl_kernel_lock_info_get_keeper_pid()).
   *
   * Since: 0.1
   */
  properties[PROP_KEEPER_PID] = g_param_spec_int ("keeper-pid", NULL, NULL, 0, G_MAXINT, 0,
                                                  flags);
  /**
   * FlKernelLockInfo:keeper-name:
   *
   * Its process name, or %NULL (fl_kernel_lock_info_get_keeper_name()).
   *
   * Since: 0.1
   */
  properties[PROP_KEEPER_NAME] = g_param_spec_string ("keeper-name", NULL, NULL, NULL, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
fl_kernel_lock_info_init (FlKernelLockInfo *self)
{
}

/* The lock names of @directory by file identity ("dev:ino" -> path), or NULL when it cannot be
 * read or holds too many names to search. */
static GHashTable *
index_lock_files (const char *directory)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  FlDirList *list = NULL;
  FlDir *dir = NULL;
  const char *name;
  FlFileType type;
  guint seen = 0;

  if (_fl_platform_dir_open (directory, false, &dir) != 0)
    return NULL;
  if (_fl_platform_dir_list_open (dir, &list) != 0)
    {
      _fl_platform_dir_close (dir);
      return NULL;
    }
  while ((name = _fl_platform_dir_list_next (list, &type)) != NULL && seen++ < DIRECTORY_NAMES_MAX)
    {
      FlNameInfo name_info;
      FlFileInfo info;

      if (!_fl_classify_name (name, strlen (name), &name_info) || name_info.kind != FL_ENTRY_LOCK
          || _fl_platform_stat_at (dir, name, &info) != 0 || info.type != FL_FILE_REGULAR)
        continue;
      g_hash_table_insert (index,
                           g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                                            info.id.dev, info.id.ino),
                           g_build_filename (directory, name, NULL));
    }
  _fl_platform_dir_list_close (list);
  _fl_platform_dir_close (dir);
  if (seen > DIRECTORY_NAMES_MAX)
    return NULL;
  return g_steal_pointer (&index);
}

/* The libfl lock file whose kernel lock @lock is, or NULL. @indexes caches each directory's
 * index for one listing. */
static char *
find_lock_file (const FlSystemLock *lock,
                GHashTable         *indexes)
{
  g_autofree char *path = g_strdup (lock->path);
  g_autofree char *directory = NULL;
  g_autofree char *key = NULL;
  const char *name;
  FlNameInfo name_info;
  GHashTable *index;

  if (path == NULL || !g_path_is_absolute (path))
    return NULL;  /* unknown, or "socket:[...]" and the like */
  if (g_str_has_suffix (path, DELETED_SUFFIX))
    path[strlen (path) - strlen (DELETED_SUFFIX)] = '\0';
  else
    {
      /* Still named: a lock file only if it is one by name and by identity. */
      FlFileInfo info;

      name = _fl_path_last_component (path);
      if (!_fl_classify_name (name, strlen (name), &name_info) || name_info.kind != FL_ENTRY_LOCK
          || _fl_platform_stat_path (path, &info) != 0 || !fl_file_id_equal (&info.id, &lock->id))
        return NULL;
      return g_steal_pointer (&path);
    }

  directory = g_path_get_dirname (path);
  if (!g_hash_table_lookup_extended (indexes, directory, NULL, (gpointer *) &index))
    {
      index = index_lock_files (directory);
      g_hash_table_insert (indexes, g_strdup (directory), index);
    }
  if (index == NULL)
    return NULL;
  key = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, lock->id.dev, lock->id.ino);
  return g_strdup (g_hash_table_lookup (index, key));
}

/* An index may be NULL: a directory that could not be read is remembered as such. */
static void
index_free (gpointer index)
{
  g_clear_pointer (&index, g_hash_table_unref);
}

/* A flock lock belongs to the open file, not to the process /proc/locks names (the one that
 * took it): once that one has exited, a process it passed the descriptor to keeps it. */
static void
find_keeper (FlKernelLockInfo *self)
{
  g_autoptr(GArray) keepers = _fl_process_file_keepers (&self->id, NULL);
  FlProcessInfo keeper;

  if (keepers->len == 0)
    return;
  self->keeper_pid = g_array_index (keepers, int, 0);
  _fl_process_probe (self->keeper_pid, FALSE, &keeper);
  self->keeper_name = g_strdup (keeper.name);
  _fl_process_info_clear (&keeper);
}

static FlKernelLockInfo *
info_new (const FlSystemLock *lock,
          GHashTable         *indexes)
{
  FlKernelLockInfo *self = g_object_new (FL_TYPE_KERNEL_LOCK_INFO, NULL);

  G_STATIC_ASSERT ((int) FL_SYSTEM_LOCK_OTHER == (int) FL_KERNEL_LOCK_TYPE_UNKNOWN);
  G_STATIC_ASSERT ((int) FL_SYSTEM_LOCK_NONE == (int) FL_KERNEL_LOCK_MODE_NONE);
  self->type = (FlKernelLockType) lock->type;
  self->mode = (FlKernelLockMode) lock->mode;
  self->pid = lock->pid;
  self->blocked = lock->blocked;
  self->id = lock->id;
  self->start = lock->start;
  self->end = lock->end;
  /* A name is bytes; what a view shows must be text. */
  self->path = lock->path != NULL ? g_utf8_make_valid (lock->path, -1) : NULL;
  self->lock_file = find_lock_file (lock, indexes);
  if (self->pid > 0)
    {
      FlProcessInfo process;

      _fl_process_probe (self->pid, FALSE, &process);
      self->process_name = g_strdup (process.name);
      if (process.state == FL_PROCESS_GONE && !self->blocked)
        find_keeper (self);
      _fl_process_info_clear (&process);
    }
  return self;
}

static int
compare_infos (gconstpointer a,
               gconstpointer b)
{
  return fl_kernel_lock_info_compare (*(FlKernelLockInfo * const *) a,
                                      *(FlKernelLockInfo * const *) b);
}

/**
 * fl_list_kernel_locks:
 * @error: return location for an error
 *
 * Lists every kernel lock of the system (flock, POSIX, OFD locks, leases), as `lslocks` does
 * from `/proc/locks` on Linux: each with its holder's PID and process, the path the holder has
 * the file open by, and, when the file is a libfl lock file, that lock file
 * (fl_kernel_lock_info_get_lock_file()), even after the name the holder created it under is
 * gone. Processes this user may not look into leave their paths unknown.
 *
 * Returns: (transfer full) (element-type FlKernelLockInfo): the locks, in
 *   fl_kernel_lock_info_compare() order, or
 *   %NULL with %FL_ERROR_NOT_SUPPORTED where the system has no table of its locks (Windows)
 *
 * Since: 0.1
 */
GPtrArray *
fl_list_kernel_locks (GError **error)
{
  g_autoptr(GHashTable) indexes = NULL;
  FlSystemLock *locks = NULL;
  GPtrArray *infos;
  size_t n = 0;
  int err;

  err = _fl_platform_system_locks (&locks, &n);
  if (err == ENOSYS)
    {
      g_set_error_literal (error, FL_ERROR, FL_ERROR_NOT_SUPPORTED,
                           _("Listing the kernel locks is not available on this platform"));
      return NULL;
    }
  if (err != 0)
    {
      /* Not _fl_set_error_from_errno(): its advice is about lock directories. */
      g_set_error (error, FL_ERROR, _fl_error_code_from_errno (err),
                   _("Cannot read the kernel's lock table “/proc/locks”: %s. It needs /proc "
                     "mounted and readable (procfs)"), g_strerror (err));
      return NULL;
    }

  indexes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, index_free);
  infos = g_ptr_array_new_full ((guint) n, g_object_unref);
  for (size_t i = 0; i < n; i++)
    g_ptr_array_add (infos, info_new (&locks[i], indexes));
  _fl_platform_system_locks_free (locks, n);
  g_ptr_array_sort (infos, compare_infos);
  return infos;
}

/* Every regular file named in @dir (or below it, @recursive, at most @depth levels more), by
 * file identity ("dev:ino" -> path), into @names; false once @budget names have been seen. */
static gboolean
index_names (FlDir      *dir,
             const char *path,
             gboolean    recursive,
             guint       depth,
             guint      *budget,
             GHashTable *names)
{
  FlDirList *list = NULL;
  const char *name;
  FlFileType type;
  gboolean complete = TRUE;

  if (_fl_platform_dir_list_open (dir, &list) != 0)
    return TRUE;
  while (complete && (name = _fl_platform_dir_list_next (list, &type)) != NULL)
    {
      FlFileInfo info;

      if ((*budget)-- == 0)
        complete = FALSE;
      else if (_fl_platform_stat_at (dir, name, &info) != 0)
        continue;
      else if (info.type == FL_FILE_REGULAR)
        g_hash_table_insert (names,
                             g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                                              info.id.dev, info.id.ino),
                             g_build_filename (path, name, NULL));
      else if (info.type == FL_FILE_DIRECTORY && recursive && depth > 0)
        {
          g_autofree char *below = g_build_filename (path, name, NULL);
          FlDir *sub = NULL;

          if (_fl_platform_dir_open_at (dir, name, &sub) != 0)
            continue;
          complete = index_names (sub, below, recursive, depth - 1, budget, names);
          _fl_platform_dir_close (sub);
        }
    }
  _fl_platform_dir_list_close (list);
  return complete;
}

/* Whether @path is in one of @directories (canonical), or below one with @recursive. */
static gboolean
in_directories (const char         *path,
                const char * const *directories,
                gboolean            recursive)
{
  g_autofree char *parent = NULL;

  if (path == NULL)
    return FALSE;
  parent = g_path_get_dirname (path);
  for (gsize i = 0; directories[i] != NULL; i++)
    {
      gsize len = strlen (directories[i]);

      if (g_str_equal (parent, directories[i])
          || (recursive && g_str_has_prefix (parent, directories[i])
              && (parent[len] == G_DIR_SEPARATOR || len == 1)))
        return TRUE;
    }
  return FALSE;
}

/**
 * fl_list_kernel_locks_in:
 * @directories: (array zero-terminated=1): the directories to list the locks of
 * @recursive: whether the folders below them count too (64 levels at most; links to folders
 *   are not followed)
 * @error: return location for an error
 *
 * Lists the kernel locks on files named in @directories, as fl_list_kernel_locks() does for the
 * whole system. Each lock is matched by device and inode to the names in the directories, so
 * it is found whoever holds it: a process this user may not look into, or one that has exited
 * while a child it passed the descriptor to keeps the lock, leaves no path among open files,
 * yet the lock is on a file named here and is listed with that path.
 *
 * Returns: (transfer full) (element-type FlKernelLockInfo): the locks, in
 *   fl_kernel_lock_info_compare() order, or %NULL as fl_list_kernel_locks()
 *
 * Since: 0.1
 */
GPtrArray *
fl_list_kernel_locks_in (const char * const *directories,
                         gboolean            recursive,
                         GError            **error)
{
  g_autoptr(GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) all = NULL;
  g_auto(GStrv) canonical = NULL;
  GPtrArray *locks;
  gsize n = 0;

  g_return_val_if_fail (directories != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  all = fl_list_kernel_locks (error);
  if (all == NULL)
    return NULL;
  n = g_strv_length ((char **) directories);
  canonical = g_new0 (char *, n + 1);
  for (gsize i = 0; i < n; i++)
    {
      guint budget = DIRECTORY_NAMES_MAX;
      FlDir *dir = NULL;

      canonical[i] = g_canonicalize_filename (directories[i], NULL);
      if (_fl_platform_dir_open (canonical[i], false, &dir) != 0)
        continue;
      index_names (dir, canonical[i], recursive, 64, &budget, names);
      _fl_platform_dir_close (dir);
    }

  locks = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < all->len; i++)
    {
      FlKernelLockInfo *info = g_ptr_array_index (all, i);
      g_autofree char *key = g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT,
                                              info->id.dev, info->id.ino);
      const char *named = g_hash_table_lookup (names, key);

      if (named != NULL && info->lock_file == NULL && info->path == NULL)
        {
          /* Known by its identity alone: the name here is the file's, a lock file's if it is
           * named as one. */
          const char *name = _fl_path_last_component (named);
          FlNameInfo name_info;

          if (_fl_classify_name (name, strlen (name), &name_info)
              && name_info.kind == FL_ENTRY_LOCK)
            info->lock_file = g_strdup (named);
          else
            info->path = g_strdup (named);
        }
      if (named != NULL
          || in_directories (fl_kernel_lock_info_get_display_path (info),
                             (const char * const *) canonical, recursive))
        g_ptr_array_add (locks, g_object_ref (info));
    }
  g_ptr_array_sort (locks, compare_infos);
  return locks;
}

/**
 * fl_kernel_lock_info_get_lock_type:
 * @self: a kernel lock
 *
 * Which system call took the lock.
 *
 * Returns: the kind of lock: flock, POSIX, OFD, lease...
 *
 * Since: 0.1
 */
FlKernelLockType
fl_kernel_lock_info_get_lock_type (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), FL_KERNEL_LOCK_TYPE_UNKNOWN);
  return self->type;
}

/**
 * fl_kernel_lock_info_get_mode:
 * @self: a kernel lock
 *
 * Whether the lock is shared or exclusive.
 *
 * Returns: shared (read) or exclusive (write)
 *
 * Since: 0.1
 */
FlKernelLockMode
fl_kernel_lock_info_get_mode (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), FL_KERNEL_LOCK_MODE_NONE);
  return self->mode;
}

/**
 * fl_kernel_lock_info_get_pid:
 * @self: a kernel lock
 *
 * The process that holds the lock, or waits for it.
 *
 * Returns: the holder's PID (or the waiter's, when blocked), 0 when no process shows it (an
 *   OFD lock whose holder this user may not look into)
 *
 * Since: 0.1
 */
int
fl_kernel_lock_info_get_pid (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), 0);
  return self->pid;
}

/**
 * fl_kernel_lock_info_get_process_name:
 * @self: a kernel lock
 *
 * The name of the process that holds the lock.
 *
 * Returns: (nullable): the holder's process name, safe to print, or %NULL when unknown
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_info_get_process_name (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), NULL);
  return self->process_name;
}

/**
 * fl_kernel_lock_info_get_keeper_pid:
 * @self: a kernel lock
 *
 * When the process that took the lock (fl_kernel_lock_info_get_pid()) has exited, a process
 * that has the file open and so keeps the lock: a child it passed the descriptor to. Found
 * among the open files of the processes this user may look into.
 *
 * Returns: its PID, or 0 when the holder runs or no keeper could be named
 *
 * Since: 0.1
 */
int
fl_kernel_lock_info_get_keeper_pid (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), 0);
  return self->keeper_pid;
}

/**
 * fl_kernel_lock_info_get_keeper_name:
 * @self: a kernel lock
 *
 * The name of the process fl_kernel_lock_info_get_keeper_pid() gives.
 *
 * Returns: (nullable): its name, safe to print, or %NULL
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_info_get_keeper_name (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), NULL);
  return self->keeper_name;
}

/**
 * fl_kernel_lock_info_get_path:
 * @self: a kernel lock
 *
 * The locked file, by the name its holder opened it.
 *
 * Returns: (nullable): the path the holder has the file open by, as the system shows it
 *   (Linux appends " (deleted)" to a name removed since), or %NULL when unknown
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_info_get_path (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), NULL);
  return self->path;
}

/**
 * fl_kernel_lock_info_get_lock_file:
 * @self: a kernel lock
 *
 * The libfl lock file this kernel lock keeps alive, when it is one: how a libfl holder is
 * shown once, as its lock file.
 *
 * Returns: (nullable): the libfl lock file (`T.lock`) this is the kernel lock of, or %NULL
 *   when the file is none
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_info_get_lock_file (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), NULL);
  return self->lock_file;
}

/**
 * fl_kernel_lock_info_get_display_path:
 * @self: a kernel lock
 *
 * The path a view shows for the lock.
 *
 * Returns: (nullable): what a view shows as the lock's file: its libfl lock file, else its path
 *
 * Since: 0.1
 */
const char *
fl_kernel_lock_info_get_display_path (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), NULL);
  return self->lock_file != NULL ? self->lock_file : self->path;
}

/**
 * fl_kernel_lock_info_get_device:
 * @self: a kernel lock
 *
 * The device of the locked file: with the inode, what identifies it.
 *
 * Returns: the locked file's device, as stat() gives it
 *
 * Since: 0.1
 */
guint64
fl_kernel_lock_info_get_device (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), 0);
  return self->id.dev;
}

/**
 * fl_kernel_lock_info_get_inode:
 * @self: a kernel lock
 *
 * The inode of the locked file.
 *
 * Returns: the locked file's inode
 *
 * Since: 0.1
 */
guint64
fl_kernel_lock_info_get_inode (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), 0);
  return self->id.ino;
}

/**
 * fl_kernel_lock_info_get_start:
 * @self: a kernel lock
 *
 * Where the locked byte range begins.
 *
 * Returns: the first locked byte
 *
 * Since: 0.1
 */
gint64
fl_kernel_lock_info_get_start (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), 0);
  return self->start;
}

/**
 * fl_kernel_lock_info_get_end:
 * @self: a kernel lock
 *
 * Where the locked byte range ends.
 *
 * Returns: the last byte of the locked range, -1 for the end of the file (whole-file locks)
 *
 * Since: 0.1
 */
gint64
fl_kernel_lock_info_get_end (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), 0);
  return self->end;
}

/**
 * fl_kernel_lock_info_get_blocked:
 * @self: a kernel lock
 *
 * Whether the process waits for the lock (a blocked request) rather than holding it.
 *
 * Returns: whether this is a process waiting for the lock rather than holding it
 *
 * Since: 0.1
 */
gboolean
fl_kernel_lock_info_get_blocked (FlKernelLockInfo *self)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (self), FALSE);
  return self->blocked;
}

/**
 * fl_kernel_lock_info_equal:
 * @a: a kernel lock
 * @b: another
 *
 * Whether two listings show one lock unchanged.
 *
 * Returns: whether @a and @b, from two listings, show the same lock the same way: a view
 *   keeps its row then
 *
 * Since: 0.1
 */
gboolean
fl_kernel_lock_info_equal (FlKernelLockInfo *a,
                           FlKernelLockInfo *b)
{
  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (a) && FL_IS_KERNEL_LOCK_INFO (b), FALSE);
  return a->type == b->type && a->mode == b->mode && a->pid == b->pid
         && a->blocked == b->blocked && fl_file_id_equal (&a->id, &b->id) && a->start == b->start
         && a->end == b->end && g_strcmp0 (a->path, b->path) == 0
         && g_strcmp0 (a->lock_file, b->lock_file) == 0
         && g_strcmp0 (a->process_name, b->process_name) == 0;
}

#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

/**
 * fl_kernel_lock_info_compare:
 * @a: a kernel lock
 * @b: another
 *
 * The order fl_list_kernel_locks() returns: by the path a view shows, then holder, then the
 * lock itself. 0 only for the same lock, so a view can merge two listings in one pass.
 *
 * Returns: < 0, 0 or > 0 as @a goes before, with or after @b
 *
 * Since: 0.1
 */
int
fl_kernel_lock_info_compare (FlKernelLockInfo *a,
                             FlKernelLockInfo *b)
{
  int by_path;

  g_return_val_if_fail (FL_IS_KERNEL_LOCK_INFO (a) && FL_IS_KERNEL_LOCK_INFO (b), 0);
  by_path = g_strcmp0 (fl_kernel_lock_info_get_display_path (a),
                       fl_kernel_lock_info_get_display_path (b));
  if (by_path != 0)
    return by_path;
  if (a->pid != b->pid)
    return CMP (a->pid, b->pid);
  if (a->type != b->type)
    return CMP (a->type, b->type);
  if (!fl_file_id_equal (&a->id, &b->id))
    return a->id.dev != b->id.dev ? CMP (a->id.dev, b->id.dev) : CMP (a->id.ino, b->id.ino);
  if (a->start != b->start || a->end != b->end)
    return a->start != b->start ? CMP (a->start, b->start) : CMP (a->end, b->end);
  if (a->blocked != b->blocked)
    return CMP (a->blocked, b->blocked);
  return CMP (a->mode, b->mode);
}
