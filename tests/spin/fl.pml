/* fl.pml: the libfl lock protocol (docs/protocol.md) as a Promela model for spin
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One target T. The directory is a map from names to inodes: `lock` is the inode named T.lock,
 * `gyname[k]` the inode named by graveyard k; 0 means "no such name". Inodes are small integers,
 * allocated lowest-free-first the way a filesystem reuses inode numbers: only once nothing
 * names the inode and no descriptor holds it open. The kernel lock (flock) is a per-inode
 * owner, `kown`, cleared when its owner closes the descriptor or dies.
 *
 * Processes: NLIBFL libfl processes and NPEER peers that speak only the original (Node)
 * protocol. A `killer` may SIGKILL any unfinished process at any step, at most CRASHES times:
 * its kernel locks and descriptors vanish, its files stay, and it either stays dead or restarts
 * under a new PID (a service manager restarting it). Each incarnation acquires and releases
 * ROUNDS times and is done.
 *
 * Every labelled step is one system call (or a read of a fixed file and nothing else), executed
 * atomically, with labels named as in docs/protocol.md: A2 A3 J1 J3 J4 A5 T1-T6 C1-C3 CW CL
 * R1-R3 for libfl, N1-N7 for the peer (tests/helpers/original-peer.c; docs/protocol.md,
 * section 10).
 *
 * With -DREADER a reader (anyone who can read the files: an inspector, another user) takes
 * flock(LOCK_SH) on whatever T.lock names, whenever nobody holds LOCK_EX on it, and drops it
 * at any step or never. That covers the LOCK_SH queued while a holder lives
 * and granted the instant it dies: the reader may take it in the very next step. Its LOCK_SH
 * elsewhere (graveyards) changes nothing a libfl process decides.
 *
 * Properties (enable with -D; run-model.sh picks them):
 *   P_MUTEX     never two holders among libfl processes
 *   P_MUTEX_ALL never two holders at all, peers included
 *   P_THEFT     a live libfl holder's T.lock is removed or replaced only by that holder
 *               (P_THEFT_BY_LIBFL, P_THEFT_BY_PEER: the same, counting one kind of remover)
 *   P_RELEASE   a libfl release (R2) never unlinks another's inode
 *   P_PUTBACK   the peer's put-back (N6) never replaces a live libfl holder's T.lock
 *   P_PEER      a live peer holder's T.lock is never removed by a libfl process
 *   P_NO_T5     the put-back T5 is never reached (docs: "only a peer can lead there")
 *   progress    (LTL, run with -a -f) every process finishes: no waiter stuck forever
 */

#ifndef NLIBFL
#define NLIBFL 3
#endif
#ifndef NPEER
#define NPEER 0
#endif
#ifndef ROUNDS
#define ROUNDS 1
#endif
#ifndef CRASHES
#define CRASHES 2
#endif

/* The waiter's slow safety re-check (section 5): with -DRECHECK it may fire at any moment,
 * which only adds behaviours (the safety runs, and liveness with it); without it a waiter wakes
 * on events alone, and the liveness runs show when that is enough. */
#ifdef RECHECK
#undef RECHECK
#define RECHECK true
#else
#define RECHECK false
#endif

/* A process that is done exits (its PID dies) with -DEXIT, which gives PID-based judges more
 * dead PIDs to act on (the safety runs); without it, it lives on, so that no pidfd wakes a
 * waiter and inotify alone must do it (the liveness run). */
#ifdef EXIT
#define EXIT_ACTION alive[upid[i]] = 0
#else
#define EXIT_ACTION skip
#endif

#define NP     (NLIBFL + NPEER)
#define NGY    4                     /* graveyard names: orphans of crashes, T5 evidence */
#define NCL    5                     /* claim generations T.lock.claim.0 .. NCL-1 */
#define NINO   (4 * NP + NGY + NCL + 2)  /* enough for every name and descriptor at once */
#define MAXPID (NP + CRASHES)        /* PIDs 1..MAXPID, never reused; 0 = none */

byte lock;                 /* the inode named T.lock */
byte gyname[NGY];          /* the inode named by graveyard k */
byte content[NINO + 1];    /* the PID written in the inode */
bool ident[NINO + 1];      /* the identity xattr says "kernel lock 1" (libfl files only) */
byte kown[NINO + 1];       /* slot + 1 holding flock(LOCK_EX) on the inode; 0 = free */

