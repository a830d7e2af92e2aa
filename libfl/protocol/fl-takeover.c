/* fl-takeover.c: takeover of a stale lock through a graveyard, and the claim that excludes
 * other takers when shared holders keep us from LOCK_EX (docs/protocol.md, section 4)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gi18n-lib.h>

#include "fl-error-private.h"
#include "protocol/fl-names-private.h"
#include "protocol/fl-takeover-private.h"

/* Every takeover error is in FL_ERROR. A sticky directory (mode +t, as /tmp) lets only a file's
 * owner, the directory's owner or root rename or remove it: say so, since the error alone
 * ("Operation not permitted") does not tell an operator what to do. */
static void
set_takeover_error (GError     **error,
                    int          saved_errno,
                    FlDir       *dir,
                    const char  *what,
                    const char  *path,
                    gint64       file_uid)
{
  gint64 self_uid = _fl_platform_self_uid ();
  FlFileInfo dir_info;

  if ((saved_errno == EPERM || saved_errno == EACCES) &&
      _fl_platform_dir_info (dir, &dir_info) == 0 &&
      (dir_info.mode & 01000) != 0 && file_uid >= 0 && file_uid != self_uid &&
      dir_info.uid != self_uid)
    {
      /* TRANSLATORS: the first %s is an action ("move aside the stale lock"), the second a
       * path; the uids are the file's owner, the directory's owner and this process's. */
      g_set_error (error, FL_ERROR, FL_ERROR_PERMISSION,
                   _("Cannot %s “%s”: its directory is sticky (mode +t), so only the file's "
                     "owner (uid %u), the directory's owner (uid %u) or root may move or remove "
                     "it, and this process runs as uid %u. Ask one of them to run flctl reclaim "
                     "on it"), what, path, (guint) file_uid, (guint) dir_info.uid,
                   (guint) self_uid);
      return;
    }
  _fl_set_error_from_errno (error, saved_errno, what, path);
}

/* The takeover claim, steps C1-C3 (docs/protocol.md, section 4). A taker that cannot have
 * LOCK_EX on the stale inode because others hold LOCK_SH on it must own a claim before it
 * acts. A claim's owner holds LOCK_EX on it from before it has its name, so nobody can take
 * LOCK_SH on a live claim, and a claim on which LOCK_SH is granted is dead for good.
 *
 * Claims come in generations, T.lock.claim.0, .1, ...: a taker owns generation g when its
 * link() there succeeded after it found every lower one dead. A dead claim is never replaced
 * or removed by a taker (every way of doing so can hit a live claim put there meanwhile);
 * only a holder of the lock itself removes them (_fl_takeover_clear_claims()). */
#define CLAIM_GENERATIONS_MAX 1000

typedef struct
{
  char        *name;      /* T.lock.claim.<g>: the one we own, or the live one we met */
  char        *own_name;  /* our claim file's name in the graveyard format, while it has one */
  FlHandle     fd;        /* our claim file: exclusive kernel lock from its creation on */
} Claim;

typedef enum
{
  CLAIM_OWNED,
  CLAIM_BUSY,    /* a live taker owns a generation: wait, then judge again */
  CLAIM_FAILED,  /* in @error */
} ClaimResult;

static char *
claim_name (const char *lock_name,
            guint       generation)
{
  return g_strdup_printf ("%s.claim.%u", lock_name, generation);
}

/* Step T6 for the claim: close our claim file, which leaves a claim we own dead under its
 * name; our own name, if it still has one, goes. */
static void
claim_clear (Claim *claim,
             FlDir *dir)
{
  if (claim->fd != FL_HANDLE_NONE)
    {
      if (claim->own_name != NULL)
        _fl_platform_unlink_held (dir, claim->own_name, claim->fd, NULL);
      _fl_platform_close (claim->fd);
      claim->fd = FL_HANDLE_NONE;
    }
  g_clear_pointer (&claim->own_name, g_free);
  g_clear_pointer (&claim->name, g_free);
}

/* Step C1: a fresh file in the graveyard format (a crash leaves an orphan that clean removes),
 * LOCK_EX before anything can be done with it. A reader that opened it first and holds
 * LOCK_SH makes us start over with another name, as the named temp does (fl-temp.c). */
