/* test-content-rule.c: libfl is never less cautious than the original module on any content
 *
 * Every row of docs/protocol.md's J4 table, and more: each whitespace JavaScript's trim()
 * removes, each radix prefix, signs, exponents, fractions, the int32 edges, NUL bytes, invalid
 * UTF-8, more than 64 bytes. For each, the reference verdict comes from the module's own logic
 * (readFileSync(...).trim(), Number(), the isAlive idiom): tests/helpers/original-peer, its C
 * copy, and tests/helpers/original-module.js, the module in Node, where node is installed (the
 * two must agree). Whatever the reference calls alive, libfl must never call stale, however old
 * the file looks; and each row's own verdict is checked too.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fl-test-util.h"

typedef enum
{
  EXPECT_ALIVE,    /* a live PID: alive, never stale */
  EXPECT_NEVER,    /* names no single process: unknown, never stale automatically */
  EXPECT_LATER,    /* not a PID: unknown, stale once older than stale_after */
  EXPECT_DEAD,     /* no such process: dead, stale at once */
  EXPECT_AS_KILL,  /* a fixed PID that may or may not exist: alive exactly when it does */
} Expect;

typedef struct
{
  const char *name;
  const char *text;  /* %P live PID, %X its hex, %O octal, %B binary, %D a dead PID */
  gsize       len;
  Expect      expect;
} Row;

#define S(str) str, sizeof (str) - 1