byte upid[NP];             /* the PID of slot i's current incarnation */
bool alive[MAXPID + 1];
byte myino[NP];            /* own temp / lock inode, descriptor open (flock held by libfl) */
byte xino[NP];             /* the judged inode X, descriptor open */
bool held[NP];             /* from a successful link until release (or the loss is seen) */
bool ev[NP];               /* an inotify event (IN_DELETE | IN_MOVED_FROM on T.lock) pending */
bool killed[NP];
bool finished[NP];
byte claim[NCL];           /* the inode named T.lock.claim.<g>; removed only by a holder (CL) */
byte cino[NP];             /* own claim file, descriptor open, LOCK_EX held from its birth */
byte cown[NP];             /* the inode our own (graveyard-format) claim name names; 0 = none */
byte pino[NP];             /* the claim inode opened in C3, descriptor open */
bool xsh[NP];              /* our descriptor on X holds LOCK_SH (only shared holders), not EX */
byte rsh;                  /* the inode the reader holds LOCK_SH on; 0 = none */
byte ndone;
byte nextpid = NP + 1;
byte crashes = CRASHES;

/* Scratch, not part of the state. */
hidden byte scr;
hidden byte scr_j;
hidden byte scr_used;
hidden byte scr_n;

inline inuse (k)
{
  scr_used = (lock == k);
  scr_j = 0;
  do
  :: scr_j < NGY -> scr_used = scr_used || gyname[scr_j] == k; scr_j++
  :: else -> break
  od;
  scr_used = scr_used || rsh == k;
  scr_j = 0;
  do
  :: scr_j < NCL -> scr_used = scr_used || claim[scr_j] == k; scr_j++
  :: else -> break
  od;
  scr_j = 0;
  do
  :: scr_j < NP ->
     scr_used = scr_used || myino[scr_j] == k || xino[scr_j] == k || cino[scr_j] == k ||
                cown[scr_j] == k || pino[scr_j] == k;
     scr_j++
  :: else -> break
  od
}

/* Whether anyone holds LOCK_SH on inode k: the reader, or a taker on the claim way. */
inline shared_held (k)
{
  d_step {
  scr_used = (rsh == k);
  scr_j = 0;
  do
  :: scr_j < NP -> scr_used = scr_used || (xsh[scr_j] && xino[scr_j] == k); scr_j++
  :: else -> break
  od;
  scr_j = 0
  }
}

/* A new inode, the lowest number nothing refers to. */
inline alloc (res)
{
  d_step {
  res = 1;
  do
  :: res <= NINO ->
     inuse (res);
     if
     :: scr_used -> res++
     :: else -> break
     fi
  :: else -> assert (false)     /* NINO too small */
  od;
  assert (content[res] == 0 && !ident[res] && kown[res] == 0)
  }
}

/* Forget what a freed inode held, so that states differ only in what can still be seen. */
inline gc ()
{
  d_step {
  scr = 1;
  do
  :: scr <= NINO ->
     inuse (scr);
     if
     :: !scr_used -> content[scr] = 0; ident[scr] = 0; kown[scr] = 0
     :: else -> skip
     fi;
     scr++
  :: else -> break
  od;
  scr = 0
  }
}

/* Step T6 of the claim way: close our claim file (its LOCK_EX goes; a claim we own stays under
 * its name, dead) and remove our own name if it still has one. */
inline drop_claim ()
{
  if
  :: cino[i] != 0 -> kown[cino[i]] = 0; cown[i] = 0; cino[i] = 0
  :: else -> skip
  fi;
  pino[i] = 0
}

/* Close the descriptor of the judged inode X (drops our LOCK_EX or LOCK_SH), and the claim's. */
inline close_x ()
{
  if
  :: kown[xino[i]] == i + 1 -> kown[xino[i]] = 0
  :: else -> skip
  fi;
  xino[i] = 0; xsh[i] = 0;
  drop_claim ();
  gc ()
}

/* A free graveyard name: a fresh random suffix in the C code. */
inline gyalloc (g)
{
  d_step {
  g = 0;
  do
  :: g < NGY && gyname[g] != 0 -> g++
  :: g < NGY && gyname[g] == 0 -> break
  :: else -> assert (false)     /* NGY too small */
  od
  }
}

