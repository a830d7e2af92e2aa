/* test-flctl-output.c: flctl's formatting, and the JSON schema that scripts rely on
 *
 * Links flctl-output.c directly: these are the pieces whose exact output is a contract.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "flctl-private.h"
#include "flctl-test-util.h"

/* docs/flctl.1, JSON OUTPUT: every record has exactly these members, in this order. */
static const char *const schema[] = {
  "path", "target", "kind", "state", "pid", "process", "cmdline", "process_uid", "liveness",
  "kernel_lock", "stale", "reason", "content", "file_uid", "mtime", "age_s",
  /* etcd locks (null, and waiting false, for files) */
  "host", "lease", "lease_ttl_s", "token", "revision", "waiting", "waiters",
  /* other programs' lock files ("libfl" and nulls for libfl's own) */
  "format", "owner_user", "owner_name", "owner_since_s",
  /* what a held lock's holder does (issue 32) */
  "holder_exited", "holder_stopped", "keeper_pid", "keeper_process",
  /* the version of the records (FLCTL_JSON_SCHEMA) */
  "schema", NULL
};

static void
test_age (void)
{
  struct { gint64 s; const char *text; } cases[] = {
    { -5, "0 s" }, { 0, "0 s" }, { 59, "59 s" }, { 60, "1 min" }, { 3 * 60 + 59, "3 min" },
    { 3599, "59 min" }, { 3600, "1 h" }, { 24 * 3600, "24 h" }, { 47 * 3600, "47 h" },
    { 48 * 3600, "2 days" }, { 400 * 86400, "400 days" },
  };

  /* libfl's one formatter, which flctl and the inspector both use. */
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *text = fl_format_age (cases[i].s * G_USEC_PER_SEC);

      g_assert_cmpstr (text, ==, cases[i].text);
    }
}