static gboolean
claim_create (Claim       *claim,
              FlDir       *dir,
              const char  *lock_name,
              const char  *path,
              GError     **error)
{
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      g_autofree char *name = _fl_graveyard_name (lock_name, _fl_platform_self_pid (),
                                                  g_random_int ());
      FlHandle fd;
      int err = _fl_platform_create_excl (dir, name, &fd);

      if (err == EEXIST)
        continue;
      if (err != 0)
        {
          set_takeover_error (error, err, dir, _("create a takeover claim next to"), path, -1);
          return FALSE;
        }
      if (_fl_platform_kernel_lock (fd, FL_KERNEL_EXCLUSIVE) == 0)
        {
          claim->fd = fd;
          claim->own_name = g_steal_pointer (&name);
          _fl_platform_step_done ("C1");
          return TRUE;
        }
      _fl_platform_unlink_held (dir, name, fd, NULL);
      _fl_platform_close (fd);
    }

  g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
               _("Cannot create a takeover claim next to “%s”: every new file was locked by "
                 "another process at once. Look for processes locking files in its directory"),
               path);
  return FALSE;
}

/* Steps C2-C3. */
static ClaimResult
claim_take (Claim       *claim,
            FlDir       *dir,
            const char  *lock_name,
            const char  *path,
            GError     **error)
{
  guint generation = 0;

  if (!claim_create (claim, dir, lock_name, path, error))
    return CLAIM_FAILED;

  for (guint tries = 0; generation < CLAIM_GENERATIONS_MAX && tries < 2 * CLAIM_GENERATIONS_MAX;
       tries++)
    {
      g_autofree char *name = claim_name (lock_name, generation);
      FlFileInfo pinfo;
      int saved_errno;
      FlHandle pfd = FL_HANDLE_NONE;

      /* Step C2 */
      saved_errno = _fl_platform_link_noreplace (dir, claim->own_name, name);
      if (saved_errno == 0)
        {
          claim->name = g_steal_pointer (&name);
          _fl_platform_step_done ("C2");
          _fl_platform_unlink (dir, claim->own_name);
          g_clear_pointer (&claim->own_name, g_free);
          return CLAIM_OWNED;
        }
      if (saved_errno != EEXIST)
        {
          g_autofree char *claim_path = g_strdup_printf ("%s.claim.%u", path, generation);

          set_takeover_error (error, saved_errno, dir, _("create the takeover claim"),
                              claim_path, -1);
          return CLAIM_FAILED;
        }

      /* Step C3: is that generation's claim live? */
      saved_errno = _fl_platform_open_read (dir, name, &pfd);
      if (saved_errno == ENOENT)
        continue;  /* a holder removed it meanwhile: C2 again, same generation */
      if (saved_errno == 0 &&
          (_fl_platform_file_info (pfd, &pinfo) != 0 || pinfo.type != FL_FILE_REGULAR))
        saved_errno = EINVAL;
      if (saved_errno != 0)
        {
          if (pfd != FL_HANDLE_NONE)
            _fl_platform_close (pfd);
          g_set_error (error, FL_ERROR, FL_ERROR_FOREIGN,
                       _("“%s.claim.%u” is not a takeover claim libfl can use (%s): remove it if "
                         "it does not belong there"), path, generation,
                       saved_errno == ELOOP ? _("a symbolic link") : g_strerror (saved_errno));
          return CLAIM_FAILED;
        }
      if (_fl_platform_kernel_lock (pfd, FL_KERNEL_SHARED) != 0)
        {
          _fl_platform_close (pfd);
          claim->name = g_steal_pointer (&name);
          return CLAIM_BUSY;  /* its owner holds LOCK_EX: a live taker */
        }
      _fl_platform_close (pfd);
      _fl_platform_step_done ("C3");
      generation++;  /* dead for good: the next generation */
    }

  g_set_error (error, FL_ERROR, FL_ERROR_FAILED,
               _("Too many dead takeover claims next to “%s” (“%s.claim.0” to “%s.claim.%u”): "
                 "remove them while holding the lock, or by hand once no process is taking it "
                 "over"), path, path, path, CLAIM_GENERATIONS_MAX - 1);
  return CLAIM_FAILED;
}