/* The name T.lock went away by unlink() or rename() from it: every watch sees it. */
inline emit ()
{
  d_step {
  scr_j = 0;
  do
  :: scr_j < NLIBFL -> ev[scr_j] = (myino[scr_j] != 0 && !held[scr_j]) || ev[scr_j]; scr_j++
  :: else -> break
  od;
  scr_j = 0
  }
}

inline count_holders (from, to)
{
  scr_n = 0;
  scr_j = from;
  do
  :: scr_j < to -> scr_n = scr_n + held[scr_j]; scr_j++
  :: else -> break
  od
}

/* Called when process `me` has just become a holder. */
inline check_mutex (me)
{
  d_step {
#ifdef P_MUTEX
  count_holders (0, NLIBFL);
  assert (scr_n <= 1);
#endif
#ifdef P_MUTEX_ALL
  count_holders (0, NP);
  assert (scr_n <= 1);
#endif
  scr_n = 0; scr_j = 0
  }
}

/* Called when process `me` removes or replaces the name T.lock, which names inode v. */
inline check_removal (v, me)
{
  d_step {
#if defined(P_THEFT) || defined(P_THEFT_BY_LIBFL) || defined(P_THEFT_BY_PEER)
  scr_j = 0;
  do
  :: scr_j < NLIBFL ->
#if defined(P_THEFT)
     assert (!(held[scr_j] && myino[scr_j] == v && scr_j != me));
#elif defined(P_THEFT_BY_LIBFL)
     assert (!(held[scr_j] && myino[scr_j] == v && scr_j != me && me < NLIBFL));
#else
     assert (!(held[scr_j] && myino[scr_j] == v && me >= NLIBFL));
#endif
     scr_j++
  :: else -> break
  od;
#endif
#ifdef P_PEER
  scr_j = NLIBFL;
  do
  :: scr_j < NP ->
     assert (!(me < NLIBFL && held[scr_j] && content[v] == upid[scr_j]));
     scr_j++
  :: else -> break
  od;
#endif
  scr_j = 0
  }
}

/* A3: link(temp, T.lock) for libfl slot i; jumps to HELD on success. */
inline try_link ()
{
  if
  :: lock == 0 ->
     lock = myino[i]; held[i] = 1; ev[i] = 0;
     printf ("MSC: A3 libfl%d pid%d: link(temp ino%d, T.lock) ok: HOLDS\n", i, upid[i], lock);
     check_mutex (i);
     if
     :: cl -> cg = 0; goto CL
     :: else -> goto HELD
     fi
  :: else ->
     printf ("MSC: A3 libfl%d pid%d: link -> EEXIST (T.lock is ino%d)\n", i, upid[i], lock)
  fi
}

