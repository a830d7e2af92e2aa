/* fuzz-flctl-args.c: flctl's command line, as flctl's main() parses it
 *
 * The input is the arguments after "flctl", separated by NUL bytes. flctl_args_parse() must
 * never crash, leak, print or exit, must leave argv as it was, and its outcome must be one a
 * caller can act on: help text (valid UTF-8, nothing else set), the version, or a command
 * whose operands are what that command requires and came from argv; otherwise a usage error.
 * `flctl run`'s COMMAND must be the last arguments as typed (after TARGET or "--"), or -c's
 * line given to the shell.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "flctl-args.h"
#include "flctl-text.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static gboolean
strv_contains_string (char * const *strv,
                      int           len,
                      const char   *s)
{
  for (int i = 0; i < len; i++)
    if (strcmp (strv[i], s) == 0)
      return TRUE;
  return FALSE;
}

static void
check_run_command (const FlctlArgs *args,
                   int              argc,
                   char * const    *argv)
{
  guint n_command = g_strv_length (args->command_argv);

  /* -c LINE: the shell, its flag and LINE as typed; else COMMAND [ARG…] are the last words of
   * argv, as typed (after TARGET, or after a "--"), and never empty. */
  if (n_command == 3 && (g_str_equal (args->command_argv[1], "-c")
                         || g_str_equal (args->command_argv[1], "/c"))
      && strv_contains_string (argv, argc, args->command_argv[2]))
    ;
  else
    {
      g_assert_cmpuint (n_command, >=, 1);
      g_assert_cmpuint (n_command, <, (guint) argc);
      for (guint i = 0; i < n_command; i++)
        g_assert_cmpstr (args->command_argv[i], ==, argv[argc - n_command + i]);
    }

  /* -w forever (or -1) is the one value below 0. */
  if (args->wait_s != FLCTL_WAIT_FOREVER)
    {
      g_assert_cmpfloat (args->wait_s, >=, 0);
      g_assert_cmpfloat (args->wait_s, <=, 1e9);
    }
  g_assert_cmpint (args->conflict_exit_code, >=, 0);
  g_assert_cmpint (args->conflict_exit_code, <=, 255);
  g_assert_false (args->no_wait && args->wait_s != FLCTL_DEFAULT_WAIT_S);
}

static void
check_accepted (const FlctlArgs *args,
                int              argc,
                char * const    *argv)
{
  guint n_operands;

  if (args->help != NULL)
    {
      g_assert_true (g_utf8_validate (args->help, -1, NULL));
      g_assert_nonnull (strstr (args->help, "Usage:"));
      g_assert_null (args->operands);
      g_assert_null (args->command_argv);
      return;
    }
  if (args->version)
    {
      g_assert_cmpint (args->command, ==, FLCTL_COMMAND_NONE);
      return;
    }

  g_assert_cmpint (args->command, !=, FLCTL_COMMAND_NONE);
  g_assert_nonnull (flctl_command_get_name (args->command));
  g_assert_nonnull (args->operands);
  n_operands = g_strv_length (args->operands);
  /* Only list --kernel goes without one: it lists every kernel lock of the system. */
  if (args->kernel)
    g_assert_cmpint (args->command, ==, FLCTL_COMMAND_LIST);
  else
    g_assert_cmpuint (n_operands, >=, 1);
  for (guint i = 0; i < n_operands; i++)
    g_assert_true (strv_contains_string (argv, argc, args->operands[i]));

  switch (args->command)
    {
    case FLCTL_COMMAND_RUN:
      g_assert_cmpuint (n_operands, ==, 1);
      check_run_command (args, argc, argv);
      return;
    case FLCTL_COMMAND_DEMO:
    case FLCTL_COMMAND_HOLD:
      g_assert_cmpuint (n_operands, ==, 1);
      break;
    case FLCTL_COMMAND_STATUS:
    case FLCTL_COMMAND_LIST:
    case FLCTL_COMMAND_RECLAIM:
    case FLCTL_COMMAND_CLEAN:
    case FLCTL_COMMAND_WATCH:
      break;
    case FLCTL_COMMAND_NONE:
    default:
      g_assert_not_reached ();
    }
  g_assert_null (args->command_argv);
}

/* The message quotes what was typed, as bytes; flctl prints it through flctl_printable()
 * (flctl_print_error()). What reaches the terminal is text without a control character, and
 * escaping it again changes nothing. */
static void
check_printed (const char *message)
{
  g_autofree char *shown = flctl_printable (message);
  g_autofree char *again = flctl_printable (shown);

  g_assert_true (g_utf8_validate (shown, -1, NULL));
  for (const char *p = shown; *p != '\0'; p = g_utf8_next_char (p))
    g_assert_false (g_unichar_iscntrl (g_utf8_get_char (p)));
  g_assert_cmpstr (again, ==, shown);
}

static void
check_refused (const FlctlArgs *args,
               const GError    *error)
{
  g_assert_nonnull (error);
  g_assert_true (error->domain == FLCTL_ARGS_ERROR || error->domain == G_OPTION_ERROR);
  g_assert_cmpuint (strlen (error->message), >, 0);
  check_printed (error->message);
  g_assert_null (args->operands);
  g_assert_null (args->command_argv);
  /* Help after a failure is only flctl's own, for "flctl" with no command. */
  if (args->help != NULL)
    g_assert_cmpint (args->command, ==, FLCTL_COMMAND_NONE);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree gpointer *pointers = NULL;
  g_auto(GStrv) contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(FlctlArgs) args = { 0 };
  const char *p = (const char *) data;
  const char *end = p + size;
  gboolean accepted;
  int argc;

  g_ptr_array_add (argv, g_strdup ("flctl"));
  while (p < end && argv->len < MAX_ARGS)
    {
      const char *nul = memchr (p, '\0', (gsize) (end - p));
      const char *stop = nul != NULL ? nul : end;

      g_ptr_array_add (argv, g_strndup (p, (gsize) (stop - p)));
      p = stop + 1;
    }
  argc = (int) argv->len;
  g_ptr_array_add (argv, NULL);
  pointers = g_memdup2 (argv->pdata, sizeof (gpointer) * argv->len);
  contents = g_strdupv ((char **) argv->pdata);

  flctl_args_init (&args);
  accepted = flctl_args_parse (&args, argc, (char * const *) argv->pdata, &error);

  /* argv itself, pointers and strings, is left as it was. */
  for (int i = 0; i < argc; i++)
    {
      g_assert_true (g_ptr_array_index (argv, i) == pointers[i]);
      g_assert_cmpstr (g_ptr_array_index (argv, i), ==, contents[i]);
    }
  g_assert_null (g_ptr_array_index (argv, argc));

  if (accepted)
    {
      g_assert_no_error (error);
      check_accepted (&args, argc, (char * const *) argv->pdata);
    }
  else
    {
      check_refused (&args, error);
    }
  return 0;
}
