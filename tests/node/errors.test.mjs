// errors.test.mjs: bad input is an error a Node user expects, never a crash
//
// Wrong types, a closed or foreign handle, a released lock, a lock asked for twice, a worker
// thread that exits or is terminated while it holds or waits: each ends in a TypeError,
// RangeError or an Error with code/path/lockPath, and leaves no lock behind.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { holder, packageEntry, pkg, tempDir, waitFor } from './helpers.mjs';

const code = (c) => (e) => { assert.equal(e.code, c, e.message); return true; };

test('wrong argument types are TypeErrors with ERR_INVALID_ARG_TYPE', async (t) => {
  const target = path.join(tempDir(t), 'x');
  for (const bad of [undefined, null, 42, {}, [], Symbol('s'), 10n, () => 'x'])
    for (const fn of [pkg.withFileLock, pkg.isLocked, pkg.lockDirFor, pkg.status, pkg.lockSync])
      assert.throws(() => fn(bad, () => {}), code('ERR_INVALID_ARG_TYPE'));
  assert.throws(() => pkg.scan(42), code('ERR_INVALID_ARG_TYPE'));
  assert.throws(() => pkg.scan(tempDir(t), { recursive: 'yes' }), code('ERR_INVALID_ARG_TYPE'));
  assert.throws(() => pkg.withFileLock(target, 'not a function'), code('ERR_INVALID_ARG_TYPE'));
  assert.throws(() => pkg.withFileLock(target, () => {}, 'options'), code('ERR_INVALID_ARG_TYPE'));
  assert.throws(() => pkg.withFileLock(target, () => {}, { timeoutMs: '5' }),
                code('ERR_INVALID_ARG_TYPE'));
  assert.throws(() => pkg.withFileLock('a\0b', () => {}), code('ERR_INVALID_ARG_VALUE'));
  await assert.rejects(pkg.lock(42), code('ERR_INVALID_ARG_TYPE'));
  await assert.rejects(pkg.lock(target, { signal: 'no' }), code('ERR_INVALID_ARG_TYPE'));
  await assert.rejects(pkg.withFileLockAsync(target, 5), code('ERR_INVALID_ARG_TYPE'));
  assert.equal(pkg.isLocked(target), false);
});

test('durations out of range are RangeErrors; Infinity and 0 are accepted', async (t) => {
  const target = path.join(tempDir(t), 'x');
  for (const name of ['timeoutMs', 'retryIntervalMs', 'staleAfterMs'])
    for (const bad of [-1, NaN, -Infinity])
      assert.throws(() => pkg.withFileLock(target, () => {}, { [name]: bad }),
                    code('ERR_OUT_OF_RANGE'));
  assert.equal(pkg.withFileLock(target, () => 1, { timeoutMs: Infinity, staleAfterMs: Infinity,
                                                   retryIntervalMs: Infinity }), 1);
  assert.equal(pkg.withFileLock(target, () => 2, { timeoutMs: 0, retryIntervalMs: 0 }), 2);
});

test('a released handle, a foreign object and a second release', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const handle = pkg.lockSync(target);
  handle.release();
  handle.release();
  assert.equal(handle.held, false);
  assert.equal(handle.fencingToken, null);
  const { LockHandle } = pkg;
  assert.throws(() => LockHandle.prototype.release.call({}), TypeError);
  assert.throws(() => Object.getOwnPropertyDescriptor(LockHandle.prototype, 'held').get.call(
    Object.create(LockHandle.prototype)), TypeError);
});

test('a lock this thread holds is refused at once, not waited for', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const started = Date.now();
  pkg.withFileLock(target, () => {
    assert.throws(() => pkg.withFileLock(target, () => {}, { timeoutMs: 5000 }), (e) => {
      assert.equal(e.code, 'ELOCKHELDBYSELF');
      assert.equal(e.lockPath, `${target}.lock`);
      return true;
    });
  });
  assert.ok(Date.now() - started < 4000);
  assert.equal(pkg.isLocked(target), false);
});