proctype Libfl (byte i)
{
  byte r;       /* rounds done by this incarnation */
  byte hp;      /* the PID read from T.lock in J1, the one A5's pidfd watches */
  byte g;       /* our graveyard name in T2-T5 */
  bool pfd;     /* A5's pidfd on hp is armed: hp existed when A5 began */
  byte cg;      /* the claim generation we are at (C2, C3) */
  bool cl;      /* this incarnation went the claim way: once it holds, it removes claims */

restart:
  {
    r = 0;
    do
    :: r == ROUNDS -> break
    :: r < ROUNDS ->
       /* A1 opens the directory: nothing shared. The watch of section 5 exists from here on
        * (before the first A3 that can fail), so ev starts clean. The temp is O_TMPFILE:
        * nameless, so nobody can see it before A3, and A2 and the first A3 are one step. */
A2:    atomic {
         alloc (scr); myino[i] = scr; scr = 0;
         content[myino[i]] = upid[i]; ident[myino[i]] = 1;
#ifndef MUT_FLOCK_LATE
         kown[myino[i]] = i + 1;
#endif
         ev[i] = 0;
         printf ("MSC: A2 libfl%d pid%d: temp ino%d, flock EX, identity\n", i, upid[i],
                 myino[i]);
         try_link ();
         goto J1
       };
A3:    atomic { try_link () };
       /* A4: judge T.lock as a taker. J1 + J2: open and read it. An inode's content and
        * identity are written before its first link and never change, so reading them belongs
        * to the open (the C code reads the identity only once J3 found the kernel lock free). */
J1:    atomic {
         if
         :: lock == 0 ->
            printf ("MSC: J1 libfl%d pid%d: open T.lock -> ENOENT\n", i, upid[i]);
            goto A3
         :: else ->
            xino[i] = lock; hp = content[xino[i]];
            printf ("MSC: J1 libfl%d pid%d: open T.lock = ino%d, content pid%d\n", i, upid[i],
                    xino[i], hp)
         fi
       };
J3:    atomic {
         shared_held (xino[i]);
         if
         :: kown[xino[i]] == 0 && scr_used ->
            /* LOCK_EX refused, LOCK_SH granted: only shared holders, no live libfl holder.
             * Keep the LOCK_SH; acting needs the claim (C1-C3). */
            scr_used = 0; xsh[i] = 1;
            printf ("MSC: J3 libfl%d pid%d: flock(ino%d, EX|NB) refused, SH ok: shared only\n",
                    i, upid[i], xino[i]);
            if
            :: ident[xino[i]] ->
               printf ("MSC: J4 libfl%d pid%d: stale\n", i, upid[i]);
               goto C1
            :: else -> skip
            fi
         :: kown[xino[i]] == 0 && !scr_used ->
            kown[xino[i]] = i + 1;
            printf ("MSC: J3 libfl%d pid%d: flock(ino%d, EX|NB) ok\n", i, upid[i], xino[i]);
            if
            :: ident[xino[i]] ->                  /* J4: kernel lock free, identity took one */
               printf ("MSC: J4 libfl%d pid%d: stale\n", i, upid[i]);
               goto T1
            :: else -> skip                       /* J4 by the PID, below */
            fi
         :: else ->
            scr_used = 0;
            /* EWOULDBLOCK, and LOCK_SH is refused too: a holder's LOCK_EX or another
             * fast-path taker's. J4: held, so alive, whatever the PID; the
             * C code does not look at the PID on this path. A5 arms a pidfd on the PID,
             * which only works if that process still exists. */
            printf ("MSC: J3 libfl%d pid%d: flock(ino%d, EX|NB) -> EWOULDBLOCK: held, wait\n",
                    i, upid[i], xino[i]);
            close_x (); pfd = alive[hp];
            goto A5
         fi
       };
J4:    atomic {                                            /* no identity: judged by PID */
         if
         :: !alive[hp] ->
            printf ("MSC: J4 libfl%d pid%d: kill(pid%d) ESRCH: stale\n", i, upid[i], hp);
            if
            :: xsh[i] -> goto C1
            :: else -> goto T1
            fi
         :: else ->
            printf ("MSC: J4 libfl%d pid%d: pid%d alive: wait\n", i, upid[i], hp);
            close_x (); pfd = 1; goto A5
         fi
       };
A5:    atomic {
#ifdef MUT_LATE_WATCH
         ev[i] = 0;                 /* the watch set up only now, after the failed link() */
#endif
         (ev[i] || (pfd && !alive[hp]) || RECHECK) ->
         printf ("MSC: A5 libfl%d pid%d: woken (event %d)\n", i, upid[i], ev[i]);
         ev[i] = 0; pfd = 0; hp = 0; goto A3
       };

       /* The claim way (docs/protocol.md, section 4), entered holding LOCK_SH on the stale X
        * that only shared holders kept from our LOCK_EX. */
C1:    atomic {                          /* our claim file: created and LOCK_EX, then named */
         /* The C code takes LOCK_EX right after creating it and starts over with a new file
          * if a reader's LOCK_SH came first, so it always has LOCK_EX from birth: one step. */
         alloc (scr); cino[i] = scr; scr = 0;
         kown[cino[i]] = i + 1; cown[i] = cino[i]; cg = 0; cl = 1;
         printf ("MSC: C1 libfl%d pid%d: own claim file ino%d, flock EX\n", i, upid[i], cino[i])
       };
C2:    atomic {                                   /* link(own, T.lock.claim.<cg>) */
         assert (cg < NCL);                       /* NCL too small */
         if
         :: claim[cg] == 0 ->
            claim[cg] = cino[i];
            /* unlink(own name), folded in: nobody else acts on our own name */
            cown[i] = 0;
            printf ("MSC: C2 libfl%d pid%d: link(ino%d, claim.%d) ok: owns the claim\n", i,
                    upid[i], cino[i], cg);
            cg = 0; goto T1
         :: else ->
            printf ("MSC: C2 libfl%d pid%d: link -> EEXIST (claim.%d is ino%d)\n", i, upid[i],
                    cg, claim[cg])
#ifdef MUT_CLAIM_NO_PROBE
            ; cg++; goto C2                       /* the mutant: no look at its owner */
#endif
         fi
       };
C3:    atomic {                                   /* open(T.lock.claim.<cg>) */
         if
         :: claim[cg] == 0 -> goto C2            /* ENOENT: a holder removed it */
         :: else -> pino[i] = claim[cg]
         fi
       };
C3b:   atomic {                                   /* flock(it, LOCK_SH|LOCK_NB) */
         if
         :: kown[pino[i]] != 0 ->
            printf ("MSC: C3 libfl%d pid%d: claim.%d (ino%d) is live: wait\n", i, upid[i], cg,
                    pino[i]);
            goto CW
         :: else ->
            printf ("MSC: C3 libfl%d pid%d: claim.%d (ino%d) is dead\n", i, upid[i], cg,
                    pino[i]);
            pino[i] = 0;
#ifdef MUT_CLAIM_REPLACE
            /* the mutant: rename(own, claim.<cg>) over the dead claim */
            claim[cg] = cino[i]; cown[i] = 0; gc ();
            printf ("MSC: C3 libfl%d pid%d: rename(own, claim.%d): owns it\n", i, upid[i], cg);
            goto T1
#endif
            cg++; gc (); goto C2
         fi
       };
CW:    atomic {                    /* another taker owns the claim: re-check with backoff */
         close_x ();
         printf ("MSC: CW libfl%d pid%d: claim busy, back off\n", i, upid[i]);
         hp = 0; cg = 0; goto A3
       };

       /* Takeover, entered holding LOCK_EX on the stale X, or LOCK_SH and the claim. */
T1:    atomic {
         hp = 0;
#ifdef MUT_NO_T1
         goto T2;
#endif
         if
         :: lock != xino[i] ->
            printf ("MSC: T1 libfl%d pid%d: T.lock is no longer ino%d\n", i, upid[i], xino[i]);
            close_x (); goto A3
         :: else ->
            printf ("MSC: T1 libfl%d pid%d: T.lock is still ino%d\n", i, upid[i], xino[i])
         fi
       };
T2:    atomic {
         if
         :: lock == 0 ->
            printf ("MSC: T2 libfl%d pid%d: rename -> ENOENT\n", i, upid[i]);
            close_x (); goto A3
         :: else ->
            gyalloc (g);
            printf ("MSC: T2 libfl%d pid%d: renameat2(T.lock = ino%d, gy%d, NOREPLACE)\n", i,
                    upid[i], lock, g);
            check_removal (lock, i);
            gyname[g] = lock; lock = 0; emit ()
         fi;
         /* T3: nobody else renames or removes our graveyard name while we live, so what its
          * fstatat() will say is decided here; the step is folded in. */
         if
         :: gyname[g] == xino[i] -> goto T4
         :: else ->
            printf ("MSC: T3 libfl%d pid%d: gy%d is ino%d, not ino%d\n", i, upid[i], g,
                    gyname[g], xino[i]);
            goto T5
         fi
       };
T4:    atomic {
         printf ("MSC: T4 libfl%d pid%d: unlink(gy%d)\n", i, upid[i], g);
         gyname[g] = 0; g = 0;
         /* T6, folded in: X has no name left, so nobody can see its kernel lock go. */
         close_x (); goto A3
       };
T5:    atomic {
#ifdef P_NO_T5
         assert (false);
#endif
         if
         :: lock == 0 ->
            printf ("MSC: T5 libfl%d pid%d: link(gy%d, T.lock) restores ino%d\n", i, upid[i], g,
                    gyname[g]);
            lock = gyname[g]
         :: else ->
            printf ("MSC: T5 libfl%d pid%d: link -> EEXIST: gy%d stays as evidence\n", i,
                    upid[i], g);
            g = 0; goto T6
         fi
       };
T5b:   atomic { gyname[g] = 0; g = 0; gc () };            /* unlink(gy) */
T6:    atomic { close_x (); goto A3 };

       /* CL: a holder that went the claim way removes the claims, one unlink() a step, up to
        * the first ENOENT; safe only because it holds the lock. A3 comes here only then. */
CL:    do
       :: atomic {
            cg < NCL && claim[cg] != 0 ->
            printf ("MSC: CL libfl%d pid%d: unlink(claim.%d = ino%d)\n", i, upid[i], cg,
                    claim[cg]);
            claim[cg] = 0; cg++; gc ()
          }
       :: atomic { cg == NCL || claim[cg] == 0 -> cl = 0; cg = 0; goto HELD }
       od;
HELD:  /* the critical section */
#ifdef MUT_FLOCK_LATE
       atomic { kown[myino[i]] = i + 1 };
#endif
R1:    atomic {
         if
         :: lock != myino[i] ->
            printf ("MSC: R1 libfl%d pid%d: T.lock is ino%d, not ours (ino%d): LOST\n", i,
                    upid[i], lock, myino[i]);
            held[i] = 0; goto R3
         :: else -> skip
         fi
       };
R2:    atomic {
         printf ("MSC: R2 libfl%d pid%d: unlink(T.lock = ino%d)\n", i, upid[i], lock);
#ifdef P_RELEASE
         assert (lock == myino[i] || lock == 0);     /* ENOENT removes nothing */
#endif
         held[i] = 0;
         if
         :: lock == myino[i] ->
            check_removal (lock, i); lock = 0; emit ();
            /* R3, folded in: our inode has no name left, so nobody can see its kernel lock. */
            kown[myino[i]] = 0; myino[i] = 0; r++; gc ();
            goto NEXT
         :: lock != myino[i] && lock != 0 -> check_removal (lock, i); lock = 0; emit (); gc ()
         :: else -> skip
         fi
       };
R3:    atomic { kown[myino[i]] = 0; myino[i] = 0; r++; gc () };
NEXT:  skip
    od;
    atomic { finished[i] = 1; ndone++; EXIT_ACTION }
  } unless {
    killed[i] ->
    atomic {
      r = 0; hp = 0; g = 0; pfd = 0; killed[i] = 0;
      cg = 0; cl = 0;
      if
      :: upid[i] = nextpid; nextpid++; alive[upid[i]] = 1;
         printf ("MSC: libfl%d restarts as pid%d\n", i, upid[i]);
         goto restart
      :: finished[i] = 1; ndone++                /* stays dead */
      fi
    }
  }
}

