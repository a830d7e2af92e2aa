// contract.test.mjs: the module's contract, kept by the package and by the module itself
//
// Every case runs against both: libfl's package and @dogfood-lab/findings' lib/file-lock.js
// (the pinned version tests/node-reference installs), so the two are seen to agree. What the
// package changes on purpose (docs/node.md) is tested after them, by name.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { holder, loadReference, packageDir, pkg, tempDir } from './helpers.mjs';

const impls = [['package', async () => pkg], ['module', loadReference]];

for (const [name, load] of impls) {
  test(`${name}: withFileLock returns fn's result and releases`, async (t) => {
    const { withFileLock, isLocked, lockDirFor } = await load();
    const target = path.join(tempDir(t), 'events.yaml');
    const seen = [];
    const result = withFileLock(target, () => {
      seen.push(isLocked(target), fs.existsSync(lockDirFor(target)));
      return { n: 42 };
    });
    assert.deepEqual(result, { n: 42 });
    assert.deepEqual(seen, [true, true]);
    assert.equal(isLocked(target), false);
    assert.equal(fs.existsSync(lockDirFor(target)), false);
  });

  test(`${name}: withFileLock releases when fn throws, and rethrows fn's error`, async (t) => {
    const { withFileLock, isLocked, lockDirFor } = await load();
    const target = path.join(tempDir(t), 'events.yaml');
    const thrown = new RangeError('inside');
    assert.throws(() => withFileLock(target, () => { throw thrown; }),
                  (e) => e === thrown);
    assert.equal(isLocked(target), false);
    assert.equal(fs.existsSync(lockDirFor(target)), false);
    assert.equal(withFileLock(target, () => 'again'), 'again');
  });

  test(`${name}: a held lock times out with ELOCKTIMEOUT and lockPath`, async (t) => {
    const { withFileLock, lockDirFor } = await load();
    const target = path.join(tempDir(t), 'events.yaml');
    const other = await holder('module', target);
    t.after(() => other.release());
    let ran = false;
    const err = (() => {
      try {
        withFileLock(target, () => { ran = true; }, { timeoutMs: 150, retryIntervalMs: 5 });
      } catch (e) {
        return e;
      }
      return null;
    })();
    assert.equal(ran, false);
    assert.ok(err instanceof Error);
    assert.equal(err.code, 'ELOCKTIMEOUT');
    assert.equal(err.lockPath, lockDirFor(target));
    assert.match(err.message, new RegExp(String(other.pid)), 'the message names the holder');
  });

  test(`${name}: isLocked and lockDirFor`, async (t) => {
    const { isLocked, lockDirFor } = await load();
    const dir = tempDir(t);
    const target = path.join(dir, 'a.json');
    assert.equal(lockDirFor(target), `${target}.lock`);
    assert.equal(lockDirFor('relative/x'), 'relative/x.lock');
    assert.equal(isLocked(target), false);
    const other = await holder('package', target);
    assert.equal(isLocked(target), true);
    await other.release();
    assert.equal(isLocked(target), false);
  });

  test(`${name}: withFileLock makes the target's missing directory`, async (t) => {
    const { withFileLock } = await load();
    const target = path.join(tempDir(t), 'new', 'deeper', 'x');
    assert.equal(withFileLock(target, () => 1), 1);
    assert.ok(fs.statSync(path.dirname(target)).isDirectory());
  });
}

// What the package says that the module did not.

test('package: the timeout names the holder as libfl does (PID, process, age)', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const other = await holder('package', target);
  t.after(() => other.release());
  assert.throws(() => pkg.withFileLock(target, () => {}, { timeoutMs: 50 }), (e) => {
    assert.equal(e.code, 'ELOCKTIMEOUT');
    assert.equal(e.path, target);
    assert.equal(e.lockPath, `${target}.lock`);
    assert.match(e.message, new RegExp(`PID ${other.pid}`));
    assert.match(e.message, /node/);
    return true;
  });
});

test('package: isLocked is false for a dead holder\'s lock, which the module calls locked',
     async (t) => {
  const reference = await loadReference();
  const target = path.join(tempDir(t), 'x');
  fs.writeFileSync(`${target}.lock`, '999999999');   // no such PID
  assert.equal(reference.isLocked(target), true);
  assert.equal(pkg.isLocked(target), false);
  assert.equal(pkg.withFileLock(target, () => 'taken over'), 'taken over');
});

test('package: CommonJS and ES module entry points give the same functions', async () => {
  const { createRequire } = await import('node:module');
  const cjs = createRequire(import.meta.url)(path.join(packageDir, 'lib', 'index.cjs'));
  for (const name of ['withFileLock', 'withFileLockAsync', 'lock', 'lockSync', 'isLocked',
                      'lockDirFor', 'status', 'scan']) {
    assert.equal(typeof cjs[name], 'function', name);
    assert.equal(pkg[name], cjs[name], name);
  }
});
