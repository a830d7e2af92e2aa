/* model-test-util.h: fixtures for the directory model tests
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <libfl/fl.h>

#include "model/fl-directory-model-private.h"
#include "fl-test-util.h"

G_BEGIN_DECLS

typedef struct
{
  char             *dir;
  FlDirectoryModel *model;
  GPtrArray        *shadow;   /* replays items-changed: must always equal the model */
  GPtrArray        *changes;  /* "created:a.lock" ... from entry-changed */
  guint             n_items_changed;
  gint64            now;      /* the injected clock, in µs */
  guint             n_expected;  /* for a wait on the number of rows */
} ModelFixture;

void      model_fixture_setup     (ModelFixture  *fx,
                                   gconstpointer  data);
void      model_fixture_teardown  (ModelFixture  *fx,
                                   gconstpointer  data);
void      model_fixture_watch     (ModelFixture  *fx,
                                   FlDirectoryModel *model);
void      model_assert_shadow     (ModelFixture  *fx);
void      model_assert_sorted     (FlDirectoryModel *model);
char     *model_changes_string    (ModelFixture  *fx);
void      model_assert_changes    (ModelFixture  *fx,
                                   const char    *expected);
void      model_event             (ModelFixture  *fx,
                                   GFileMonitorEvent event,
                                   const char    *name,
                                   const char    *other_name);
char     *model_path              (ModelFixture  *fx,
                                   const char    *name);
FlEntry  *model_lookup            (ModelFixture  *fx,
                                   const char    *name);

void      write_pid_file          (const char    *path,
                                   int            pid);

G_END_DECLS
