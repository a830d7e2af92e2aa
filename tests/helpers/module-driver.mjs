// module-driver.mjs: the Node.js module itself, driven from the tests
//
// Imports the real lib/file-lock.js of @dogfood-lab/findings (installed by
// build-aux/install-deps at the version tests/node-reference pins; its path comes in
// FL_NODE_REFERENCE) and runs its own withFileLock(): nothing here decides anything the module
// decides. It is what a service still running the module does, flaws included.
//
//   node module-driver.mjs hold TARGET              acquire, print "held <pid>", release when
//                                                   stdin closes
//   node module-driver.mjs acquire TARGET MS [STALE_AFTER_MS]
//                                                   "acquired" (exit 0) or "timeout" (exit 2);
//                                                   MS < 0 waits for ever; the module's own
//                                                   staleAfterMs unless given
//   node module-driver.mjs count TARGET COUNTER N   N critical sections on COUNTER, the
//                                                   protocol of tests/helpers/fl-test-counter.c
//   node module-driver.mjs sections TARGET COUNTER N
//                                                   the same, then "done", and exits only when
//                                                   stdin closes (no holder exits while others
//                                                   work: test-interop-portable.c says why)
//   node module-driver.mjs judge STALE_AFTER_MS CONTENT-FILE...
//                                                   for each file, a lock with its bytes and its
//                                                   mtime, offered to withFileLock() with that
//                                                   staleAfterMs: "taken" if the module took it
//                                                   over, "held" if it timed out
//   node module-driver.mjs cycle TARGET N           N uncontended acquire+release cycles after
//                                                   a warm-up; prints ns per cycle (fl-bench)
//   node module-driver.mjs soak LOCK_DIR STATE_DIR LOG N_TARGETS SEED
//                                                   the soak's worker (tests/soak/soak-worker.c)
//                                                   as the module: random targets, the soak's
//                                                   critical section (soak-section.c), the same
//                                                   log lines; stops at STATE_DIR/STOP or
//                                                   STATE_DIR/STOP-NODE (Linux: it reads /proc)
//
// FL_NODE_REFERENCE may also name another module with the same withFileLock(): tests/node
// drives libfl's Node.js package (bindings/node/lib/index.mjs) through the same commands.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const EXIT_TIMEOUT = 2;
const EXIT_OVERLAP = 3;
const EXIT_FAILED = 4;

// Long enough for the module's first try and a few polls (it decides on its first); a verdict
// never depends on it, since every content is decided at once or by the mtime it was given.
const JUDGE_TIMEOUT_MS = 60;

async function loadModule() {
  const where = process.env.FL_NODE_REFERENCE;
  if (!where || !fs.existsSync(where)) {
    process.stderr.write(`module-driver.mjs: the real module is not installed (FL_NODE_REFERENCE=` +
                         `${where ?? '(unset)'}): run build-aux/install-deps\n`);
    process.exit(EXIT_FAILED);
  }
  return import(pathToFileURL(where).href);
}

function isTimeout(e) {
  return e && e.code === 'ELOCKTIMEOUT';
}

// Blocks until stdin closes: the module's critical section is synchronous.
function waitStdinEof() {
  const buf = Buffer.alloc(256);
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === 'EAGAIN')
        continue;
      if (e.code === 'EOF')
        return;
      throw e;
    }
    if (n === 0)
      return;
  }
}

// fl-test-counter.c's critical section: a marker made by link(), a counter read, bumped and
// written back, and the marker checked to be still ours.
function criticalSection(counter) {
  const marker = `${counter}.holder`;
  const me = String(process.pid);
  const temp = `${marker}.${me}`;
  try { fs.unlinkSync(temp); } catch (e) { /* none */ }
  fs.writeFileSync(temp, me, { flag: 'wx' });
  try {
    fs.linkSync(temp, marker);
  } catch (e) {
    fs.unlinkSync(temp);
    if (e.code === 'EEXIST') {
      process.stderr.write(`OVERLAP: ${me} entered while ${fs.readFileSync(marker, 'utf8')} holds it\n`);
      return EXIT_OVERLAP;
    }
    throw e;
  }
  fs.unlinkSync(temp);

  let text = '';
  try { text = fs.readFileSync(counter, 'utf8'); } catch (e) { /* a new counter */ }
  const value = text === '' ? 0 : parseInt(text, 10);
  fs.writeFileSync(counter, String(value + 1).padStart(20, '0'));

  if (fs.readFileSync(marker, 'utf8') !== me) {
    process.stderr.write(`OVERLAP: marker ${marker} was replaced under ${me}\n`);
    return EXIT_OVERLAP;
  }
  fs.unlinkSync(marker);
  return 0;
}

