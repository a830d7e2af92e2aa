/* fl-model-reader-private.h: one path judged again, sharing the directory with the last one
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "fl-options.h"
#include "fl-snapshot.h"
#include "platform/fl-platform.h"

G_BEGIN_DECLS

/* The directory of the last path read, kept open while consecutive paths share it. */
typedef struct
{
  char  *path;
  FlDir *dir;
} FlModelReader;

#define FL_MODEL_READER_INIT { NULL, NULL }

void        _fl_model_reader_clear (FlModelReader       *reader);
/* The snapshot of @path, or NULL if it is gone or not named like an entry. */
FlSnapshot *_fl_model_reader_read  (FlModelReader       *reader,
                                    const char          *path,
                                    const FlLockOptions *options,
                                    gint64               now_us);

G_END_DECLS