static void
test_path (void)
{
  struct { const char *path; const char *shown; } cases[] = {
    { "/tmp/a b.lock", "/tmp/a b.lock" },
    { "/tmp/a\nb.lock", "/tmp/a\\nb.lock" },
    { "tab\there", "tab\\there" },
    { "bell\a", "bell\\x07" },
    { "bad\xff" "byte", "bad\\xffbyte" },
    { "caf\xc3\xa9", "caf\xc3\xa9" },
    { "esc\033[2J", "esc\\x1b[2J" },
    { "del\177", "del\\x7f" },
    { "csi\xc2\x9b" "31m", "csi\\u009b31m" },
    { "nbsp\xc2\xa0", "nbsp\xc2\xa0" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *shown = flctl_printable (cases[i].path);

      g_assert_cmpstr (shown, ==, cases[i].shown);
    }
}

/* What a locale that is not UTF-8 gets: what its charset has, typography in ASCII, and the
 * rest as the bytes \xNN, never '?'. */
static void
test_text_for_charset (void)
{
  struct { const char *charset; const char *text; const char *shown; } cases[] = {
    { "ASCII", "Cannot read \xe2\x80\x9c/tmp/x\xe2\x80\x9d", "Cannot read \"/tmp/x\"" },
    { "ASCII", "\xe2\x80\x98" "a\xe2\x80\x99 \xe2\x80\x94 [ARG\xe2\x80\xa6]", "'a' - [ARG...]" },
    { "ASCII", "caf\xc3\xa9", "caf\\xc3\\xa9" },
    { "ASCII", "bad\xff", "bad\\xff" },
    { "ISO-8859-1", "caf\xc3\xa9 \xe2\x80\x9ex\xe2\x80\x9c", "caf\xe9 \"x\"" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *shown = flctl_text_for_charset (cases[i].text, cases[i].charset);

      g_assert_cmpstr (shown, ==, cases[i].shown);
    }
}

static void
test_styled (void)
{
  g_autofree char *plain = flctl_styled ("stale", FLCTL_STYLE_BAD, FALSE);
  g_autofree char *colored = flctl_styled ("stale", FLCTL_STYLE_BAD, TRUE);
  g_autofree char *none = flctl_styled ("x", FLCTL_STYLE_NONE, TRUE);

  g_assert_cmpstr (plain, ==, "stale");
  g_assert_cmpstr (colored, ==, "\033[1;31mstale\033[0m");
  g_assert_cmpstr (none, ==, "x");

  /* The test environment sets NO_COLOR, and stdout is not a terminal. */
  g_assert_false (flctl_use_color (STDOUT_FILENO));
}

static void
assert_schema (JsonNode *node)
{
  JsonObject *object = json_node_get_object (node);
  g_autoptr(GList) members = json_object_get_members (object);
  guint i = 0;

  for (GList *l = members; l != NULL; l = l->next, i++)
    g_assert_cmpstr (l->data, ==, schema[i]);
  g_assert_null (schema[i]);
}

/* A record as flctl writes it, read back by JSON-GLib. */
static JsonNode *
record_node (FlSnapshot *snapshot,
             const char *unlocked_target)
{
  g_autoptr(FlctlJson) builder = flctl_json_new (TRUE);
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  if (snapshot != NULL)
    flctl_snapshot_to_json (builder, snapshot, g_get_real_time ());
  else
    flctl_unlocked_to_json (builder, unlocked_target);
  node = json_from_string (flctl_json_get_text (builder), &error);
  g_assert_no_error (error);
  return node;
}

static void
test_json_schema (void)
{
  g_autofree char *dir = flctl_test_make_dir ();
  g_autofree char *lock = g_build_filename (dir, "mine.lock", NULL);
  g_autofree char *foreign = g_build_filename (dir, "odd.lock", NULL);
  g_autofree char *pid = g_strdup_printf ("%d", (int) getpid ());
  g_autofree char *target = g_build_filename (dir, "free", NULL);
  g_autoptr(FlSnapshot) mine = NULL;
  g_autoptr(FlSnapshot) odd = NULL;
  g_autoptr(JsonNode) mine_json = NULL;
  g_autoptr(JsonNode) odd_json = NULL;
  g_autoptr(JsonNode) free_json = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;

  /* A lock in the original format naming this live process. */
  g_assert_true (g_file_set_contents (lock, pid, -1, NULL));
  g_assert_cmpint (g_mkdir (foreign, 0755), ==, 0);
  mine = fl_snapshot_new (lock, NULL, &error);
  g_assert_no_error (error);
  odd = fl_snapshot_new (foreign, NULL, &error);
  g_assert_no_error (error);

  mine_json = record_node (mine, NULL);
  assert_schema (mine_json);
  object = json_node_get_object (mine_json);
  g_assert_cmpstr (json_object_get_string_member (object, "state"), ==, "held");
  g_assert_cmpstr (json_object_get_string_member (object, "liveness"), ==, "alive");
  g_assert_cmpint (json_object_get_int_member (object, "pid"), ==, getpid ());
  g_assert_cmpstr (json_object_get_string_member (object, "content"), ==, pid);
  g_assert_cmpint (json_object_get_int_member (object, "age_s"), >=, 0);
  g_assert_nonnull (json_object_get_string_member (object, "mtime"));

  odd_json = record_node (odd, NULL);
  assert_schema (odd_json);
  object = json_node_get_object (odd_json);
  g_assert_cmpstr (json_object_get_string_member (object, "kind"), ==, "foreign");
  g_assert_cmpstr (json_object_get_string_member (object, "state"), ==, "foreign");
  g_assert_true (json_object_get_null_member (object, "pid"));
  g_assert_true (json_object_get_null_member (object, "process_uid"));

  free_json = record_node (NULL, target);
  assert_schema (free_json);
  object = json_node_get_object (free_json);
  g_assert_cmpstr (json_object_get_string_member (object, "state"), ==, "unlocked");
  g_assert_true (json_object_get_null_member (object, "age_s"));

  flctl_test_remove_dir (dir);
}

/* flctl-json.c writes what JSON-GLib's generator wrote before it, byte for byte: every
 * character from U+0001 to U+00FF, bytes that are not UTF-8, empty and nested containers,
 * pretty and compact. One difference, on purpose: JSON-GLib 1.6 leaves U+001F raw, which
 * RFC 8259 forbids; flctl escapes it. */
static void
write_both (FlctlJson   *mine,
            JsonBuilder *theirs,
            const char  *member,
            const char  *value)
{
  g_autofree char *valid = g_utf8_make_valid (value, -1);

  flctl_json_set_member_name (mine, member);
  flctl_json_add_string_value (mine, value);
  json_builder_set_member_name (theirs, member);
  json_builder_add_string_value (theirs, valid);
}

static void
test_json_writer (void)
{
  for (int pretty = 0; pretty <= 1; pretty++)
    {
      g_autoptr(FlctlJson) mine = flctl_json_new (pretty);
      g_autoptr(JsonBuilder) theirs = json_builder_new ();
      g_autoptr(JsonGenerator) generator = json_generator_new ();
      g_autoptr(JsonNode) root = NULL;
      g_autofree char *expected = NULL;
      GString *all = g_string_new (NULL);

      for (gunichar c = 1; c < 0x100; c++)
        g_string_append_unichar (all, c);
      json_builder_begin_array (theirs);
      flctl_json_begin_array (mine);
      json_builder_begin_object (theirs);
      flctl_json_begin_object (mine);
      write_both (mine, theirs, "every \"character\"", all->str);
      write_both (mine, theirs, "not UTF-8", "a\xff\xfe" "b\xc3");
      write_both (mine, theirs, "\u00e9t\u00e9 \xe2\x82\xac", "\xf0\x9f\x94\x92");
      json_builder_set_member_name (theirs, "empty object");
      flctl_json_set_member_name (mine, "empty object");
      json_builder_begin_object (theirs);
      flctl_json_begin_object (mine);
      json_builder_end_object (theirs);
      flctl_json_end_object (mine);
      json_builder_set_member_name (theirs, "numbers");
      flctl_json_set_member_name (mine, "numbers");
      json_builder_begin_array (theirs);
      flctl_json_begin_array (mine);
      json_builder_add_int_value (theirs, G_MININT64);
      flctl_json_add_int_value (mine, G_MININT64);
      json_builder_add_int_value (theirs, G_MAXINT64);
      flctl_json_add_int_value (mine, G_MAXINT64);
      json_builder_add_boolean_value (theirs, TRUE);
      flctl_json_add_boolean_value (mine, TRUE);
      json_builder_add_null_value (theirs);
      flctl_json_add_null_value (mine);
      json_builder_end_array (theirs);
      flctl_json_end_array (mine);
      json_builder_set_member_name (theirs, "empty array");
      flctl_json_set_member_name (mine, "empty array");
      json_builder_begin_array (theirs);
      flctl_json_begin_array (mine);
      json_builder_end_array (theirs);
      flctl_json_end_array (mine);
      json_builder_end_object (theirs);
      flctl_json_end_object (mine);
      json_builder_begin_array (theirs);
      flctl_json_begin_array (mine);
      json_builder_end_array (theirs);
      flctl_json_end_array (mine);
      json_builder_end_array (theirs);
      flctl_json_end_array (mine);

      root = json_builder_get_root (theirs);
      json_generator_set_pretty (generator, pretty);
      json_generator_set_root (generator, root);
      expected = json_generator_to_data (generator, NULL);
      if (strchr (expected, 0x1f) != NULL)
        {
          g_auto(GStrv) parts = g_strsplit (expected, "\x1f", -1);

          g_free (expected);
          expected = g_strjoinv ("\\u001f", parts);
        }
      g_assert_cmpstr (flctl_json_get_text (mine), ==, expected);
      g_assert_true (g_utf8_validate (flctl_json_get_text (mine), -1, NULL));
      g_string_free (all, TRUE);
    }
}

/* The man page is the schema's documentation: it must name every member and every command. */
static void
test_man_page (void)
{
  const char *commands[] = { "run", "status", "list", "reclaim", "clean", "watch", "demo" };
  const char *path = g_test_get_filename (G_TEST_DIST, "..", "docs", "flctl.1", NULL);
  g_autofree char *page = flctl_test_read_file (path);

  g_assert_nonnull (page);
  for (guint i = 0; schema[i] != NULL; i++)
    {
      g_autofree char *entry = g_strdup_printf ("\n.TP\n.B %s\n", schema[i]);

      g_assert_nonnull (strstr (page, entry));
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      g_autofree char *section = g_strdup_printf ("\n.SS \"%s ", commands[i]);

      g_assert_nonnull (strstr (page, section));
    }
  /* The line the inspector waits for. */
  g_assert_nonnull (strstr (page, "exactly\n.BR ready ,"));
}

int
main (int    argc,
      char **argv)
{
  flctl_test_init (&argc, &argv);

  g_test_add_func ("/flctl/output/age", test_age);
  g_test_add_func ("/flctl/output/path", test_path);
  g_test_add_func ("/flctl/output/text-for-charset", test_text_for_charset);
  g_test_add_func ("/flctl/output/styled", test_styled);
  g_test_add_func ("/flctl/output/json-schema", test_json_schema);
  g_test_add_func ("/flctl/output/json-writer", test_json_writer);
  g_test_add_func ("/flctl/output/man-page", test_man_page);

  return g_test_run ();
}
