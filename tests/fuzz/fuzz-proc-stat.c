/* fuzz-proc-stat.c: /proc/<pid>/stat as a hostile process may shape it
 *
 * A process names itself (prctl(PR_SET_NAME), or its executable's name): its comm may hold
 * spaces, parentheses, ") " and any byte but NUL. The parser must find the start time behind
 * any such name, and return the name as valid UTF-8. Two checks: the raw input as a stat line,
 * and a well-formed stat line built around the input as the comm.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "support/fl-process-private.h"
#include "platform/fl-platform-linux.h"

int LLVMFuzzerTestOneInput (const uint8_t *data,
                            size_t         size);

static void
check_raw (const char *buf,
           gsize       len)
{
  g_autofree char *comm = NULL;
  guint64 ticks = 0;
  char state = 0;

  if (!_fl_parse_proc_stat (buf, len, &comm, &state, NULL, &ticks))
    return;
  /* What libfl shows of it: the platform gives raw bytes, _fl_process_probe() the label. */
  comm = _fl_process_make_label (comm);

  g_assert_nonnull (comm);
  g_assert_true (g_utf8_validate (comm, -1, NULL));
  for (const char *p = comm; *p; p++)
    g_assert_true ((guchar) *p >= 0x20 && *p != 0x7f);
  g_assert_nonnull (memchr (buf, state, len));
}

static void
check_built (const guint8 *data,
             gsize         size)
{
  g_autoptr(GString) line = g_string_new ("4242 (");
  g_autofree char *comm = NULL;
  g_autofree char *expected = NULL;
  guint64 ticks = 0, want = 0;
  guint32 flags = 0;
  gsize comm_len;
  char state = 0;

  /* Any 64-bit start time. This target found the parser refusing the last few values (its
   * overflow check was conservative): regressions/proc-stat/ keeps the input. */
  if (size >= 8)
    {
      memcpy (&want, data, 8);
      data += 8;
      size -= 8;
    }

  /* The kernel keeps comm to 15 bytes and never a NUL; allow more, to be safe. */
  comm_len = MIN (size, 64);
  for (gsize i = 0; i < comm_len; i++)
    g_string_append_c (line, data[i] != '\0' ? (char) data[i] : ' ');
  expected = g_utf8_make_valid (line->str + 6, (gssize) comm_len);
  /* Control characters come back as '?': a process must not reach an operator's terminal. */
  for (char *p = expected; *p; p++)
    if ((guchar) *p < 0x20 || *p == 0x7f)
      *p = '?';

  /* Fields 3 (state) to 21, among them 9 (the task's flags), then 22: the start time, in
   * clock ticks since boot. */
  g_string_append (line, ") S");
  for (int field = 4; field <= 21; field++)
    g_string_append_printf (line, " %u", field == 9 ? (guint) (want & 0xffffffffu) : 0u);
  g_string_append_printf (line, " %" G_GUINT64_FORMAT " 1 2 3\n", want);

  g_assert_true (_fl_parse_proc_stat (line->str, line->len, &comm, &state, &flags, &ticks));
  comm = _fl_process_make_label (comm);
  g_assert_cmpint (state, ==, 'S');
  g_assert_cmpuint (flags, ==, (guint32) (want & 0xffffffffu));
  g_assert_cmpuint (ticks, ==, want);
  g_assert_cmpstr (comm, ==, expected);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  check_raw ((const char *) data, size);
  check_built (data, size);
  return 0;
}
