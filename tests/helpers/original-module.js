// original-module.js: the Node.js module's lock algorithm, in plain Node (no npm packages)
//
// The reference libfl must never be less cautious than (docs/protocol.md, J4). It is what a
// service still running the module does, flaws included: no kernel lock, no identity, a poll
// every 15 ms, a takeover by rename that puts back with rename.
//
//   node original-module.js hold TARGET              acquire, print "held <pid>", release when
//                                                    stdin closes
//   node original-module.js acquire TARGET MS        "acquired" (exit 0) or "timeout" (exit 2)
//   node original-module.js count TARGET COUNTER N   N critical sections on COUNTER, the
//                                                    protocol of tests/helpers/fl-test-counter.c
//   node original-module.js judge CONTENT-FILE...    "alive" or "dead" for each, by the module's
//                                                    isAlive
//   node original-module.js cycle TARGET N           N uncontended acquire+release cycles after
//                                                    a warm-up; prints ns per cycle (fl-bench)
//
// SPDX-License-Identifier: LGPL-2.1-or-later
'use strict';

const fs = require('fs');
const crypto = require('crypto');

const POLL_MS = 15;
const EXIT_OVERLAP = 3;
const EXIT_FAILED = 4;

// The common idiom: "exists" is alive, EPERM included; whatever kill() throws otherwise
// (ESRCH, or ERR_INVALID_ARG_TYPE for a value that is not an int32) is dead.
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function readPid(path) {
  return Number(fs.readFileSync(path, 'utf8').trim());
}

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function tag() {
  return crypto.randomBytes(4).toString('hex');
}

function takeOver(lock, judged) {
  const gy = `${lock}.gy.${process.pid}.${tag()}`;
  try {
    fs.renameSync(lock, gy);
  } catch (e) {
    return;
  }
  let back;
  try {
    back = readPid(gy);
  } catch (e) {
    return;
  }
  // The PID read back is compared as a number, as the module does: NaN is never equal.
  if (back !== judged)
    fs.renameSync(gy, lock);
  else
    fs.unlinkSync(gy);
}

// Returns true once held, false at the deadline (timeoutMs < 0: never).
function acquire(target, timeoutMs) {
  const lock = `${target}.lock`;
  const deadline = timeoutMs < 0 ? -1 : Date.now() + timeoutMs;

  for (;;) {
    const temp = `${lock}.${process.pid}.${tag()}.tmp`;
    fs.writeFileSync(temp, String(process.pid), { flag: 'wx' });
    try {
      fs.linkSync(temp, lock);
      fs.unlinkSync(temp);
      return true;
    } catch (e) {
      fs.unlinkSync(temp);
      if (e.code !== 'EEXIST')
        throw e;
    }

    let pid;
    try {
      pid = readPid(lock);
    } catch (e) {
      if (e.code === 'ENOENT')
        continue;
      throw e;
    }
    if (!isAlive(pid)) {
      takeOver(lock, pid);
      continue;
    }
    if (deadline >= 0 && Date.now() >= deadline)
      return false;
    sleepMs(POLL_MS);
  }
}

function release(target) {
  try {
    fs.unlinkSync(`${target}.lock`);
  } catch (e) {
    // blind, as the module
  }
}

function withFileLock(target, fn) {
  acquire(target, -1);
  try {
    return fn();
  } finally {
    release(target);
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

function main(argv) {
  if (argv.length === 2 && argv[0] === 'hold') {
    acquire(argv[1], -1);
    process.stdout.write(`held ${process.pid}\n`);
    process.stdin.resume();
    process.stdin.on('end', () => {
      release(argv[1]);
      process.exit(0);
    });
    return undefined;
  }
  if (argv.length === 3 && argv[0] === 'acquire') {
    const ok = acquire(argv[1], Number(argv[2]));
    process.stdout.write(ok ? 'acquired\n' : 'timeout\n');
    if (ok)
      release(argv[1]);
    return ok ? 0 : 2;
  }
  if (argv.length === 4 && argv[0] === 'count') {
    for (let i = 0; i < Number(argv[3]); i++) {
      const ret = withFileLock(argv[1], () => criticalSection(argv[2]));
      if (ret !== 0)
        return ret;
    }
    return 0;
  }
  if (argv.length === 3 && argv[0] === 'cycle') {
    // For fl-bench: a fixed warm-up (the same in every run, so that strace's counts of two
    // runs differ by the cycles alone), then N cycles; prints nanoseconds per cycle.
    const n = Number(argv[2]);
    for (let i = 0; i < 200; i++) {
      acquire(argv[1], -1);
      release(argv[1]);
    }
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      acquire(argv[1], -1);
      release(argv[1]);
    }
    const ns = Number(process.hrtime.bigint() - start);
    process.stdout.write(`${n > 0 ? ns / n : 0}\n`);
    return 0;
  }
  if (argv.length >= 2 && argv[0] === 'judge') {
    for (const file of argv.slice(1))
      process.stdout.write(isAlive(readPid(file)) ? 'alive\n' : 'dead\n');
    return 0;
  }
  process.stderr.write('usage: original-module.js hold TARGET | acquire TARGET MS | ' +
                       'count TARGET COUNTER N | judge CONTENT-FILE... | cycle TARGET N\n');
  return 64;
}

let status;
try {
  status = main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`original-module.js: ${e.message}\n`);
  status = EXIT_FAILED;
}
if (status !== undefined)
  process.exitCode = status;