static const Row rows[] = {
  /* Forms of a live PID the module accepts. */
  { "canonical", S ("%P"), EXPECT_ALIVE },
  { "newline", S ("%P\n"), EXPECT_ALIVE },
  { "spaces", S (" %P "), EXPECT_ALIVE },
  { "tab-crlf", S ("\t%P\r\n"), EXPECT_ALIVE },
  { "vt-ff", S ("\v\f%P"), EXPECT_ALIVE },
  { "plus", S ("+%P"), EXPECT_ALIVE },
  { "hex", S ("0x%X"), EXPECT_ALIVE },
  { "hex-upper-prefix", S ("0X%X"), EXPECT_ALIVE },
  { "octal", S ("0o%O"), EXPECT_ALIVE },
  { "octal-upper-prefix", S ("0O%O"), EXPECT_ALIVE },
  { "binary", S ("0b%B"), EXPECT_ALIVE },
  { "point-zero", S ("%P.0"), EXPECT_ALIVE },
  { "trailing-point", S ("%P."), EXPECT_ALIVE },
  { "exponent-down", S ("%P0e-1"), EXPECT_ALIVE },
  { "exponent-zero", S ("%Pe0"), EXPECT_ALIVE },
  { "exponent-plus", S ("%P.000E+0"), EXPECT_ALIVE },
  { "leading-zeros", S ("000%P"), EXPECT_ALIVE },
  { "nbsp", S ("\xc2\xa0%P"), EXPECT_ALIVE },
  { "ogham-space", S ("\xe1\x9a\x80%P"), EXPECT_ALIVE },
  { "en-quad", S ("\xe2\x80\x80%P"), EXPECT_ALIVE },
  { "hair-space", S ("%P\xe2\x80\x8a"), EXPECT_ALIVE },
  { "line-separator", S ("%P\xe2\x80\xa8"), EXPECT_ALIVE },
  { "paragraph-separator", S ("%P\xe2\x80\xa9"), EXPECT_ALIVE },
  { "narrow-nbsp", S ("%P\xe2\x80\xaf"), EXPECT_ALIVE },
  { "math-space", S ("%P\xe2\x81\x9f"), EXPECT_ALIVE },
  { "ideographic-space", S ("%P\xe3\x80\x80"), EXPECT_ALIVE },
  { "bom", S ("\xef\xbb\xbf%P"), EXPECT_ALIVE },
  { "over-64-spaces", S ("%P                                                                  "),
    EXPECT_NEVER },

  /* Integers <= 0: the module's kill() probes a process group. */
  { "empty", S (""), EXPECT_NEVER },
  { "space", S (" "), EXPECT_NEVER },
  { "whitespace", S (" \t\n\r "), EXPECT_NEVER },
  { "zero", S ("0"), EXPECT_NEVER },
  { "minus-zero", S ("-0"), EXPECT_NEVER },
  { "plus-zero", S ("+0"), EXPECT_NEVER },
  { "hex-zero", S ("0x0"), EXPECT_NEVER },
  { "binary-zero", S ("0b0"), EXPECT_NEVER },
  { "zero-point-zero", S ("0.0"), EXPECT_NEVER },
  { "underflow", S ("1e-400"), EXPECT_NEVER },
  { "minus-one", S ("-1"), EXPECT_NEVER },
  { "minus-five", S ("-5"), EXPECT_NEVER },
  { "int32-min", S ("-2147483648"), EXPECT_NEVER },

  /* Not an int32 integer: the module's kill() throws and it takes over at once. */
  { "fraction", S ("12.5"), EXPECT_LATER },
  { "pid-fraction", S ("%P.5"), EXPECT_LATER },
  { "nan", S ("NaN"), EXPECT_LATER },
  { "infinity", S ("Infinity"), EXPECT_LATER },
  { "minus-infinity", S ("-Infinity"), EXPECT_LATER },
  { "int32-max-plus-one", S ("2147483648"), EXPECT_LATER },
  { "int32-min-minus-one", S ("-2147483649"), EXPECT_LATER },
  { "big-exponent", S ("1e10"), EXPECT_LATER },
  { "hex-no-digits", S ("0x"), EXPECT_LATER },
  { "exponent-no-digits", S ("1e"), EXPECT_LATER },
  { "point", S ("."), EXPECT_LATER },
  { "exponent-only", S ("e5"), EXPECT_LATER },
  { "signed-hex", S ("+0x10"), EXPECT_LATER },
  { "negative-hex", S ("-0x10"), EXPECT_LATER },
  { "underscore", S ("1_000"), EXPECT_LATER },
  { "hex-underscore", S ("0x1_0"), EXPECT_LATER },
  { "octal-eight", S ("0o8"), EXPECT_LATER },
  { "binary-two", S ("0b2"), EXPECT_LATER },
  { "garbage-after", S ("%Pgarbage"), EXPECT_LATER },
  { "two-pids", S ("%P %P"), EXPECT_LATER },
  { "nul", S ("\0"), EXPECT_LATER },
  { "pid-nul", S ("%P\0"), EXPECT_LATER },
  { "nul-pid", S ("\0%P"), EXPECT_LATER },
  { "invalid-utf8", S ("\xff"), EXPECT_LATER },
  { "invalid-utf8-after", S ("%P\xff"), EXPECT_LATER },
  { "arabic-indic-digits", S ("\xd9\xa1\xd9\xa2\xd9\xa3"), EXPECT_LATER },
  { "fullwidth-digits", S ("\xef\xbc\x91\xef\xbc\x92"), EXPECT_LATER },
  { "mongolian-vowel-separator", S ("\xe1\xa0\x8e%P"), EXPECT_LATER },
  { "over-64-garbage", S ("%Pgggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggggg"),
    EXPECT_LATER },

  /* int32 integers above the kernel's PID range: kill() says ESRCH. */
  { "int32-max", S ("2147483647"), EXPECT_DEAD },
  { "above-pid-max", S ("4194305"), EXPECT_DEAD },
  { "hex-int32-max", S ("0x7fffffff"), EXPECT_DEAD },
  { "exponent-beyond", S ("1e9"), EXPECT_DEAD },

  /* A dead PID, in any form. */
  { "dead", S ("%D"), EXPECT_DEAD },
  { "dead-newline", S ("%D\n"), EXPECT_DEAD },
  { "dead-plus", S ("+%D"), EXPECT_DEAD },

  /* Small fixed PIDs: whatever kill() says of them. */
  { "one", S ("1"), EXPECT_AS_KILL },
  { "hex-sixteen", S ("0x10"), EXPECT_AS_KILL },
  { "exponent-thousand", S ("1e3"), EXPECT_AS_KILL },
  { "exponent-fraction", S ("4.2e1"), EXPECT_AS_KILL },
  { "plus-seven", S ("+7"), EXPECT_AS_KILL },
};