test('a lock taken away is reported on release as ELOCKLOST, and nothing removed', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const handle = pkg.lockSync(target);
  // Someone removes the lock and another takes it: the release must not remove theirs.
  fs.unlinkSync(`${target}.lock`);
  const other = await holder('module', target);
  t.after(() => other.release());
  assert.throws(() => handle.release(), (e) => {
    assert.equal(e.code, 'ELOCKLOST');
    assert.equal(e.lockPath, `${target}.lock`);
    return true;
  });
  assert.equal(fs.readFileSync(`${target}.lock`, 'utf8'), String(other.pid));
});

test('errors of the file system name the path and say what to do', async (t) => {
  const dir = tempDir(t);
  fs.mkdirSync(path.join(dir, 'x.lock'));   // a directory where the lock file would be
  assert.throws(() => pkg.withFileLock(path.join(dir, 'x'), () => {}, { timeoutMs: 0 }), (e) => {
    assert.equal(e.code, 'ELOCKFOREIGN');
    assert.equal(e.path, path.join(dir, 'x'));
    assert.match(e.message, /x\.lock/);
    return true;
  });
  assert.throws(() => pkg.scan(path.join(dir, 'missing')), (e) => typeof e.code === 'string'
                && e.message.includes('missing'));
});

function runWorker(source, options = {}) {
  const worker = new Worker(source, { eval: true, workerData: { entry: packageEntry, ...options } });
  const messages = [];
  worker.on('message', (m) => messages.push(m));
  const exit = new Promise((resolve) => worker.on('exit', resolve));
  return { worker, messages, exit };
}

test('a worker thread that exits holding a lock leaves it free', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const { messages, exit } = runWorker(`
    const { workerData, parentPort } = require('node:worker_threads');
    import(workerData.entry).then(async (fl) => {
      const a = fl.lockSync(workerData.target);
      const b = await fl.lock(workerData.target + '2');
      parentPort.postMessage([a.held, b.held]);
      process.exit(0);      // neither released
    });`, { target });
  assert.equal(await exit, 0);
  assert.deepEqual(messages, [[true, true]]);
  assert.equal(pkg.isLocked(target), false);
  assert.equal(pkg.isLocked(target + '2'), false);
  assert.equal(pkg.withFileLock(target, () => 'free', { timeoutMs: 0 }), 'free');
});

test('a worker thread terminated while it waits and while it holds leaves nothing', async (t) => {
  const dir = tempDir(t);
  const target = path.join(dir, 'x');
  const other = await holder('package', target);
  const { worker, messages, exit } = runWorker(`
    const { workerData, parentPort } = require('node:worker_threads');
    import(workerData.entry).then(async (fl) => {
      const h = fl.lockSync(workerData.target + '2');
      parentPort.postMessage('holding');
      await fl.lock(workerData.target, { timeoutMs: Infinity });
      parentPort.postMessage('never');
    });`, { target });
  await waitFor(() => messages.length > 0, 10000, 'the worker to hold its lock');
  await worker.terminate();
  await exit;
  assert.deepEqual(messages, ['holding']);
  assert.equal(pkg.isLocked(target + '2'), false);
  await other.release();
  assert.equal(pkg.isLocked(target), false, 'the terminated wait did not take it');
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('worker threads of one process wait for each other on one lock', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const handle = pkg.lockSync(target);
  const { messages, exit } = runWorker(`
    const { workerData, parentPort } = require('node:worker_threads');
    import(workerData.entry).then((fl) => {
      parentPort.postMessage('waiting');
      fl.withFileLock(workerData.target, () => parentPort.postMessage('inside'),
                      { timeoutMs: 60000 });
    });`, { target });
  await waitFor(() => messages.length > 0, 10000, 'the worker to wait');
  assert.deepEqual(messages, ['waiting']);
  handle.release();
  assert.equal(await exit, 0);
  assert.deepEqual(messages, ['waiting', 'inside']);
});
