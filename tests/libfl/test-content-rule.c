/* test-content-rule.c: libfl is never less cautious than the original module on any content
 *
 * Every row of docs/protocol.md's J4 table, and more: each whitespace JavaScript's trim()
 * removes, each radix prefix, signs, exponents, fractions, the int32 edges, NUL bytes, invalid
 * UTF-8, more than 64 bytes. For each, the reference is the module itself
 * (@dogfood-lab/findings' lib/file-lock.js, tests/node-reference, run by
 * tests/helpers/module-driver.mjs): its own withFileLock() offered a lock of that content,
 * fresh, and with its mtime past staleAfterMs, either takes it over or times out. Beside it,
 * libfl's verdict, fresh and really older than stale_after; the table is printed, and no row
 * may have libfl take over what the module would not. The C copy of the module
 * (tests/helpers/original-peer, for the tests that cannot run node) must agree with the module
 * on every row.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <libfl/fl.h>

#include <string.h>

#include "fl-test-util.h"

#ifdef __linux__
# include <errno.h>
# include <signal.h>
# include <sys/stat.h>
# include <unistd.h>
#endif

/* The short stale_after of the aged judges (libfl's and the module's staleAfterMs alike). */
#define AGED_STALE_AFTER_MS 1000

typedef enum
{
  EXPECT_ALIVE,    /* a live PID: alive, never stale */
  EXPECT_NEVER,    /* the module calls it alive for ever, or it is too long to tell: never
                    * stale by itself (an operator's forced reclaim) */
  EXPECT_LATER,    /* the module takes it over (at once, or empty by its mtime): unknown,
                    * stale once older than stale_after */
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

  /* Positive finite numbers that are no int32: process.kill() throws ERR_INVALID_ARG_TYPE,
   * which the module calls alive, for ever (issue 29). */
  { "fraction", S ("12.5"), EXPECT_NEVER },
  { "half", S ("0.5"), EXPECT_NEVER },
  { "tiny", S ("1e-7"), EXPECT_NEVER },
  { "denormal", S ("1e-310"), EXPECT_NEVER },
  { "spaced-fraction", S (" 12.5 "), EXPECT_NEVER },
  { "pid-fraction", S ("%P.5"), EXPECT_NEVER },
  { "int32-max-plus-one", S ("2147483648"), EXPECT_NEVER },
  { "two-to-the-32", S ("4294967296"), EXPECT_NEVER },
  { "big-exponent", S ("1e10"), EXPECT_NEVER },
  { "hex-beyond-int32", S ("0x80000000"), EXPECT_NEVER },
  { "eleven-nines", S ("99999999999"), EXPECT_NEVER },
  /* More than 64 bytes that could still be a number: the module reads it all. */
  { "over-64-spaces", S ("%P                                                                  "),
    EXPECT_NEVER },
  { "over-64-digits", S ("11111111111111111111111111111111111111111111111111111111111111111111"),
    EXPECT_NEVER },
  { "over-64-zeros", S ("00000000000000000000000000000000000000000000000000000000000000000000"),
    EXPECT_NEVER },

  /* Empty: the module takes it over once its mtime is older than staleAfterMs. */
  { "empty", S (""), EXPECT_LATER },
  { "space", S (" "), EXPECT_LATER },
  { "two-spaces", S ("  "), EXPECT_LATER },
  { "whitespace", S (" \t\n\r "), EXPECT_LATER },
  /* <= 0, NaN, Infinity: isProcessAlive() says dead, and the module takes it over at once. */
  { "zero", S ("0"), EXPECT_LATER },
  { "minus-zero", S ("-0"), EXPECT_LATER },
  { "plus-zero", S ("+0"), EXPECT_LATER },
  { "hex-zero", S ("0x0"), EXPECT_LATER },
  { "binary-zero", S ("0b0"), EXPECT_LATER },
  { "zero-point-zero", S ("0.0"), EXPECT_LATER },
  { "underflow", S ("1e-400"), EXPECT_LATER },
  { "minus-one", S ("-1"), EXPECT_LATER },
  { "minus-five", S ("-5"), EXPECT_LATER },
  { "minus-fraction", S ("-12.5"), EXPECT_LATER },
  { "int32-min", S ("-2147483648"), EXPECT_LATER },
  { "int32-min-minus-one", S ("-2147483649"), EXPECT_LATER },
  { "abc", S ("abc"), EXPECT_LATER },
  { "nan", S ("NaN"), EXPECT_LATER },
  { "infinity", S ("Infinity"), EXPECT_LATER },
  { "minus-infinity", S ("-Infinity"), EXPECT_LATER },
  { "overflow", S ("1e400"), EXPECT_LATER },
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

#ifdef __linux__
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

/* The module's verdicts (TRUE: it took the lock over), fresh (staleAfterMs 60 s, mtime now)
 * and aged (staleAfterMs 1 s, mtime an hour back); libfl's, filled as each row runs. */
static gboolean module_fresh[G_N_ELEMENTS (rows)], module_aged[G_N_ELEMENTS (rows)];
static gboolean libfl_fresh[G_N_ELEMENTS (rows)], libfl_aged[G_N_ELEMENTS (rows)];
static gboolean judged[G_N_ELEMENTS (rows)];
static gboolean peer_agrees[G_N_ELEMENTS (rows)];
/* Rows whose lock files were made before the references, already aged for libfl. */
static char *aged_dir;

/* One line, "taken" or "held", per file: what one reference's tryAcquire() does with it. */
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
    g_assert_true (strcmp (lines[i], "taken") == 0 || strcmp (lines[i], "held") == 0);
  return lines;
}