static GByteArray *
expand (const Row *row,
        int        live,
        int        dead)
{
  GByteArray *out = g_byte_array_new ();

  for (gsize i = 0; i < row->len; i++)
    {
      g_autofree char *text = NULL;

      if (row->text[i] != '%' || i + 1 >= row->len)
        {
          g_byte_array_append (out, (const guint8 *) row->text + i, 1);
          continue;
        }
      switch (row->text[++i])
        {
        case 'P': text = g_strdup_printf ("%d", live); break;
        case 'X': text = g_strdup_printf ("%x", (guint) live); break;
        case 'O': text = g_strdup_printf ("%o", (guint) live); break;
        case 'D': text = g_strdup_printf ("%d", dead); break;
        case 'B':
          {
            GString *bits = g_string_new (NULL);

            for (guint v = (guint) live; v != 0; v >>= 1)
              g_string_prepend_c (bits, (v & 1) ? '1' : '0');
            text = g_string_free (bits, FALSE);
          }
          break;
        default:
          g_assert_not_reached ();
        }
      g_byte_array_append (out, (const guint8 *) text, strlen (text));
    }
  return out;
}

static int live_pid, dead_pid;
static gboolean references[G_N_ELEMENTS (rows)];

/* One line, "alive" or "dead", per file, by one reference's isAlive. */
static char **
reference_verdicts (const char *const *argv,
                    guint              n)
{
  g_autoptr(FlTestProc) proc = fl_test_proc_spawn (argv, NULL, FL_TEST_SPAWN_DEFAULT);
  g_autofree char *out = fl_test_proc_read_all (proc, fl_test_deadline_ms (60000));
  char **lines;

  g_assert_true (fl_test_proc_wait (proc, fl_test_deadline_ms (60000)));
  g_assert_cmpint (fl_test_proc_exit_code (proc), ==, 0);
  g_assert_true (g_str_has_suffix (out, "\n"));
  out[strlen (out) - 1] = '\0';
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_true (strcmp (lines[i], "alive") == 0 || strcmp (lines[i], "dead") == 0);
  return lines;
}

/* Every row's reference at once (a process per row would cost minutes of node start-up on a
 * busy machine): the C copy, and the module in Node where it runs; the two must agree. */
static gboolean
compute_references (guint attempt)
{
  g_autofree char *dir = g_dir_make_tmp ("libfl-content-rule-XXXXXX", NULL);
  g_autofree char *peer = fl_test_helper_path ("FL_ORIGINAL_PEER", "original-peer");
  g_autofree char *node = g_find_program_in_path ("node");
  const char *module = g_getenv ("FL_ORIGINAL_MODULE");
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) from_peer = NULL;
  g_auto(GStrv) from_node = NULL;

  g_assert_nonnull (dir);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GByteArray) bytes = expand (&rows[i], live_pid, dead_pid);
      char *file = g_strdup_printf ("%s/%s", dir, rows[i].name);

      fl_test_write (file, (const char *) bytes->data, bytes->len);
      g_ptr_array_add (files, file);
    }

  g_ptr_array_add (argv, peer);
  g_ptr_array_add (argv, "judge-file");
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (argv, files->pdata[i]);
  g_ptr_array_add (argv, NULL);
  from_peer = reference_verdicts ((const char * const *) argv->pdata, files->len);

  if (node != NULL && module != NULL)
    {
      g_ptr_array_set_size (argv, 0);
      g_ptr_array_add (argv, node);
      g_ptr_array_add (argv, (char *) module);
      g_ptr_array_add (argv, "judge");
      for (guint i = 0; i < files->len; i++)
        g_ptr_array_add (argv, files->pdata[i]);
      g_ptr_array_add (argv, NULL);
      from_node = reference_verdicts ((const char * const *) argv->pdata, files->len);
    }
  else
    g_printerr ("# node or FL_ORIGINAL_MODULE missing: the C copy alone is the reference\n");

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      /* The C copy is only a reference while it agrees with the module itself. A fixed PID
       * may have come or gone between the two (PIDs wrap on a busy machine): ask again. */
      if (from_node != NULL && strcmp (from_peer[i], from_node[i]) != 0)
        {
          if (rows[i].expect != EXPECT_AS_KILL || attempt >= 5)
            g_error ("row %s: original-peer says %s, the Node module %s", rows[i].name,
                     from_peer[i], from_node[i]);
          g_test_message ("row %s: PID came or went between the references; again",
                          rows[i].name);
          fl_test_rm_rf (dir);
          return FALSE;
        }
      references[i] = strcmp (from_peer[i], "alive") == 0;
    }
  fl_test_rm_rf (dir);
  return TRUE;
}

