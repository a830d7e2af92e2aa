// async.test.mjs: withFileLockAsync() and lock(): waits off the event loop, ends at an
// AbortSignal, leaves nothing behind
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { holder, pkg, tempDir, timeScale, waitFor } from './helpers.mjs';

// The threads of this process (Linux): a wait's thread must be gone once it ended.
function threadCount() {
  return fs.readdirSync('/proc/self/task').length;
}

// What a test may leave in its directory: nothing of the package's (temp files, graveyards,
// lock files other than the holder's).
function leftovers(dir, except) {
  return fs.readdirSync(dir).filter((n) => !except.includes(n));
}

// The event loop runs while the wait lasts: an interval timer of 10 ms keeps firing, with no
// gap longer than the bound (250 ms x FL_TEST_TIME_SCALE: a loop blocked by the wait would
// show a gap as long as the wait, 1000 ms or more; a busy machine delays a timer by less).
test('the event loop keeps running while withFileLockAsync waits', async (t) => {
  const dir = tempDir(t);
  const target = path.join(dir, 'x');
  const other = await holder('package', target);
  const BOUND_MS = 250 * timeScale;
  const HOLD_MS = 1000 * timeScale;
  let ticks = 0;
  let last = performance.now();
  let worstGap = 0;
  const interval = setInterval(() => {
    const now = performance.now();
    worstGap = Math.max(worstGap, now - last);
    last = now;
    ticks++;
  }, 10);
  const releaser = setTimeout(() => other.release(), HOLD_MS);
  const started = performance.now();
  const result = await pkg.withFileLockAsync(target, async (lost) => {
    assert.equal(lost.aborted, false);
    return 'inside';
  }, { timeoutMs: 30000 * timeScale });
  const waited = performance.now() - started;
  clearInterval(interval);
  clearTimeout(releaser);
  assert.equal(result, 'inside');
  assert.ok(waited >= HOLD_MS * 0.9, `it waited for the holder (${waited} ms)`);
  assert.ok(ticks >= 10, `the timer fired ${ticks} times during a ${waited} ms wait`);
  assert.ok(worstGap <= BOUND_MS, `the longest gap between ticks was ${worstGap} ms ` +
                                  `(bound ${BOUND_MS} ms)`);
  assert.equal(pkg.isLocked(target), false);
});

test('an AbortSignal ends the wait and leaves nothing behind', async (t) => {
  const dir = tempDir(t);
  const target = path.join(dir, 'x');
  const other = await holder('package', target);
  t.after(() => other.release());
  const threadsBefore = threadCount();
  const controller = new AbortController();
  const reason = new Error('the user went away');
  const waiting = pkg.withFileLockAsync(target, async () => 'never',
                                        { signal: controller.signal, timeoutMs: Infinity });
  // The wait is running (its thread exists) before it is aborted.
  await waitFor(() => threadCount() > threadsBefore, 5000, 'the wait to start');
  const abortedAt = performance.now();
  controller.abort(reason);
  await assert.rejects(waiting, (e) => {
    assert.equal(e.name, 'AbortError');
    assert.equal(e.code, 'ABORT_ERR');
    assert.equal(e.cause, reason);
    assert.equal(e.lockPath, `${target}.lock`);
    return true;
  });
  assert.ok(performance.now() - abortedAt < 1000 * timeScale, 'the wait ended promptly');
  await waitFor(() => threadCount() === threadsBefore, 5000, 'the wait\'s thread to end');
  assert.deepEqual(leftovers(dir, ['x.lock']), []);
  assert.equal(pkg.status(target).pid, other.pid, 'the holder is untouched');
  await other.release();
  // Nothing of the aborted wait holds or claims the lock: it is free and taken at once.
  assert.equal(pkg.isLocked(target), false);
  assert.equal(pkg.withFileLock(target, () => 'free', { timeoutMs: 0 }), 'free');
  assert.deepEqual(leftovers(dir, []), []);
});

test('an already aborted signal rejects without waiting', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const reason = new Error('before');
  await assert.rejects(pkg.lock(target, { signal: AbortSignal.abort(reason) }),
                       (e) => e.name === 'AbortError' && e.cause === reason);
  assert.equal(pkg.isLocked(target), false);
});

test('lock() hands out a handle: held, fencingToken, release', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const handle = await pkg.lock(target);
  assert.equal(handle.held, true);
  assert.equal(handle.fencingToken, null, 'a file lock has no fencing token');
  assert.equal(handle.lockPath, `${target}.lock`);
  assert.equal(pkg.status(target).pid, process.pid);
  handle.release();
  assert.equal(handle.held, false);
  handle.release();   // twice: nothing
  assert.equal(pkg.isLocked(target), false);
});

test('async sections of one thread on one lock take turns', async (t) => {
  const target = path.join(tempDir(t), 'x');
  let inside = 0;
  let most = 0;
  const section = async () => {
    inside++;
    most = Math.max(most, inside);
    await new Promise((r) => setImmediate(r));
    inside--;
  };
  await Promise.all(Array.from({ length: 6 }, () => pkg.withFileLockAsync(target, section)));
  assert.equal(most, 1);
});

test('withFileLockAsync releases when asyncFn rejects, and rejects with its error', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const thrown = new Error('inside');
  await assert.rejects(pkg.withFileLockAsync(target, async () => { throw thrown; }),
                       (e) => e === thrown);
  assert.equal(pkg.isLocked(target), false);
});

test('a timeout rejects with ELOCKTIMEOUT naming the holder', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const other = await holder('module', target);
  t.after(() => other.release());
  await assert.rejects(pkg.withFileLockAsync(target, async () => {}, { timeoutMs: 100 }),
                       (e) => e.code === 'ELOCKTIMEOUT' && e.lockPath === `${target}.lock`
                              && e.message.includes(String(other.pid)));
});