// The soak's critical section, as tests/soak/helpers/soak-section.c does it: the marker names
// its holder by PID and start time ("PID START", field 22 of /proc/PID/stat), so that a holder
// the chaos killed is told from a live one whose PID came later. Returns 0, or EXIT_OVERLAP
// after logging "overlap K PID ...".
const PF_EXITING = 0x4;

function procStart(pid) {
  let text;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (e) {
    return null;
  }
  // The fields after the command name: [0] is field 3 (state), [6] field 9 (flags), [19]
  // field 22 (start time). A zombie or a process past PF_EXITING is no longer inside.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  if (f[0] === 'Z' || f[0] === 'X' || (Number(f[6]) & PF_EXITING) !== 0)
    return null;
  return f[19];
}

function readMarker(path) {
  let text;
  try {
    text = fs.readFileSync(path, 'latin1');
  } catch (e) {
    return null;
  }
  const m = /^(-?\d+) (\d+)/.exec(text);
  return m ? { pid: Number(m[1]), start: m[2] } : null;
}

function holderIsAlive(h) {
  return h.pid > 0 && procStart(h.pid) === h.start;
}

function soakSection(counter, k, log) {
  const marker = `${counter}.holder`;
  const temp = `${marker}.${process.pid}`;
  const me = { pid: process.pid, start: procStart(process.pid) };
  const overlap = (other, why) => {
    log(`overlap ${k} ${other ? other.pid : 0} (start ${other ? other.start : 0}, ` +
        `${other && holderIsAlive(other) ? 'alive' : 'gone'}); the module's worker ${me.pid}: ${why}\n`);
    return EXIT_OVERLAP;
  };

  try { fs.unlinkSync(temp); } catch (e) { /* none */ }
  fs.writeFileSync(temp, `${me.pid} ${me.start}`, { flag: 'wx' });
  for (let attempt = 0; ; attempt++) {
    try {
      fs.linkSync(temp, marker);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') {
        fs.unlinkSync(temp);
        throw e;
      }
    }
    // We hold the lock: the marker can only be a dead holder's, left once.
    const other = readMarker(marker);
    if (other === null || holderIsAlive(other) || attempt > 0) {
      fs.unlinkSync(temp);
      return overlap(other, `entered the critical section while it was held (${marker})`);
    }
    const aside = `${marker}.dead.${process.pid}`;
    try {
      fs.renameSync(marker, aside);
    } catch (e) {
      if (e.code === 'ENOENT')
        continue;
      throw e;
    }
    const moved = readMarker(aside);
    if (moved === null || moved.pid !== other.pid || moved.start !== other.start) {
      fs.unlinkSync(temp);
      return overlap(moved, `marker ${marker} changed while being removed`);
    }
    fs.unlinkSync(aside);
  }
  fs.unlinkSync(temp);

  const fd = fs.openSync(counter, fs.constants.O_RDWR | fs.constants.O_CREAT |
                         fs.constants.O_NOFOLLOW, 0o644);
  try {
    const buf = Buffer.alloc(31);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const value = n === 0 ? 0 : parseInt(buf.toString('latin1', 0, n), 10);
    // Fixed width and one write: a holder stopped here never leaves a torn number.
    if (fs.writeSync(fd, Buffer.from(String(value + 1).padStart(20, '0')), 0, 20, 0) !== 20)
      throw new Error(`short write to ${counter}`);
  } finally {
    fs.closeSync(fd);
  }

  const now = readMarker(marker);
  if (now === null || now.pid !== me.pid || now.start !== me.start)
    return overlap(now, `marker ${marker} was replaced under it`);
  fs.unlinkSync(marker);
  return 0;
}