/* A judge of age goes by the file's last change (ctime): wait until that is @ms ago. */
static void
wait_older_than (const char *path,
                 gint64      ms)
{
  gint64 deadline = fl_test_deadline_ms (30000);
  struct stat st;

  g_assert_cmpint (stat (path, &st), ==, 0);
  while (g_get_real_time () < (gint64) st.st_ctim.tv_sec * G_USEC_PER_SEC +
                              st.st_ctim.tv_nsec / 1000 + ms * 1000)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_usleep (1000);
    }
}

static FlSnapshot *
judge (const char    *path,
       FlLockOptions *options)
{
  g_autoptr(GError) error = NULL;
  FlSnapshot *snapshot = fl_snapshot_new (path, options, &error);

  g_assert_no_error (error);
  g_test_message ("%s: %s (liveness %s, stale %d)", fl_snapshot_get_content (snapshot),
                  fl_snapshot_get_reason (snapshot),
                  fl_liveness_to_string (fl_snapshot_get_liveness (snapshot)),
                  fl_snapshot_get_stale (snapshot));
  return snapshot;
}

/* What the module's isAlive says of @pid now: kill() succeeds, or EPERM. */
static gboolean
pid_exists (int pid)
{
  return kill (pid, 0) == 0 || errno == EPERM;
}

/* The small fixed PID a row names (1e3 is 1000, 0x10 is 16). */
static int
row_pid (const Row *row)
{
  g_autofree char *text = g_strndup (row->text, row->len);

  return (int) g_ascii_strtod (text, NULL);
}

/* A judge of a fixed PID's lock, and whether that PID existed all the while: a process of
 * that PID may come or go at any moment (PIDs wrap on a busy machine), and a judge across
 * such a change proves nothing. Judges again until the PID held still. */
static FlSnapshot *
judge_steady (const char    *path,
              FlLockOptions *options,
              int            pid,
              gboolean      *exists)
{
  for (guint attempt = 0;; attempt++)
    {
      gboolean before = pid_exists (pid);
      FlSnapshot *snapshot = judge (path, options);

      *exists = pid_exists (pid);
      if (*exists == before)
        return snapshot;
      g_object_unref (snapshot);
      g_assert_cmpuint (attempt, <, 100);
    }
}

static void
check_row (FlSnapshot *snapshot,
           Expect      expect,
           gboolean    reference,
           gboolean    old)
{
  switch (expect)
    {
    case EXPECT_ALIVE:
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_ALIVE);
      g_assert_false (fl_snapshot_get_stale (snapshot));
      break;
    case EXPECT_NEVER:
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_UNKNOWN);
      g_assert_false (fl_snapshot_get_stale (snapshot));
      g_assert_nonnull (strstr (fl_snapshot_get_reason (snapshot), "reclaim --force"));
      break;
    case EXPECT_LATER:
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_UNKNOWN);
      g_assert_cmpint (fl_snapshot_get_stale (snapshot), ==, old);
      break;
    case EXPECT_DEAD:
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==, FL_LIVENESS_DEAD);
      g_assert_true (fl_snapshot_get_stale (snapshot));
      break;
    case EXPECT_AS_KILL:
    default:
      g_assert_cmpint (fl_snapshot_get_liveness (snapshot), ==,
                       reference ? FL_LIVENESS_ALIVE : FL_LIVENESS_DEAD);
      g_assert_cmpint (fl_snapshot_get_stale (snapshot), ==, !reference);
      break;
    }

  /* The rule of rules. */
  if (reference)
    g_assert_false (fl_snapshot_get_stale (snapshot));
}

