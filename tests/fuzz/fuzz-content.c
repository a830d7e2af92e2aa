/* fuzz-content.c: the bytes of a lock file and of its identity xattr
 *
 * A lock's content is the holder's PID in decimal ASCII and nothing else
 * (docs/protocol.md, section 1): whatever _fl_parse_pid() accepts (names keep this canonical
 * form) must print back to exactly the bytes it read. A reader judges the content as the
 * original module reads it (trim, Number, J4): whatever _fl_parse_content() calls a PID lies
 * in 1..FL_PID_MAX, the other kinds keep their ranges, and a canonical PID is the same PID
 * to both. The identity xattr is parsed strictly; what it accepts must survive a format and a
 * second parse unchanged.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "protocol/fl-content-private.h"
#include "protocol/fl-names-private.h"

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
check_content (const char *buf,
               gsize       len,
               gboolean    complete)
{
  gint64 value = -1;
  int pid = -1;
  FlContentKind kind = _fl_parse_content (buf, len, complete, &value);

  switch (kind)
    {
    case FL_CONTENT_PID:
      g_assert_cmpint (value, >=, 1);
      g_assert_cmpint (value, <=, FL_PID_MAX);
      break;
    case FL_CONTENT_NO_SUCH_PID:
      g_assert_cmpint (value, >, FL_PID_MAX);
      g_assert_cmpint (value, <=, G_MAXINT32);
      break;
    case FL_CONTENT_EMPTY:
    case FL_CONTENT_NOT_PID:
    case FL_CONTENT_NOT_INT32:
    case FL_CONTENT_UNTOLD:
      g_assert_cmpint (value, ==, 0);
      break;
    default:
      g_assert_not_reached ();
    }

  /* Content cut short, or longer than is ever parsed, is never taken for a given PID. */
  if (!complete || len > FL_CONTENT_PARSE_MAX)
    g_assert_true (kind == FL_CONTENT_UNTOLD || kind == FL_CONTENT_NOT_PID);
  else if (_fl_parse_pid (buf, len, &pid))
    {
      g_assert_cmpint (kind, ==, FL_CONTENT_PID);
      g_assert_cmpint (value, ==, pid);
    }
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

  text_len = _fl_identity_format (&identity, text, sizeof text);
  g_assert_cmpuint (text_len, >, 0);
  g_assert_true (_fl_identity_parse (text, text_len, &again));
  g_assert_cmpint (again.pid, ==, identity.pid);
  g_assert_cmpuint (again.start_ticks, ==, identity.start_ticks);
  g_assert_cmpstr (again.boot_id, ==, identity.boot_id);
  g_assert_cmpuint (again.pidns, ==, identity.pidns);
  g_assert_cmpint (again.kernel_lock, ==, identity.kernel_lock);
  g_assert_cmpuint (again.timens, ==, identity.timens);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *buf = (const char *) data;

  check_pid (buf, size);
  check_content (buf, size, TRUE);
  check_content (buf, size, FALSE);
  check_identity (buf, size);

  /* A reader sees at most 64 bytes of content: every prefix is a content someone may read. */
  for (gsize len = 0; len <= MIN (size, 16); len++)
    {
      check_pid (buf, len);
      check_content (buf, len, TRUE);
    }

  return 0;
}
