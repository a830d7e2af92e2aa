/* test-flctl-help.c: `flctl COMMAND --help` and flctl(1) say the same
 *
 * One truth per fact: every option a command's --help lists is in that command's section of
 * docs/flctl.1, and every option that section names (its synopsis, its option list) is in
 * --help. What --help says about the lock's descriptor and COMMAND, the man page says too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <string.h>

#include "flctl-test-util.h"

/* The sentence of `flctl run --help` and flctl(1) about what COMMAND inherits. */
#define INHERITS "inherits a file descriptor of the lock file"

static const char *const commands[] = {
  "run", "status", "list", "reclaim", "clean", "watch", "demo", NULL
};

/* "-w" and "--wait" from "--wait=SECONDS", "-w", "\-\-wait", "[\-w": an option's spellings
 * as they appear in help text or roff (dashes escaped there). */
static void
add_options (GHashTable *options,
             const char *text)
{
  g_autofree char *plain = NULL;
  g_auto(GStrv) parts = NULL;
  g_autoptr(GRegex) regex = g_regex_new ("(?<![\\w-])(--?[A-Za-z][\\w-]*)", 0, 0, NULL);
  g_autoptr(GMatchInfo) match = NULL;

  parts = g_strsplit (text, "\\-", -1);
  plain = g_strjoinv ("-", parts);
  g_regex_match (regex, plain, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      char *option = g_match_info_fetch (match, 1);
      gsize len = strlen (option);

      /* A short option is one letter: "-wait" would be a word, not an option. */
      if (option[1] != '-' && len != 2)
        g_free (option);
      else
        g_hash_table_add (options, option);
    }
}

/* The options GOption lists in `flctl COMMAND --help`: the lines that start with a dash. */
static GHashTable *
help_options (const char  *command,
              char       **help_out)
{
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, command, "--help", NULL);
  GHashTable *options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) lines = NULL;

  g_assert_cmpint (result->status, ==, 0);
  lines = g_strsplit (result->out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = g_strchug (lines[i]);
      g_auto(GStrv) words = NULL;

      if (line[0] != '-')
        continue;
      /* "-w, --wait=SECONDS    Wait at most...": the spellings come before the first gap. */
      words = g_strsplit (line, "  ", 2);
      add_options (options, words[0]);
    }
  g_hash_table_remove (options, "-h");
  g_hash_table_remove (options, "--help");
  *help_out = g_steal_pointer (&result->out);
  return options;
}

/* The part of the man page about @command: each ".SS "COMMAND ..."" section up to the next
 * section (two for list: list and list --kernel). */
static char *
man_section (const char *page,
             const char *command)
{
  g_autofree char *title = g_strdup_printf ("\n.SS \"%s ", command);
  GString *section = g_string_new (NULL);
  const char *p = page;

  while ((p = strstr (p, title)) != NULL)
    {
      const char *end_ss = strstr (p + 1, "\n.SS ");
      const char *end_sh = strstr (p + 1, "\n.SH ");
      const char *end = end_ss == NULL ? end_sh
                        : end_sh == NULL ? end_ss : MIN (end_ss, end_sh);

      g_assert_nonnull (end);
      g_string_append_len (section, p, end - p);
      p = end;
    }
  g_assert_cmpuint (section->len, >, 0);
  return g_string_free (section, FALSE);
}

/* The options a section names: its titles (the synopsis) and its option list (".TP" followed
 * by ".B \-x" or ".BR \-x ...": the options of the command itself, never an example). */
static GHashTable *
man_options (const char *section)
{
  GHashTable *options = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) lines = g_strsplit (section, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], ".SS "))
        add_options (options, lines[i] + 4);
      else if (g_str_equal (lines[i], ".TP") && lines[i + 1] != NULL &&
               (g_str_has_prefix (lines[i + 1], ".B \\-") ||
                g_str_has_prefix (lines[i + 1], ".BR \\-")))
        add_options (options, lines[i + 1]);
    }
  return options;
}

/* Whether the option spelled @option in one text is in @other: the same spelling, or another
 * spelling of the same option in the help line that names both. */
static gboolean
same_option (const char *help,
             GHashTable *other,
             const char *option)
{
  g_auto(GStrv) lines = NULL;

  if (g_hash_table_contains (other, option))
    return TRUE;
  /* "-n, --no-wait" in --help: either spelling in the man page will do. */
  lines = g_strsplit (help, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(GHashTable) spellings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                               NULL);
      g_auto(GStrv) words = g_strsplit (g_strchug (lines[i]), "  ", 2);
      GHashTableIter iter;
      gpointer spelling;

      if (words[0] == NULL || words[0][0] != '-')
        continue;
      add_options (spellings, words[0]);
      if (!g_hash_table_contains (spellings, option))
        continue;
      g_hash_table_iter_init (&iter, spellings);
      while (g_hash_table_iter_next (&iter, &spelling, NULL))
        if (g_hash_table_contains (other, spelling))
          return TRUE;
    }
  return FALSE;
}

static void
test_options_agree (void)
{
  const char *path = g_test_get_filename (G_TEST_DIST, "..", "docs", "flctl.1", NULL);
  g_autofree char *page = flctl_test_read_file (path);

  g_assert_nonnull (page);
  for (guint i = 0; commands[i] != NULL; i++)
    {
      g_autofree char *help = NULL;
      g_autoptr(GHashTable) in_help = help_options (commands[i], &help);
      g_autofree char *section = man_section (page, commands[i]);
      g_autoptr(GHashTable) in_man = man_options (section);
      g_autoptr(GHashTable) in_section = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                                NULL);
      GHashTableIter iter;
      gpointer option;

      g_assert_cmpuint (g_hash_table_size (in_help), >, 0);
      add_options (in_section, section);

      /* Every option of --help is documented in the command's section. */
      g_hash_table_iter_init (&iter, in_help);
      while (g_hash_table_iter_next (&iter, &option, NULL))
        if (!same_option (help, in_section, option))
          g_error ("flctl %s --help lists %s, which flctl(1) does not document there",
                   commands[i], (const char *) option);

      /* Every option the section names is one of the command's. */
      g_hash_table_iter_init (&iter, in_man);
      while (g_hash_table_iter_next (&iter, &option, NULL))
        if (!g_hash_table_contains (in_help, option))
          g_error ("flctl(1) names %s for flctl %s, which its --help does not list",
                   (const char *) option, commands[i]);
    }
}

/* The fact that once disagreed: COMMAND inherits the lock's descriptor (as with flock(1)). */
static void
test_run_inherits (void)
{
  const char *path = g_test_get_filename (G_TEST_DIST, "..", "docs", "flctl.1", NULL);
  g_autofree char *page = flctl_test_read_file (path);
  g_autofree char *section = man_section (page, "run");
  g_autoptr(FlctlResult) result = flctl_test_run (0, NULL, "run", "--help", NULL);
  g_autofree char *help = NULL;
  g_auto(GStrv) lines = NULL;

  g_assert_cmpint (result->status, ==, 0);
  /* --help wraps its text: one line of words. */
  lines = g_strsplit (result->out, "\n", -1);
  help = g_strjoinv (" ", lines);

  g_assert_nonnull (strstr (help, INHERITS));
  g_assert_nonnull (strstr (section, INHERITS));
  g_assert_null (strstr (help, "not inherit"));
  g_assert_null (strstr (section, "not inherit"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/flctl/help/options-agree-with-man-page", test_options_agree);
  g_test_add_func ("/flctl/help/run-inherits", test_run_inherits);

  return g_test_run ();
}
