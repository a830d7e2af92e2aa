/* test-identity.c: the identity record, versions 1 and 2, and what it proves to this process
 * (docs/protocol.md, sections 1 and 2; issue 29)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include <glib.h>

#include "protocol/fl-content-private.h"
#include "protocol/fl-names-private.h"
#include "support/fl-process-private.h"

#define P(s) (s), strlen (s)

static void
test_format_v2 (void)
{
  FlIdentity identity = {
    .pid = 4242, .start_ticks = 0x1c8a0, .boot_id = "fdd67e1bf8264550", .pidns = 0xeffffffc,
    .kernel_lock = TRUE, .timens = 0xeffffffa,
  };
  FlIdentity again;
  char buf[FL_IDENTITY_MAX];
  gsize len = _fl_identity_format (&identity, buf, sizeof buf);

  g_assert_cmpstr (buf, ==, "2 4242 1c8a0 fdd67e1bf8264550 effffffc 1 effffffa");
  g_assert_cmpuint (len, ==, strlen (buf));
  g_assert_true (_fl_identity_parse (buf, len, &again));
  g_assert_cmpint (again.pid, ==, identity.pid);
  g_assert_cmpuint (again.start_ticks, ==, identity.start_ticks);
  g_assert_cmpstr (again.boot_id, ==, identity.boot_id);
  g_assert_cmpuint (again.pidns, ==, identity.pidns);
  g_assert_true (again.kernel_lock);
  g_assert_cmpuint (again.timens, ==, identity.timens);

  /* Unknown fields: "-" for the boot id, 0 for the namespaces. */
  memset (&identity, 0, sizeof identity);
  identity.pid = 1;
  len = _fl_identity_format (&identity, buf, sizeof buf);
  g_assert_cmpstr (buf, ==, "2 1 0 - 0 0 0");
  g_assert_true (_fl_identity_parse (buf, len, &again));
  g_assert_cmpstr (again.boot_id, ==, "");
  g_assert_cmpuint (again.timens, ==, 0);

  /* Too small a buffer gives no record, never a cut one. */
  g_assert_cmpuint (_fl_identity_format (&identity, buf, 5), ==, 0);
}

/* The worst realistic record stays within the size ext4 keeps inside the inode (docs/protocol.md,
 * section 1): the largest PID, start ticks of 9 hex digits (21 years at 100 Hz, a time
 * namespace's offset included), namespace inodes of 8 (the kernel numbers them below 2^32). */
static void
test_format_budget (void)
{
  FlIdentity identity = {
    .pid = 4194304, .start_ticks = 0xfffffffffULL, .boot_id = "ffffffffffffffff",
    .pidns = 0xffffffff, .kernel_lock = TRUE, .timens = 0xffffffff,
  };
  char buf[FL_IDENTITY_MAX];

  g_assert_cmpuint (_fl_identity_format (&identity, buf, sizeof buf), ==, 56);
}

/* Version 1 ended in a hash of the host name: parsed, ignored; the time namespace unknown. */
static void
test_parse_v1 (void)
{
  FlIdentity identity;

  g_assert_true (_fl_identity_parse (P ("1 4242 1c8a0 fdd67e1bf8264550 effffffc 1 9e4a03d1"),
                                     &identity));
  g_assert_cmpint (identity.pid, ==, 4242);
  g_assert_cmpuint (identity.start_ticks, ==, 0x1c8a0);
  g_assert_cmpstr (identity.boot_id, ==, "fdd67e1bf8264550");
  g_assert_cmpuint (identity.pidns, ==, 0xeffffffc);
  g_assert_true (identity.kernel_lock);
  g_assert_cmpuint (identity.timens, ==, 0);

  g_assert_true (_fl_identity_parse (P ("1 1 0 - 0 0 -"), &identity));
  g_assert_cmpstr (identity.boot_id, ==, "");
  g_assert_false (identity.kernel_lock);
}

