/* fl-test-worker.c: the runner and its workers, one binary
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fl-test-worker.h"

#include <stdio.h>
#include <string.h>

/* argv[0] as the runner got it: on Windows under wine that is the form GSubprocess can run. */
static char *self_path;

gboolean
fl_test_worker_main (int                     argc,
                     char                  **argv,
                     const FlTestWorkerRole *roles,
                     int                    *status)
{
  self_path = argv[0];
  if (argc < 3 || strcmp (argv[1], "--worker") != 0)
    {
      _fl_test_worker_platform_init ();
      return FALSE;
    }
  for (const FlTestWorkerRole *role = roles; role->name != NULL; role++)
    if (strcmp (argv[2], role->name) == 0)
      {
        if (argc - 3 != role->n_args)
          break;
        *status = role->run (argv + 3);
        return TRUE;
      }
  fprintf (stderr, "%s: no worker role \"%s\" with %d arguments\n", argv[0], argv[2], argc - 3);
  *status = 2;
  return TRUE;
}

GSubprocess *
fl_test_worker_spawnv (GSubprocessFlags    flags,
                       const char * const *role_and_args)
{
  g_autoptr(GSubprocessLauncher) launcher = _fl_test_worker_launcher (flags);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autoptr(GError) error = NULL;
  GSubprocess *worker;

  g_assert_nonnull (self_path);  /* fl_test_worker_main() first */
  g_strv_builder_add_many (builder, self_path, "--worker", NULL);
  g_strv_builder_addv (builder, (const char **) role_and_args);
  argv = g_strv_builder_end (builder);
  worker = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv, &error);
  g_assert_no_error (error);
  return worker;
}

GSubprocess *
fl_test_worker_spawn (GSubprocessFlags  flags,
                      const char       *role,
                      ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  const char *arg;
  va_list ap;

  g_ptr_array_add (args, (char *) role);
  va_start (ap, role);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (args, (char *) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return fl_test_worker_spawnv (flags, (const char * const *) args->pdata);
}
