// cycles.test.mjs: 100,000 lock/unlock cycles, and the memory stays where it was
//
// RSS is read after a warm-up of 5,000 cycles (the JIT's code, V8's heap at its working size,
// GLib's and libfl's one-time allocations), then after 100,000 more, each time after a full
// garbage collection. A leak of one small allocation per cycle (a path, a GError, a handle's
// wrapper) is 100,000 x >= 32 bytes = 3.2 MB or more: the bound is 2 MB.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';

import { pkg, tempDir } from './helpers.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

const WARM_UP = 5000;
const CYCLES = 100000;
const BOUND_BYTES = 2 * 1024 * 1024;

// Node-API finalizers run after the collection, from the event loop: it turns twice.
async function rssAfterGc() {
  for (let i = 0; i < 2; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage.rss();
}

test(`${CYCLES} withFileLock cycles: RSS grows by less than 2 MB`, async (t) => {
  const target = path.join(tempDir(t), 'x');
  let n = 0;
  const section = () => { n++; };
  for (let i = 0; i < WARM_UP; i++)
    pkg.withFileLock(target, section);
  const before = await rssAfterGc();
  for (let i = 0; i < CYCLES; i++)
    pkg.withFileLock(target, section);
  const growth = await rssAfterGc() - before;
  assert.equal(n, WARM_UP + CYCLES);
  assert.equal(pkg.isLocked(target), false);
  t.diagnostic(`RSS growth over ${CYCLES} cycles: ${growth} bytes`);
  assert.ok(growth < BOUND_BYTES, `RSS grew by ${growth} bytes (bound ${BOUND_BYTES})`);
});

// A handle dropped while held is released by the garbage collector: nothing else could.
test('handles dropped while held are released when collected', async (t) => {
  const target = path.join(tempDir(t), 'x');
  const take = async (i) => {
    const handle = i % 2 === 0 ? pkg.lockSync(`${target}.${i}`) : await pkg.lock(`${target}.${i}`);
    assert.equal(handle.held, true);
  };
  for (let i = 0; i < 200; i++)
    await take(i);
  await rssAfterGc();
  for (const i of [0, 1, 100, 199])
    assert.equal(pkg.isLocked(`${target}.${i}`), false, `handle ${i} was released`);
});