static void
test_parse_malformed (void)
{
  static const char *const bad[] = {
    "",
    "2",
    "2 4242 1c8a0 b effffffc 1",                 /* six fields */
    "2 4242 1c8a0 b effffffc 1 effffffa x",      /* eight */
    "3 4242 1c8a0 b effffffc 1 effffffa",        /* a version not known */
    "02 4242 1c8a0 b effffffc 1 effffffa",
    "2 0 1c8a0 b effffffc 1 effffffa",           /* no PID */
    "2 4242 1C8A0 b effffffc 1 effffffa",        /* libfl writes lowercase */
    "2 4242 0x1c8a0 b effffffc 1 effffffa",
    "2 4242 1c8a0 b effffffc 2 effffffa",        /* kernel lock 0 or 1 */
    "2 4242 1c8a0 b effffffc 1 -",               /* v2 writes 0 for unknown */
    "2 4242 1c8a0 b effffffc 1 9e4a03dz",        /* not hex: a v1 host in a v2 record */
    "2 4242 1c8a0 b effffffc 1 10000000000000000", /* beyond 64 bits */
    "2  4242 1c8a0 b effffffc 1 effffffa",
    "2 4242 1c8a0 b effffffc 1 effffffa ",
    "1 4242 1c8a0 b effffffc 1 ",                /* v1 without its host */
    "1 4242 1c8a0 b effffffc 1 h\x7f",
  };
  static const char nul[] = "2 4242 1c8a0 b effffffc 1 e\0";
  /* Beyond the platform's PID range: Linux's PID_MAX_LIMIT, Windows' int32. */
  g_autofree char *beyond = g_strdup_printf ("2 %" G_GINT64_FORMAT " 1c8a0 b effffffc 1 effffffa",
                                             (gint64) FL_PID_MAX + 1);
  FlIdentity identity;

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_test_message ("\"%s\"", bad[i]);
      g_assert_false (_fl_identity_parse (P (bad[i]), &identity));
      g_assert_cmpint (identity.pid, ==, 0);  /* never a partial identity */
    }
  g_assert_false (_fl_identity_parse (nul, sizeof nul - 1, &identity));
  g_assert_false (_fl_identity_parse (beyond, strlen (beyond), &identity));
  g_assert_cmpint (identity.pid, ==, 0);
}

/* Same machine is the boot id and PID namespace; another boot is an earlier one on a local
 * filesystem, maybe another machine over a network one. */
static void
test_written (void)
{
  FlIdentity me, other;

  _fl_identity_self (&me);
  if (me.boot_id[0] == '\0' || me.pidns == 0)
    {
      g_test_skip ("this process cannot read its own boot id and PID namespace");
      return;
    }

  g_assert_cmpint (_fl_identity_written (&me, FALSE), ==, FL_WRITTEN_HERE);
  g_assert_cmpint (_fl_identity_written (&me, TRUE), ==, FL_WRITTEN_HERE);

  other = me;
  g_strlcpy (other.boot_id, me.boot_id[0] == '0' ? "1111111111111111" : "0000000000000000",
             sizeof other.boot_id);
  g_assert_cmpint (_fl_identity_written (&other, FALSE), ==, FL_WRITTEN_EARLIER_BOOT);
  g_assert_cmpint (_fl_identity_written (&other, TRUE), ==, FL_WRITTEN_ELSEWHERE);
  other.pidns = me.pidns + 1;
  g_assert_cmpint (_fl_identity_written (&other, FALSE), ==, FL_WRITTEN_EARLIER_BOOT);

  other = me;
  other.boot_id[0] = '\0';
  g_assert_cmpint (_fl_identity_written (&other, FALSE), ==, FL_WRITTEN_HERE);
  g_assert_cmpint (_fl_identity_written (&other, TRUE), ==, FL_WRITTEN_ELSEWHERE);

  other = me;
  other.pidns = me.pidns + 1;
  g_assert_cmpint (_fl_identity_written (&other, FALSE), ==, FL_WRITTEN_OTHER_PIDNS);
  g_assert_cmpint (_fl_identity_written (&other, TRUE), ==, FL_WRITTEN_OTHER_PIDNS);
  other.pidns = 0;
  g_assert_cmpint (_fl_identity_written (&other, FALSE), ==, FL_WRITTEN_HERE);
}

static void
test_ticks_comparable (void)
{
  FlIdentity me, other;

  _fl_identity_self (&me);
  if (me.timens == 0)
    {
      g_test_skip ("this process cannot tell its own time namespace");
      return;
    }
  g_assert_true (_fl_identity_ticks_comparable (&me));
  other = me;
  other.timens = me.timens + 1;
  g_assert_false (_fl_identity_ticks_comparable (&other));
  other.timens = 0;
  g_assert_false (_fl_identity_ticks_comparable (&other));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/libfl/identity/format-v2", test_format_v2);
  g_test_add_func ("/libfl/identity/format-budget", test_format_budget);
  g_test_add_func ("/libfl/identity/parse-v1", test_parse_v1);
  g_test_add_func ("/libfl/identity/parse-malformed", test_parse_malformed);
  g_test_add_func ("/libfl/identity/written", test_written);
  g_test_add_func ("/libfl/identity/ticks-comparable", test_ticks_comparable);
  return g_test_run ();
}
