/* flctl-watch.c: placeholder until FlDirectoryModel lands */
#include "config.h"
#include "flctl-private.h"
int
flctl_watch_main (int    argc,
                  char **argv)
{
  return flctl_usage_error ("watch", "not yet");
}
