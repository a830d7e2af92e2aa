// records.test.mjs: status() and scan() say what `flctl status -j` and `flctl list -j` say
// (flctl's whole records; `-J` is the table's columns as JSON)
//
// The same members in the same order, with the same values (age_s may have ticked by one).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { holder, pkg, tempDir } from './helpers.mjs';

const flctl = process.env.FLCTL;

function flctlJson(args) {
  let out;
  try {
    out = execFileSync(flctl, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (e) {
    out = e.stdout;    // nonzero when a lock is stale or a listing incomplete
  }
  return JSON.parse(out);
}

function assertSameRecord(ours, theirs, where) {
  assert.deepEqual(Object.keys(ours), Object.keys(theirs), `${where}: the members`);
  for (const key of Object.keys(theirs)) {
    if (key === 'age_s' && typeof theirs.age_s === 'number')
      assert.ok(Math.abs(ours.age_s - theirs.age_s) <= 1, `${where}: age_s`);
    else if (key !== 'waiters')
      assert.deepEqual(ours[key], theirs[key], `${where}: ${key}`);
  }
}

test('status() of a held, a stale and an unlocked target, and of a lock file', async (t) => {
  const dir = tempDir(t);
  const held = path.join(dir, 'held');
  const stale = path.join(dir, 'stale');
  const free = path.join(dir, 'free');
  const other = await holder('module', held);
  t.after(() => other.release());
  fs.writeFileSync(`${stale}.lock`, '999999999');
  for (const p of [held, stale, free, `${held}.lock`]) {
    const [theirs] = flctlJson(['status', '-j', p]);
    assertSameRecord(pkg.status(p), theirs, p);
  }
  assert.equal(pkg.status(held).state, 'held');
  assert.equal(pkg.status(held).pid, other.pid);
  assert.equal(pkg.status(stale).state, 'stale');
  assert.equal(pkg.status(free).state, 'unlocked');
});

test('scan() lists what flctl list -j lists, recursively too', async (t) => {
  const dir = tempDir(t);
  fs.mkdirSync(path.join(dir, 'sub'));
  const other = await holder('package', path.join(dir, 'a'));
  t.after(() => other.release());
  fs.writeFileSync(path.join(dir, 'b.lock'), '999999999');
  fs.writeFileSync(path.join(dir, 'sub', 'c.lock'), '');
  fs.writeFileSync(path.join(dir, 'b.lock.4242.0badcafe.tmp'), '4242');
  for (const recursive of [false, true]) {
    const ours = pkg.scan(dir, { recursive });
    const theirs = flctlJson(['list', '-j', ...(recursive ? ['-R'] : []), dir]);
    assert.equal(ours.length, theirs.length);
    assert.equal(ours.length, recursive ? 4 : 3);
    assert.deepEqual(ours.errors, []);
    ours.forEach((record, i) => assertSameRecord(record, theirs[i], theirs[i].path));
  }
});
