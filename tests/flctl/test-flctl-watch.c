/* test-flctl-watch.c: `flctl watch` reports a create, a release and a holder's death, each
 * within a second
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <signal.h>
#include <string.h>

#include "flctl-test-util.h"

/* The issue's promise: each event on stdout within a second of the change (more under
 * valgrind or a sanitizer only, by FL_TEST_TIME_SCALE). */
#define EVENT_DEADLINE_US (flctl_test_scaled_ms (1000) * 1000)

typedef struct
{
  char        *dir;
  GSubprocess *watch;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  gboolean json = GPOINTER_TO_INT (data);
  g_autofree char *ready = NULL;

  f->dir = flctl_test_make_dir ();
  f->watch = flctl_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE,
                               "watch", json ? "--json" : "-R", f->dir, NULL);
  /* Printed once the directory is watched: what happens from now on is reported. */
  ready = flctl_test_read_until (g_subprocess_get_stderr_pipe (f->watch), "watching",
                                 FLCTL_TEST_TIMEOUT_MS);
  g_assert_nonnull (ready);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  /* Interrupted is how watch ends: status 0. */
  g_subprocess_send_signal (f->watch, SIGINT);
  g_assert_cmpint (flctl_test_wait (f->watch, FLCTL_TEST_TIMEOUT_MS), ==, 0);
  g_object_unref (f->watch);
  flctl_test_remove_dir (f->dir);
  g_free (f->dir);
}

/* The next line on watch's stdout that contains every needle, or NULL past the deadline. */
static char *
next_line_with (Fixture    *f,
                const char *needle,
                const char *other_needle,
                gint64      deadline_us)
{
  GInputStream *out = g_subprocess_get_stdout_pipe (f->watch);

  for (;;)
    {
      gint64 left_ms = (deadline_us - g_get_monotonic_time ()) / 1000;
      g_autofree char *line = left_ms > 0 ? flctl_test_read_line (out, left_ms) : NULL;

      if (line == NULL)
        return NULL;
      g_test_message ("event: %s", line);
      if (strstr (line, needle) != NULL && strstr (line, other_needle) != NULL)
        return g_steal_pointer (&line);
    }
}

static JsonObject *
next_event (Fixture    *f,
            const char *event,
            const char *path,
            gint64      since_us)
{
  gint64 deadline = since_us + EVENT_DEADLINE_US;
  g_autofree char *event_member = g_strdup_printf ("\"event\":\"%s\"", event);

  for (;;)
    {
      g_autofree char *line = next_line_with (f, event_member, "\"path\"", deadline);
      g_autoptr(JsonParser) parser = json_parser_new ();
      g_autoptr(GError) error = NULL;
      JsonObject *record;

      g_assert_nonnull (line);
      json_parser_load_from_data (parser, line, -1, &error);
      g_assert_no_error (error);
      record = json_node_get_object (json_parser_get_root (parser));
      if (g_strcmp0 (json_object_get_string_member (record, "path"), path) != 0)
        continue;
      g_test_message ("%s after %" G_GINT64_FORMAT " us", event,
                      g_get_monotonic_time () - since_us);
      g_assert_cmpstr (json_object_get_string_member (record, "event"), ==, event);
      g_assert_nonnull (json_object_get_string_member (record, "time"));
      return json_object_ref (record);
    }
}

static void
test_watch_json (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *first = g_build_filename (f->dir, "first", NULL);
  g_autofree char *first_lock = g_strconcat (first, ".lock", NULL);
  g_autofree char *second = g_build_filename (f->dir, "second", NULL);
  g_autofree char *second_lock = g_strconcat (second, ".lock", NULL);
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(GSubprocess) doomed = NULL;
  g_autoptr(JsonObject) created = NULL;
  g_autoptr(JsonObject) released = NULL;
  g_autoptr(JsonObject) created_second = NULL;
  g_autoptr(JsonObject) died = NULL;
  gint64 since;
  int holder_pid;

  /* A create: the lock exists once the holder says "held". */
  holder = flctl_test_hold (first);
  since = g_get_monotonic_time ();
  created = next_event (f, "created", first_lock, since);
  g_assert_cmpstr (json_object_get_string_member (created, "state"), ==, "held");
  g_assert_cmpstr (json_object_get_string_member (created, "kind"), ==, "lock");
  holder_pid = flctl_test_pid (holder);
  g_assert_cmpint (json_object_get_int_member (created, "pid"), ==, holder_pid);

  /* A release: the lock is gone once the holder has exited. */
  flctl_test_release (holder);
  since = g_get_monotonic_time ();
  released = next_event (f, "released", first_lock, since);
  g_assert_cmpint (json_object_get_int_member (released, "pid"), ==, holder_pid);
  /* The state is what the lock is now; the other members are what it was, but for what is
   * no more: no file, no kernel lock; its holder is judged no more. */
  g_assert_cmpstr (json_object_get_string_member (released, "state"), ==, "unlocked");
  g_assert_false (json_object_get_boolean_member (released, "kernel_lock"));
  g_assert_cmpstr (json_object_get_string_member (released, "liveness"), ==, "unknown");

  /* A holder's death: SIGKILL leaves the lock, without its kernel lock. */
  doomed = flctl_test_hold (second);
  created_second = next_event (f, "created", second_lock, g_get_monotonic_time ());
  g_subprocess_send_signal (doomed, SIGKILL);
  g_assert_cmpint (flctl_test_wait (doomed, FLCTL_TEST_TIMEOUT_MS), ==, 128 + SIGKILL);
  since = g_get_monotonic_time ();
  died = next_event (f, "holder-died", second_lock, since);
  g_assert_cmpstr (json_object_get_string_member (died, "state"), ==, "stale");
  g_assert_cmpstr (json_object_get_string_member (died, "liveness"), ==, "dead");
  g_assert_true (json_object_get_boolean_member (died, "stale"));
  g_assert_true (g_file_test (second_lock, G_FILE_TEST_EXISTS));
}