/* `judge STALE_AFTER_MS FILE...` of @head (the module's driver, or the C copy). */
static char **
judge_all (const char *const *head,
           guint              head_len,
           int                stale_after_ms,
           GPtrArray         *files)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *ms = g_strdup_printf ("%d", stale_after_ms);

  for (guint i = 0; i < head_len; i++)
    g_ptr_array_add (argv, (char *) head[i]);
  g_ptr_array_add (argv, "judge");
  g_ptr_array_add (argv, ms);
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (argv, files->pdata[i]);
  g_ptr_array_add (argv, NULL);
  return reference_verdicts ((const char * const *) argv->pdata, files->len);
}

/* Every row's verdicts at once (a node per row would cost minutes of start-up on a busy
 * machine), from the module and from its C copy, which must agree. */
static gboolean
compute_references (guint attempt)
{
  g_autofree char *dir = g_dir_make_tmp ("libfl-content-rule-XXXXXX", NULL);
  g_autofree char *peer = fl_test_helper_path ("FL_ORIGINAL_PEER", "original-peer");
  g_auto(GStrv) module = fl_test_module_argv ();
  g_autoptr(GPtrArray) fresh = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) aged = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) node_fresh = NULL, node_aged = NULL, peer_fresh = NULL, peer_aged = NULL;

  g_assert_nonnull (dir);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GByteArray) bytes = expand (&rows[i], live_pid, dead_pid);
      char *file = g_strdup_printf ("%s/%s.fresh", dir, rows[i].name);
      char *old = g_strdup_printf ("%s/%s.aged", dir, rows[i].name);

      fl_test_write (file, (const char *) bytes->data, bytes->len);
      fl_test_write (old, (const char *) bytes->data, bytes->len);
      fl_test_set_mtime_ago (old, 3600);
      g_ptr_array_add (fresh, file);
      g_ptr_array_add (aged, old);
    }

  node_fresh = judge_all ((const char * const *) module, 2, 60000, fresh);
  node_aged = judge_all ((const char * const *) module, 2, AGED_STALE_AFTER_MS, aged);
  peer_fresh = judge_all ((const char * const *) &peer, 1, 60000, fresh);
  peer_aged = judge_all ((const char * const *) &peer, 1, AGED_STALE_AFTER_MS, aged);

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      gboolean agree = strcmp (node_fresh[i], peer_fresh[i]) == 0 &&
                       strcmp (node_aged[i], peer_aged[i]) == 0;

      /* A fixed PID may have come or gone between the two (PIDs wrap on a busy machine). */
      if (!agree && rows[i].expect == EXPECT_AS_KILL && attempt < 5)
        {
          g_test_message ("row %s: PID came or went between the references; again",
                          rows[i].name);
          fl_test_rm_rf (dir);
          return FALSE;
        }
      if (!agree)
        g_test_message ("row %s: the C copy says %s, %s; the module %s, %s", rows[i].name,
                        peer_fresh[i], peer_aged[i], node_fresh[i], node_aged[i]);
      peer_agrees[i] = agree;
      module_fresh[i] = strcmp (node_fresh[i], "taken") == 0;
      module_aged[i] = strcmp (node_aged[i], "taken") == 0;
    }
  fl_test_rm_rf (dir);
  return TRUE;
}

/* A judge of age goes by the file's last change (ctime), which cannot be set back: wait, with
 * a deadline, until that is @ms ago. */
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

