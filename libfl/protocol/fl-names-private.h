/* fl-names-private.h: the protocol's file names, built and recognised
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "platform/fl-platform.h"

#include "fl-enums.h"

G_BEGIN_DECLS

/* The last component of @path, in place: after its last directory separator (either slash on
 * Windows), or @path itself. */
const char *_fl_path_last_component (const char *path);

/* Whether @s contains a directory separator (either slash on Windows). */
gboolean    _fl_has_dir_separator  (const char *s,
                                    gsize       len);

/* No PID is larger (platform/fl-platform.h). */
#define FL_PID_MAX FL_PLATFORM_PID_MAX

/* Long enough for ".<pid>.<8 hex>.tmp" and ".gy.<pid>.<8 hex>" with any int PID. */
#define FL_NAME_SUFFIX_MAX 24

typedef struct
{
  char *target;     /* as given */
  char *directory;  /* the lock's directory, "." when the target has none */
  char *lock_name;  /* "T.lock", the last component */
  char *lock_path;  /* "dir/T.lock" */
} FlLockPath;

gboolean _fl_lock_path_init  (FlLockPath  *self,
                              const char  *target,
                              GError     **error);
void     _fl_lock_path_clear (FlLockPath  *self);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (FlLockPath, _fl_lock_path_clear)

char    *_fl_temp_name       (const char  *lock_name,
                              int          pid,
                              guint32      tag);
char    *_fl_graveyard_name  (const char  *lock_name,
                              int          pid,
                              guint32      tag);

typedef struct
{
  FlEntryKind kind;          /* LOCK, TEMP or GRAVEYARD: names never say FOREIGN */
  gsize       lock_name_len; /* "T.lock" is the first lock_name_len bytes of the name */
  int         creator_pid;   /* from a temp or graveyard name; 0 for a lock */
} FlNameInfo;

gboolean _fl_classify_name   (const char  *name,
                              gsize        len,
                              FlNameInfo  *info);

/* @len bytes of digits in @base (10, or 16 in lowercase), at most @max_digits, that fit. */
gboolean _fl_parse_digits    (const char  *buf,
                              gsize        len,
                              guint        base,
                              gsize        max_digits,
                              guint64     *out);
gboolean _fl_parse_pid       (const char  *buf,
                              gsize        len,
                              int         *pid);

G_END_DECLS