static void
test_row (FlTestDir     *fx,
          gconstpointer  data)
{
  const Row *row = data;
  g_autoptr(GByteArray) bytes = expand (row, live_pid, dead_pid);
  g_autoptr(FlLockOptions) patient = fl_lock_options_new ();
  g_autoptr(FlLockOptions) hasty = fl_lock_options_new ();
  g_autoptr(FlSnapshot) fresh = NULL;
  g_autoptr(FlSnapshot) moved = NULL;
  g_autoptr(FlSnapshot) aged = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *content = NULL;
  gboolean reference;
  gsize len;

  fl_lock_options_set_stale_after_ms (patient, 60000);
  fl_lock_options_set_stale_after_ms (hasty, 1);
  fl_test_write (fx->lock, (const char *) bytes->data, bytes->len);

  reference = references[row - rows];
  g_test_message ("the module calls its holder %s", reference ? "alive" : "dead");
  if (row->expect == EXPECT_ALIVE)
    g_assert_true (reference);
  if (row->expect == EXPECT_LATER || row->expect == EXPECT_DEAD)
    g_assert_false (reference);

  /* Fresh; then with its mtime an hour back (touch -d, cp -p, tar); then really older than
   * stale_after. A fixed PID is whatever kill() says of it at the time of each judge. */
  if (row->expect == EXPECT_AS_KILL)
    {
      int pid = row_pid (row);

      fresh = judge_steady (fx->lock, patient, pid, &reference);
      check_row (fresh, row->expect, reference, FALSE);
      fl_test_set_mtime_ago (fx->lock, 3600);
      moved = judge_steady (fx->lock, patient, pid, &reference);
      check_row (moved, row->expect, reference, FALSE);
      wait_older_than (fx->lock, 5);
      aged = judge_steady (fx->lock, hasty, pid, &reference);
      check_row (aged, row->expect, reference, TRUE);
    }
  else
    {
      fresh = judge (fx->lock, patient);
      check_row (fresh, row->expect, reference, FALSE);
      fl_test_set_mtime_ago (fx->lock, 3600);
      moved = judge (fx->lock, patient);
      check_row (moved, row->expect, reference, FALSE);
      wait_older_than (fx->lock, 5);
      aged = judge (fx->lock, hasty);
      check_row (aged, row->expect, reference, TRUE);
    }

  /* A NUL byte is shown escaped, not cut at. */
  if (bytes->len > 0 && memchr (bytes->data, '\0', bytes->len) != NULL)
    g_assert_nonnull (strstr (fl_snapshot_get_reason (fresh), "\\x00"));

  if (reference)
    {
      /* Neither an acquirer nor an operator's plain reclaim touches it. A fixed PID that goes
       * during a call makes whatever the call did right: nothing is left to check then. */
      int pid = row->expect == EXPECT_AS_KILL ? row_pid (row) : live_pid;
      gboolean reclaimed;

      lock = fl_lock_try_acquire (fx->target, hasty, &error);
      if (!pid_exists (pid))
        return;
      g_assert_null (lock);
      fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, fx->lock);
      g_clear_error (&error);
      reclaimed = fl_snapshot_reclaim (aged, hasty, &error);
      if (!pid_exists (pid))
        return;
      g_assert_false (reclaimed);
      fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_NOT_STALE, fx->lock);
      g_clear_error (&error);
      content = fl_test_read (fx->lock, &len);
      g_assert_cmpmem (content, len, bytes->data, bytes->len);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  /* The live PID is ours; the dead one stays dead for the run (no PID is reused that fast). */
  live_pid = (int) getpid ();
  dead_pid = (int) fl_test_dead_pid ();
  for (guint attempt = 0; !compute_references (attempt); attempt++)
    ;

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *path = g_strdup_printf ("/libfl/content-rule/%s", rows[i].name);

      FL_TEST_ADD (path, &rows[i], test_row);
    }

  return g_test_run ();
}