/* What the module says of @pid now: only ESRCH is dead. */
static gboolean
pid_exists (int pid)
{
  return kill (pid, 0) == 0 || errno != ESRCH;
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

/* @old: judged with stale_after passed. @exists: for EXPECT_AS_KILL, whether its PID exists. */
static void
check_row (FlSnapshot *snapshot,
           Expect      expect,
           gboolean    exists,
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
                       exists ? FL_LIVENESS_ALIVE : FL_LIVENESS_DEAD);
      g_assert_cmpint (fl_snapshot_get_stale (snapshot), ==, !exists);
      break;
    }
}

/* What the module does with this content; the rows' own classes must match it. */
static void
check_module (const Row *row,
              guint      i)
{
  g_test_message ("the module: fresh %s, aged %s", module_fresh[i] ? "taken" : "held",
                  module_aged[i] ? "taken" : "held");
  switch (row->expect)
    {
    case EXPECT_ALIVE:
      g_assert_false (module_fresh[i] || module_aged[i]);
      break;
    case EXPECT_LATER:
      g_assert_true (module_aged[i]);
      break;
    case EXPECT_DEAD:
      g_assert_true (module_fresh[i] && module_aged[i]);
      break;
    case EXPECT_NEVER:    /* the module may take some (68 zeros are 0), never libfl */
    case EXPECT_AS_KILL:  /* judged against kill() below, at the time of each judge */
    default:
      break;
    }
}

static void
test_row (FlTestDir     *fx,
          gconstpointer  data)
{
  const Row *row = data;
  guint i = row - rows;
  g_autoptr(GByteArray) bytes = expand (row, live_pid, dead_pid);
  g_autoptr(FlLockOptions) patient = fl_lock_options_new ();
  g_autoptr(FlLockOptions) hasty = fl_lock_options_new ();
  g_autoptr(FlSnapshot) fresh = NULL;
  g_autoptr(FlSnapshot) moved = NULL;
  g_autoptr(FlSnapshot) aged = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(FlLock) lock = NULL;
  g_autofree char *aged_target = g_strdup_printf ("%s/%s/t", aged_dir, row->name);
  g_autofree char *aged_lock = g_strdup_printf ("%s.lock", aged_target);
  g_autofree char *content = NULL;
  int pid = row->expect == EXPECT_AS_KILL ? row_pid (row) : live_pid;
  gboolean exists = TRUE, module_takes;
  gsize len;

  fl_lock_options_set_stale_after_ms (patient, 60000);
  fl_lock_options_set_stale_after_ms (hasty, AGED_STALE_AFTER_MS);
  fl_test_write (fx->lock, (const char *) bytes->data, bytes->len);
  check_module (row, i);

  /* Fresh; then with its mtime an hour back (touch -d, cp -p, tar); then a file made before
   * the references, its mtime an hour back, really older than stale_after. */
  fresh = judge_steady (fx->lock, patient, pid, &exists);
  check_row (fresh, row->expect, exists, FALSE);
  fl_test_set_mtime_ago (fx->lock, 3600);
  moved = judge_steady (fx->lock, patient, pid, &exists);
  check_row (moved, row->expect, exists, FALSE);
  wait_older_than (aged_lock, AGED_STALE_AFTER_MS + 5);
  aged = judge_steady (aged_lock, hasty, pid, &exists);
  check_row (aged, row->expect, exists, TRUE);

  libfl_fresh[i] = fl_snapshot_get_stale (fresh);
  libfl_aged[i] = fl_snapshot_get_stale (aged);
  judged[i] = TRUE;

  /* The rule of rules, row by row (a fixed PID: by kill() at the time of the judge). */
  module_takes = row->expect == EXPECT_AS_KILL ? !exists : module_aged[i];
  if (!module_takes)
    g_assert_false (libfl_aged[i]);
  if (row->expect != EXPECT_AS_KILL && !module_fresh[i])
    g_assert_false (libfl_fresh[i]);

  /* A NUL byte is shown escaped, not cut at. */
  if (bytes->len > 0 && memchr (bytes->data, '\0', bytes->len) != NULL)
    g_assert_nonnull (strstr (fl_snapshot_get_reason (fresh), "\\x00"));

  lock = fl_lock_try_acquire (aged_target, hasty, &error);
  if (row->expect == EXPECT_AS_KILL && pid_exists (pid) != exists)
    return;  /* the PID came or went during the call: whatever it did was right */
  if (libfl_aged[i])
    {
      /* Where libfl calls it stale, an acquirer takes it over: nothing wedges. */
      g_assert_no_error (error);
      g_assert_nonnull (lock);
      g_assert_true (fl_lock_release (lock, &error));
      g_assert_no_error (error);
      return;
    }

  /* Neither an acquirer nor an operator's plain reclaim touches it. */
  g_assert_null (lock);
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_BUSY, aged_lock);
  g_clear_error (&error);
  g_assert_false (fl_snapshot_reclaim (aged, hasty, &error));
  if (row->expect == EXPECT_AS_KILL && pid_exists (pid) != exists)
    return;
  fl_test_assert_error_names (error, FL_ERROR, FL_ERROR_NOT_STALE, aged_lock);
  content = fl_test_read (aged_lock, &len);
  g_assert_cmpmem (content, len, bytes->data, bytes->len);
}