/* A peer speaking only the original protocol: no kernel lock, no identity, PID-only liveness,
 * a takeover that reads, probes and renames in separate steps, and a put-back by rename().
 * Step for step tests/helpers/original-peer.c, the C copy of the Node module; its steps N1-N7
 * are listed in docs/protocol.md, section 10. */
proctype Peer (byte i)
{
  byte r;
  byte c;       /* the PID read from T.lock in N3 */
  byte g;

restart:
  {
    r = 0;
    do
    :: r == ROUNDS -> break
    :: r < ROUNDS ->
N1:    atomic {                                            /* write the temp */
         alloc (scr); myino[i] = scr; scr = 0;
         content[myino[i]] = upid[i]
       };
N2:    atomic {                                            /* link(temp, T.lock), unlink(temp) */
         if
         :: lock == 0 ->
            lock = myino[i]; myino[i] = 0; held[i] = 1;
            printf ("MSC: N2 peer pid%d: link(temp, T.lock) ok: ino%d, HOLDS\n", upid[i], lock);
            check_mutex (i);
            goto NHELD
         :: else -> skip
         fi
       };
N3:    atomic {                                            /* readFile(T.lock) */
         if
         :: lock == 0 -> goto N2
         :: else ->
            c = content[lock];
            printf ("MSC: N3 peer pid%d: read T.lock (ino%d): pid%d\n", upid[i], lock, c)
         fi
       };
N4:    atomic {                                            /* kill(c, 0) */
         if
         :: alive[c] -> c = 0; goto N2                     /* alive: poll again later */
         :: else -> printf ("MSC: N4 peer pid%d: kill(pid%d) ESRCH: stale\n", upid[i], c)
         fi
       };
N5:    atomic {                                            /* rename(T.lock, gy) */
         if
         :: lock == 0 -> c = 0; goto N2
         :: else ->
            gyalloc (g);
            printf ("MSC: N5 peer pid%d: rename(T.lock = ino%d, gy%d)\n", upid[i], lock, g);
            check_removal (lock, i);
            gyname[g] = lock; lock = 0; emit ()
         fi
       };
N6:    atomic {                                            /* readFile(gy): the one judged? */
         if
         :: content[gyname[g]] == c ->
            printf ("MSC: N6 peer pid%d: gy%d holds pid%d: unlink it\n", upid[i], g, c);
            gyname[g] = 0; gc ()
         :: else ->                                        /* no: rename(gy, T.lock) */
            printf ("MSC: N6 peer pid%d: gy%d holds pid%d, not pid%d: rename(gy%d, T.lock) over ino%d\n",
                    upid[i], g, content[gyname[g]], c, g, lock);
            if
            :: lock != 0 ->
               check_removal (lock, i);
#ifdef P_PUTBACK
               d_step {
                 scr_j = 0;
                 do
                 :: scr_j < NLIBFL -> assert (!(held[scr_j] && myino[scr_j] == lock)); scr_j++
                 :: else -> break
                 od;
                 scr_j = 0
               }
#endif
            :: else -> skip
            fi;
            lock = gyname[g]; gyname[g] = 0; gc ()
         fi;
         c = 0; g = 0;
         goto N2
       };

NHELD: /* the critical section */
N7:    atomic {                                            /* unlink(T.lock), unchecked */
         printf ("MSC: N7 peer pid%d: unlink(T.lock = ino%d)\n", upid[i], lock);
         if
         :: lock != 0 -> check_removal (lock, i); lock = 0; emit (); gc ()
         :: else -> skip
         fi;
         held[i] = 0; r++
       };
NEXT:  skip
    od;
    atomic { finished[i] = 1; ndone++; EXIT_ACTION }
  } unless {
    killed[i] ->
    atomic {
      r = 0; c = 0; g = 0; killed[i] = 0;
      if
      :: upid[i] = nextpid; nextpid++; alive[upid[i]] = 1;
         printf ("MSC: peer restarts as pid%d\n", upid[i]);
         goto restart
      :: finished[i] = 1; ndone++                /* stays dead */
      fi
    }
  }
}