/* Whether @name is "<lock_name>.claim.<digits>". */
static gboolean
is_claim_name (const char *name,
               const char *lock_name,
               gsize       lock_len)
{
  const char *p;

  if (strncmp (name, lock_name, lock_len) != 0 || strncmp (name + lock_len, ".claim.", 7) != 0)
    return FALSE;
  p = name + lock_len + 7;
  if (*p == '\0' || strlen (p) > 10)
    return FALSE;
  for (; *p; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

/* Step CL. Every generation, not 0, 1, ... up to a gap: a slow taker that found 0..2 dead
 * before a holder removed them links 3 afterwards (and fails T1), so gaps happen, and what lies
 * past one would stay for good. The directory is read once; this runs only after a takeover
 * that went the claim way, which is rare. */
void
_fl_takeover_clear_claims (FlDir      *dir,
                           const char *lock_name)
{
  gsize lock_len = strlen (lock_name);
  FlDirList *list;
  const char *name;
  FlFileType type;

  if (_fl_platform_dir_list_open (dir, &list) != 0)
    return;
  while ((name = _fl_platform_dir_list_next (list, &type)) != NULL)
    if (is_claim_name (name, lock_name, lock_len))
      _fl_platform_unlink (dir, name);
  _fl_platform_dir_list_close (list);
}

void
_fl_takeover_note_shared (FlEvidence *state)
{
  g_autofree char *shared = NULL;
  char *reason;

  if (!state->only_probers)
    return;
  shared = _fl_evidence_describe_shared (state, TRUE);
  reason = g_strdup_printf ("%s; %s", state->reason != NULL ? state->reason : "", shared);
  g_free (state->reason);
  state->reason = reason;
}

/* Who owns a live claim, for messages. */
static char *
describe_claim_owner (FlDir       *dir,
                      const char  *name)
{
  g_autoptr(GArray) pids = NULL;
  FlFileInfo st;
  FlProcessInfo info;
  char *ret;
  int pid;

  if (name == NULL || _fl_platform_stat_at (dir, name, &st) != 0 ||
      (pids = _fl_process_kernel_lock_holders (&st.id, FALSE)) == NULL || pids->len == 0)
    return g_strdup (_("another process"));
  pid = g_array_index (pids, int, 0);
  _fl_process_probe (pid, FALSE, &info);
  ret = info.name != NULL ? g_strdup_printf ("PID %d (%s)", pid, info.name)
                          : g_strdup_printf ("PID %d", pid);
  _fl_process_info_clear (&info);
  return ret;
}

/* An error of T2 or T4, which act on the stale lock's file. */
static FlTakeoverResult
stale_lock_error (GError      **error,
                  int           saved_errno,
                  FlDir        *dir,
                  const char   *what,
                  FlEvidence   *stale)
{
  set_takeover_error (error, saved_errno, dir, what, stale->path, stale->info.uid);
  return FL_TAKEOVER_FAILED;
}

/* Step T1: we hold LOCK_EX on the inode we judged (or own the claim); is it still the one at
 * T.lock? Only a holder of that LOCK_EX can move it away (docs/protocol.md, section 4), so
 * from here to T2 it stays, unless a peer without kernel locks acts. */
static gboolean
step_t1_still_at_path (FlDir       *dir,
                       const char  *lock_name,
                       FlEvidence *stale)
{
  if (!_fl_evidence_still_at (stale, dir, lock_name))
    return FALSE;
  _fl_platform_step_done ("T1");
  return TRUE;
}

/* Step T2: T.lock into a graveyard of our own, which a rename never replaces. */
static FlTakeoverResult
step_t2_move_aside (FlDir        *dir,
                    const char   *lock_name,
                    const char   *graveyard,
                    FlEvidence   *stale,
                    GError      **error)
{
  int saved_errno = _fl_platform_rename_noreplace (dir, lock_name, graveyard);

  if (saved_errno == ENOENT)
    return FL_TAKEOVER_CHANGED;
  if (saved_errno != 0)
    return stale_lock_error (error, saved_errno, dir, _("move aside the stale lock"), stale);
  _fl_platform_step_done ("T2");
  return FL_TAKEOVER_DONE;
}

/* Step T3: is what we moved the inode we judged? */
static gboolean
step_t3_moved_ours (FlDir       *dir,
                    const char  *graveyard,
                    FlEvidence *stale)
{
  return _fl_evidence_still_at (stale, dir, graveyard);
}

/* Step T4. Step T6 is the caller's: clearing the state closes the fd and drops LOCK_EX. */
static FlTakeoverResult
step_t4_remove_graveyard (FlDir        *dir,
                          const char   *graveyard,
                          FlEvidence   *stale,
                          GError      **error)
{
  int saved_errno = _fl_platform_unlink (dir, graveyard);

  if (saved_errno != 0 && saved_errno != ENOENT)
    return stale_lock_error (error, saved_errno, dir, _("remove the graveyard of"), stale);
  _fl_platform_step_done ("T4");
  return FL_TAKEOVER_DONE;
}

/* Step T5: we moved someone else's lock. Put it back with a link, which cannot replace a lock
 * created meanwhile; rename() could, and that is how the original module makes two holders. */
static FlTakeoverResult
step_t5_put_back (FlDir       *dir,
                  const char  *lock_name,
                  const char  *graveyard,
                  FlEvidence *stale)
{
  int saved_errno = _fl_platform_link_noreplace (dir, graveyard, lock_name);

  if (saved_errno == 0)
    _fl_platform_unlink (dir, graveyard);
  else if (saved_errno == EEXIST)
    g_message ("A peer without kernel locks replaced “%s” during a takeover; the lock it held "
               "was left in “%s” because a newer lock exists", stale->path, graveyard);
  /* ENOENT: a cleaner removed the graveyard; there is nothing to restore. */
  return FL_TAKEOVER_RACED;
}

/* Steps T1-T5: we exclude every other taker, by LOCK_EX on the stale inode or by the claim. */
static FlTakeoverResult
takeover_steps (FlDir        *dir,
                const char   *lock_name,
                FlEvidence   *stale,
                GError      **error)
{
  g_autofree char *graveyard = NULL;
  FlTakeoverResult moved;

  if (!step_t1_still_at_path (dir, lock_name, stale))
    return FL_TAKEOVER_CHANGED;

  graveyard = _fl_graveyard_name (lock_name, _fl_platform_self_pid (), g_random_int ());
  moved = step_t2_move_aside (dir, lock_name, graveyard, stale, error);
  if (moved != FL_TAKEOVER_DONE)
    return moved;

  if (step_t3_moved_ours (dir, graveyard, stale))
    return step_t4_remove_graveyard (dir, graveyard, stale, error);
  return step_t5_put_back (dir, lock_name, graveyard, stale);
}

FlTakeoverResult
_fl_takeover (FlDir        *dir,
              const char   *lock_name,
              FlEvidence   *stale,
              GError      **error)
{
  Claim claim;
  FlTakeoverResult result;

  g_assert (stale->holds_exclusive || stale->no_kernel_locks || stale->only_probers);
  g_assert (stale->stale);

  if (!stale->only_probers)
    return takeover_steps (dir, lock_name, stale, error);

  /* Only shared holders: we keep our LOCK_SH on X (a later taker's LOCK_EX is refused, so it
   * comes this way too) and need the claim to act. */
  claim = (Claim) { .fd = FL_HANDLE_NONE };
  switch (claim_take (&claim, dir, lock_name, stale->path, error))
    {
    case CLAIM_OWNED:
      result = takeover_steps (dir, lock_name, stale, error);
      break;
    case CLAIM_BUSY:
      {
        g_autofree char *owner = describe_claim_owner (dir, claim.name);
        g_autofree char *shared = _fl_evidence_describe_shared (stale, TRUE);
        /* TRANSLATORS: the first %s is the verdict's reason, the second says who holds a shared
         * lock, the third is "PID 18583 (db-writer)" or "another process", the last a file
         * name */
        char *reason = g_strdup_printf (_("%s; %s, and %s is taking the lock over (it owns "
                                          "the takeover claim “%s”)"),
                                        stale->reason, shared, owner, claim.name);
        g_free (stale->reason);
        stale->reason = reason;
        result = FL_TAKEOVER_CLAIMED;
      }
      break;
    case CLAIM_FAILED:
    default:
      result = FL_TAKEOVER_FAILED;
      break;
    }

  /* Step T6: our claim file goes dead before we let go of X. */
  claim_clear (&claim, dir);
  return result;
}