/* The C copy (for the tests that cannot run node) says what the module says, on every row. */
static void
test_peer_agrees (void)
{
  guint disagree = 0;

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    disagree += !peer_agrees[i];
  g_assert_cmpuint (disagree, ==, 0);
}

/* The table, side by side: no row where libfl takes over what the module would not. */
static void
test_table (void)
{
  guint n = 0, less_cautious = 0;

  g_test_message ("%-26s %-14s %-14s %-14s %-14s", "row", "module fresh", "module aged",
                  "libfl fresh", "libfl aged");
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      /* A fixed PID's two verdicts may be of different processes: its row checks it. */
      gboolean worse = rows[i].expect != EXPECT_AS_KILL &&
                       ((libfl_fresh[i] && !module_fresh[i]) ||
                        (libfl_aged[i] && !module_aged[i]));

      if (!judged[i])
        continue;
      n++;
      less_cautious += worse;
      g_test_message ("%-26s %-14s %-14s %-14s %-14s%s", rows[i].name,
                      module_fresh[i] ? "taken" : "held", module_aged[i] ? "taken" : "held",
                      libfl_fresh[i] ? "stale" : "-", libfl_aged[i] ? "stale" : "-",
                      worse ? "  LESS CAUTIOUS" : "");
    }
  if (n == 0)
    {
      g_test_skip ("no row was run (run the rows with the table)");
      return;
    }
  g_assert_cmpuint (less_cautious, ==, 0);
}

#else
/* Every row is judged beside the module's own verdicts (and kill() of the PIDs it names), which
 * the wine stage cannot ask: the cases are listed, each skipped. */
#define NEEDS_MODULE "needs Linux: node and the module (tests/node-reference), kill()"

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  fl_test_add_skipped ("/libfl/content-rule/c-peer-agrees", NEEDS_MODULE);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *path = g_strdup_printf ("/libfl/content-rule/%s", rows[i].name);

      fl_test_add_skipped (path, NEEDS_MODULE);
    }
  fl_test_add_skipped ("/libfl/content-rule/table", NEEDS_MODULE);
  return g_test_run ();
}
#endif

#ifdef __linux__
int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);

  /* The live PID is ours; the dead one stays dead for the run (no PID is reused that fast). */
  live_pid = (int) getpid ();
  dead_pid = (int) fl_test_dead_pid ();

  /* The aged files first: the references take longer than stale_after, so by the time a row
   * runs its file's last change is already that old. */
  aged_dir = g_dir_make_tmp ("libfl-content-rule-aged-XXXXXX", NULL);
  g_assert_nonnull (aged_dir);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GByteArray) bytes = expand (&rows[i], live_pid, dead_pid);
      g_autofree char *dir = g_build_filename (aged_dir, rows[i].name, NULL);
      g_autofree char *lock = g_build_filename (dir, "t.lock", NULL);

      g_assert_cmpint (mkdir (dir, 0755), ==, 0);
      fl_test_write (lock, (const char *) bytes->data, bytes->len);
      fl_test_set_mtime_ago (lock, 3600);
    }
  for (guint attempt = 0; !compute_references (attempt); attempt++)
    ;

  g_test_add_func ("/libfl/content-rule/c-peer-agrees", test_peer_agrees);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autofree char *path = g_strdup_printf ("/libfl/content-rule/%s", rows[i].name);

      FL_TEST_ADD (path, &rows[i], test_row);
    }
  g_test_add_func ("/libfl/content-rule/table", test_table);

  ret = g_test_run ();
  fl_test_rm_rf (aged_dir);
  g_free (aged_dir);
  return ret;
}
#endif