#ifdef READER
/* Anyone who can read the files: LOCK_SH on what T.lock names, whenever nobody holds LOCK_EX
 * on it; dropped at any step, or never. A LOCK_SH on a claim would only keep its inode alive:
 * claims are probed for LOCK_EX alone, and only a claim's creator takes LOCK_EX on it, before
 * it has a name. */
proctype Reader ()
{
end:                       /* waiting for something to read is a valid end */
  do
  :: atomic {
       rsh == 0 && lock != 0 && kown[lock] == 0 -> rsh = lock;
       printf ("MSC: READER: flock(T.lock = ino%d, LOCK_SH)\n", rsh)
     }
  :: atomic {
       rsh != 0 -> printf ("MSC: READER: close(ino%d)\n", rsh); rsh = 0; gc ()
     }
  od
}
#endif

/* SIGKILL: at most CRASHES times, any unfinished process, at any step. */
proctype Killer ()
{
  byte v;
  byte k;

  do
  :: crashes > 0 ->
     atomic {
       select (v : 0 .. NP - 1);
       if
       :: !finished[v] && !killed[v] ->
          printf ("MSC: KILL slot %d (pid%d)\n", v, upid[v]);
          crashes--;
          killed[v] = 1; alive[upid[v]] = 0; held[v] = 0;
          k = 1;
          do
          :: k <= NINO -> if :: kown[k] == v + 1 -> kown[k] = 0 :: else -> skip fi; k++
          :: else -> break
          od;
          myino[v] = 0; xino[v] = 0; ev[v] = 0;
          xsh[v] = 0; cino[v] = 0; pino[v] = 0;
          /* Its own claim name stays, an orphan in the graveyard format. */
          if
          :: cown[v] != 0 ->
             gyalloc (k); gyname[k] = cown[v]; cown[v] = 0
          :: else -> skip
          fi;
          v = 0; k = 0;
          gc ()
       :: else -> v = 0; break
       fi
     }
  :: break
  od
}

init
{
  atomic {
    scr_j = 0;
    do
    :: scr_j < NP -> upid[scr_j] = scr_j + 1; alive[scr_j + 1] = 1; scr_j++
    :: else -> break
    od;
    scr_j = 0;
    do
    :: scr_j < NLIBFL -> run Libfl (scr_j); scr_j++
    :: else -> break
    od;
    do
    :: scr_j < NP -> run Peer (scr_j); scr_j++
    :: else -> break
    od;
    scr_j = 0;
#ifdef READER
    run Reader ();
#endif
    run Killer ()
  }
}

#ifdef LIVENESS
ltl progress { <> (ndone == NP) }
#endif
