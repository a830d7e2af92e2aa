/* fuzz-content.c: the bytes of a lock file and of its identity xattr
 *
 * A lock's content is the holder's PID in decimal ASCII and nothing else
 * (docs/protocol.md, section 1): whatever _fl_parse_pid() accepts must print back to exactly
 * the bytes it read. The identity xattr is parsed strictly; what it accepts must survive a
 * format and a second parse unchanged.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "fl-content-private.h"
#include "fl-names-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static void
check_pid (const char *buf,
           gsize       len)
{
  char canonical[16];
  int pid = -1;

  if (!_fl_parse_pid (buf, len, &pid))
    return;

  g_assert_cmpint (pid, >=, 1);
  g_assert_cmpint (pid, <=, FL_PID_MAX);
  g_snprintf (canonical, sizeof canonical, "%d", pid);
  g_assert_cmpuint (strlen (canonical), ==, len);
  g_assert_true (memcmp (canonical, buf, len) == 0);
}

static void
check_identity (const char *buf,
                gsize       len)
{
  FlIdentity identity, again;
  char text[FL_IDENTITY_MAX];
  gsize text_len;

  if (!_fl_identity_parse (buf, len, &identity))
    return;

  g_assert_cmpuint (len, <=, FL_IDENTITY_MAX);
  g_assert_cmpint (identity.pid, >=, 1);
  g_assert_cmpint (identity.pid, <=, FL_PID_MAX);
  /* Tokens land in fixed buffers: they must be terminated inside them. */
  g_assert_cmpuint (strlen (identity.boot_id), <, sizeof identity.boot_id);
  g_assert_cmpuint (strlen (identity.host), <, sizeof identity.host);

  text_len = _fl_identity_format (&identity, text, sizeof text);
  g_assert_cmpuint (text_len, >, 0);
  g_assert_true (_fl_identity_parse (text, text_len, &again));
  g_assert_cmpint (again.pid, ==, identity.pid);
  g_assert_cmpuint (again.start_ticks, ==, identity.start_ticks);
  g_assert_cmpstr (again.boot_id, ==, identity.boot_id);
  g_assert_cmpuint (again.pidns, ==, identity.pidns);
  g_assert_cmpint (again.kernel_lock, ==, identity.kernel_lock);
  g_assert_cmpstr (again.host, ==, identity.host);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *buf = (const char *) data;

  check_pid (buf, size);
  check_identity (buf, size);

  /* A reader sees at most 64 bytes of content: every prefix is a content someone may read. */
  for (gsize len = 0; len <= MIN (size, 16); len++)
    check_pid (buf, len);

  return 0;
}