// The soak's loop, as soak-worker.c runs it with libfl, but through withFileLock(): the same
// 3 s timeout (a timeout is logged, not a failure), one log line per event, one write each.
function soak(withFileLock, lockDir, stateDir, logPath, nTargets, seed) {
  const log = (line) => fs.appendFileSync(logPath, line);
  const stops = [path.join(stateDir, 'STOP'), path.join(stateDir, 'STOP-NODE')];
  const noLock = process.env.FL_SOAK_NO_LOCK === '1';
  let state = (Number(seed) ^ process.pid) >>> 0 || 1;

  while (!stops.some((p) => fs.existsSync(p))) {
    // xorshift32: a random target, replayable from the soak's seed and this PID.
    state ^= state << 13; state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5; state >>>= 0;
    const k = state % nTargets;
    const target = path.join(lockDir, `t${k}`);
    const section = () => soakSection(path.join(stateDir, `t${k}.count`), k, log);
    let ret;
    try {
      // FL_SOAK_NO_LOCK=1 checks the harness, as soak-worker.c does: without the lock, the
      // section's check must see overlaps.
      ret = noLock ? section() : withFileLock(target, section, { timeoutMs: 3000 });
    } catch (e) {
      if (!isTimeout(e)) {
        log(`error ${k} the module's worker ${process.pid}: ${e.message.replace(/\n/g, ' ')}\n`);
        return EXIT_FAILED;
      }
      log(`timeout ${k}\n`);
      continue;
    }
    if (ret !== 0)
      return ret;
    log(`cs ${k}\n`);
  }
  return 0;
}

// One verdict of the module's own: a lock with @file's bytes and mtime, in a folder of its own.
function judge(withFileLock, staleAfterMs, file) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'module-driver-'));
  try {
    const target = path.join(dir, 't');
    const st = fs.statSync(file);
    fs.writeFileSync(`${target}.lock`, fs.readFileSync(file));
    fs.utimesSync(`${target}.lock`, st.atimeMs / 1000, st.mtimeMs / 1000);
    let ran = false;
    try {
      withFileLock(target, () => { ran = true; },
                   { timeoutMs: JUDGE_TIMEOUT_MS, retryIntervalMs: 5, staleAfterMs });
    } catch (e) {
      if (!isTimeout(e))
        throw e;
    }
    return ran ? 'taken' : 'held';
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv) {
  const usage = 'usage: module-driver.mjs hold TARGET | acquire TARGET MS [STALE_AFTER_MS] | ' +
                'count TARGET COUNTER N | sections TARGET COUNTER N | judge STALE_AFTER_MS CONTENT-FILE... | cycle TARGET N | ' +
                'soak LOCK_DIR STATE_DIR LOG N_TARGETS SEED\n';
  const known = { hold: 2, acquire: 3, count: 4, sections: 4, cycle: 3, soak: 6 };
  if (!(known[argv[0]] === argv.length || (argv[0] === 'judge' && argv.length >= 3) ||
        (argv[0] === 'acquire' && argv.length === 4))) {
    process.stderr.write(usage);
    return 64;
  }
  const { withFileLock } = await loadModule();
  const forever = { timeoutMs: Infinity };

  switch (argv[0]) {
    case 'hold':
      withFileLock(argv[1], () => {
        process.stdout.write(`held ${process.pid}\n`);
        waitStdinEof();
      }, forever);
      return 0;
    case 'acquire': {
      const ms = Number(argv[2]);
      const options = ms < 0 ? { ...forever } : { timeoutMs: ms };
      if (argv[3] !== undefined)
        options.staleAfterMs = Number(argv[3]);
      try {
        withFileLock(argv[1], () => {}, options);
      } catch (e) {
        if (!isTimeout(e))
          throw e;
        process.stdout.write('timeout\n');
        return EXIT_TIMEOUT;
      }
      process.stdout.write('acquired\n');
      return 0;
    }
    case 'count':
    case 'sections':
      for (let i = 0; i < Number(argv[3]); i++) {
        const ret = withFileLock(argv[1], () => criticalSection(argv[2]), forever);
        if (ret !== 0)
          return ret;
      }
      if (argv[0] === 'sections') {
        process.stdout.write('done\n');
        waitStdinEof();
      }
      return 0;
    case 'cycle': {
      // For fl-bench: a fixed warm-up (the same in every run, so that strace's counts of two
      // runs differ by the cycles alone), then N cycles; prints nanoseconds per cycle.
      const n = Number(argv[2]);
      for (let i = 0; i < 200; i++)
        withFileLock(argv[1], () => {}, forever);
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++)
        withFileLock(argv[1], () => {}, forever);
      const ns = Number(process.hrtime.bigint() - start);
      process.stdout.write(`${n > 0 ? ns / n : 0}\n`);
      return 0;
    }
    case 'soak':
      return soak(withFileLock, argv[1], argv[2], argv[3], Number(argv[4]), argv[5]);
    default: {
      const staleAfterMs = Number(argv[1]);
      for (const file of argv.slice(2))
        process.stdout.write(`${judge(withFileLock, staleAfterMs, file)}\n`);
      return 0;
    }
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`module-driver.mjs: ${e.message}\n`);
  process.exitCode = EXIT_FAILED;
}
