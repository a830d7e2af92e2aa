/* fuzz-replay.c: runs a fuzz target over files, without libFuzzer
 *
 * Every build (gcc, ASan, valgrind) replays the seed corpus and the regression inputs through
 * the same LLVMFuzzerTestOneInput() that the clang fuzzing build explores. Arguments are
 * files or directories of files; each input is one TAP test.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <glib.h>

int LLVMFuzzerInitialize (int    *argc,
                          char ***argv) __attribute__ ((weak));
int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(char * const *) a, *(char * const *) b);
}

static void
collect (const char *path,
         GPtrArray  *inputs)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  /* The regressions of a target that never failed do not exist: nothing to replay. */
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_ptr_array_add (inputs, g_strdup (path));
      return;
    }

  dir = g_dir_open (path, 0, NULL);
  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (inputs, g_build_filename (path, name, NULL));
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GPtrArray) inputs = g_ptr_array_new_with_free_func (g_free);
  int failed = 0;

  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize (&argc, &argv);

  for (int i = 1; i < argc; i++)
    collect (argv[i], inputs);
  g_ptr_array_sort (inputs, compare_paths);

  if (inputs->len == 0)
    {
      printf ("1..0 # SKIP no inputs\n");
      return 0;
    }

  printf ("1..%u\n", inputs->len);
  for (guint i = 0; i < inputs->len; i++)
    {
      const char *path = g_ptr_array_index (inputs, i);
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;
      gsize size = 0;

      if (!g_file_get_contents (path, &data, &size, &error))
        {
          printf ("not ok %u - %s: %s\n", i + 1, path, error->message);
          failed++;
          continue;
        }
      /* A failed check aborts, which the TAP reader reports with the input's name above. */
      printf ("# %s\n", path);
      fflush (stdout);
      LLVMFuzzerTestOneInput ((const uint8_t *) data, size);
      printf ("ok %u - %s (%" G_GSIZE_FORMAT " bytes)\n", i + 1, path, size);
    }

  return failed > 0 ? 1 : 0;
}