/* People get one line per event, words first, in a nested folder too (-r). */
static void
test_watch_lines (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *nested = g_build_filename (f->dir, "nested", NULL);
  g_autofree char *target = g_build_filename (nested, "job", NULL);
  g_autofree char *lock = g_strconcat (target, ".lock", NULL);
  g_autoptr(GSubprocess) holder = NULL;
  g_autofree char *created = NULL;
  g_autofree char *released = NULL;

  g_assert_cmpint (g_mkdir_with_parents (nested, 0755), ==, 0);
  /* The model may see the new folder a little after it appears: watch it from its event. */
  holder = flctl_test_hold (target);
  created = next_line_with (f, "created", lock, g_get_monotonic_time () + 10 * EVENT_DEADLINE_US);
  g_assert_nonnull (created);
  g_assert_nonnull (strstr (created, "held"));
  g_assert_null (strchr (created, '\033'));

  flctl_test_release (holder);
  released = next_line_with (f, "released", lock, g_get_monotonic_time () + EVENT_DEADLINE_US);
  g_assert_nonnull (released);
}

#define SHORT_LOCKS 20
#define SHORT_RUNS 5

/* 20 locks of a few ms each, one after the other on one target (`flctl run T true` in a
 * loop): watch reports every one, created and released, however short (issue 32), in each
 * of 5 runs. A last lock on a name sorted after it says that everything before was read. */
static void
test_watch_short_locks (Fixture       *f,
                        gconstpointer  data)
{
  g_autofree char *target = g_build_filename (f->dir, "job", NULL);
  g_autofree char *lock = g_strconcat (target, ".lock", NULL);
  g_autofree char *count = g_strdup_printf ("%d", SHORT_LOCKS);
  GInputStream *out = g_subprocess_get_stdout_pipe (f->watch);

  for (int run = 0; run < SHORT_RUNS; run++)
    {
      g_autofree char *end = g_strdup_printf ("%s/zz-end-%d", f->dir, run);
      g_autofree char *end_lock = g_strconcat (end, ".lock", NULL);
      const char *argv[] = {
        "sh", "-c", "i=0; while [ $i -lt \"$1\" ]; do \"$FLCTL\" run \"$0\" true || exit 1; "
        "i=$((i + 1)); done", target, count, NULL
      };
      g_autoptr(GSubprocess) loop = flctl_test_spawnv (G_SUBPROCESS_FLAGS_NONE, argv);
      g_autoptr(GSubprocess) sentinel = NULL;
      guint created = 0, released = 0;
      gboolean ended = FALSE;

      g_assert_cmpint (flctl_test_wait (loop, FLCTL_TEST_TIMEOUT_MS), ==, 0);
      sentinel = flctl_test_hold (end);
      flctl_test_release (sentinel);

      while (!ended)
        {
          g_autofree char *line = flctl_test_read_line (out, FLCTL_TEST_TIMEOUT_MS);
          g_autoptr(JsonParser) parser = json_parser_new ();
          g_autoptr(GError) error = NULL;
          JsonObject *record;
          const char *path;
          const char *event;

          g_assert_nonnull (line);
          json_parser_load_from_data (parser, line, -1, &error);
          g_assert_no_error (error);
          record = json_node_get_object (json_parser_get_root (parser));
          path = json_object_get_string_member (record, "path");
          event = json_object_get_string_member (record, "event");
          if (g_str_equal (path, end_lock))
            ended = g_str_equal (event, "released");
          else if (g_str_equal (path, lock) && g_str_equal (event, "created"))
            created++;
          else if (g_str_equal (path, lock) && g_str_equal (event, "released"))
            {
              released++;
              g_assert_false (json_object_get_boolean_member (record, "kernel_lock"));
              g_assert_cmpstr (json_object_get_string_member (record, "liveness"), !=, "alive");
            }
        }
      g_test_message ("run %d: %u created, %u released", run, created, released);
      g_assert_cmpuint (created, ==, SHORT_LOCKS);
      g_assert_cmpuint (released, ==, SHORT_LOCKS);
    }
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

  g_test_add ("/flctl/watch/json-events", Fixture, GINT_TO_POINTER (TRUE), fixture_set_up,
              test_watch_json, fixture_tear_down);
  g_test_add ("/flctl/watch/short-locks", Fixture, GINT_TO_POINTER (TRUE), fixture_set_up,
              test_watch_short_locks, fixture_tear_down);
  g_test_add ("/flctl/watch/lines", Fixture, GINT_TO_POINTER (FALSE), fixture_set_up,
              test_watch_lines, fixture_tear_down);

  return g_test_run ();
}
