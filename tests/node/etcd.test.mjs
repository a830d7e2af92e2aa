// etcd.test.mjs: etcd:// targets through the same calls; a lost lease is a 'lost' event
//
// Against a real single-node etcd (Debian's etcd-server) on free loopback ports, as
// tests/etcd does. Without the etcd binary every test skips saying so; CI must not skip
// (build-aux/test: count-results --no-skip etcd).
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

import { pkg, timeScale, waitFor } from './helpers.mjs';

function which(program) {
  for (const dir of (process.env.PATH || '').split(':'))
    if (dir && fs.existsSync(path.join(dir, program)))
      return path.join(dir, program);
  return null;
}

const etcdBinary = which('etcd');
const etcdctl = which('etcdctl');
const skip = etcdBinary && etcdctl ? false
  : 'no etcd or etcdctl in PATH: install Debian\'s etcd-server and etcd-client ' +
    '(build-aux/install-deps)';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

let etcd = null;
let endpoint = null;
let dataDir = null;

before(async () => {
  if (skip)
    return;
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  dataDir = fs.mkdtempSync(path.join(base, 'fl-node-etcd-'));
  const [client, peer, metrics] = [await freePort(), await freePort(), await freePort()];
  endpoint = `127.0.0.1:${client}`;
  etcd = spawn(etcdBinary, [
    '--name', 's1', '--data-dir', path.join(dataDir, 'data'),
    '--listen-client-urls', `http://${endpoint}`, '--advertise-client-urls', `http://${endpoint}`,
    '--listen-peer-urls', `http://127.0.0.1:${peer}`,
    '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`,
    '--initial-cluster', `s1=http://127.0.0.1:${peer}`, '--initial-cluster-state', 'new',
    '--listen-metrics-urls', `http://127.0.0.1:${metrics}`,
  ], { stdio: ['ignore', 'ignore', fs.openSync(path.join(dataDir, 'etcd.log'), 'w')] });
  const deadline = Date.now() + 20000 * timeScale;
  for (;;) {
    try {
      const answer = await fetch(`http://${endpoint}/health`);
      if ((await answer.json()).health === 'true')
        break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline)
      throw new Error(`etcd did not answer /health (log: ${dataDir}/etcd.log)`);
    await new Promise((r) => setTimeout(r, 50));
  }
});

after(async () => {
  if (etcd) {
    etcd.kill('SIGKILL');
    await new Promise((r) => etcd.on('exit', r));
  }
  if (dataDir)
    fs.rmSync(dataDir, { recursive: true, force: true });
});

test('an etcd target: withFileLock, lock(), fencing tokens, status', { skip }, async () => {
  const target = `etcd://${endpoint}/libfl-node/counter`;
  assert.equal(pkg.withFileLock(target, () => 'inside'), 'inside');
  const first = await pkg.lock(target);
  const firstToken = first.fencingToken;
  assert.equal(typeof firstToken, 'number');
  assert.ok(firstToken > 0);
  const record = pkg.status(target);
  assert.equal(record.state, 'held');
  assert.equal(record.pid, process.pid);
  assert.equal(record.token, firstToken);
  assert.equal(typeof record.lease, 'string');
  first.release();
  assert.equal(pkg.status(target).state, 'unlocked');
  const second = pkg.lockSync(target);
  assert.ok(second.fencingToken > firstToken, 'the token grows from one holder to the next');
  second.release();
  assert.equal(pkg.isLocked(target), false);
});

test('a revoked lease: the handle emits lost, held turns false, release is ELOCKLOST',
     { skip }, async () => {
  const target = `etcd://${endpoint}/libfl-node/lost`;
  const handle = await pkg.lock(target, { leaseTtlS: 3 });
  let lost = 0;
  handle.on('lost', () => { lost++; });
  const lease = pkg.status(target).lease;
  execFileSync(etcdctl, ['--endpoints', endpoint, 'lease', 'revoke', lease],
               { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'ignore' });
  await waitFor(() => lost > 0, 10000, "the handle's 'lost' event");
  assert.equal(lost, 1);
  assert.equal(handle.held, false);
  assert.throws(() => handle.release(), (e) => e.code === 'ELOCKLOST' && e.path === target);
  // Another holder gets it.
  assert.equal(pkg.withFileLock(target, () => 'next', { timeoutMs: 10000 * timeScale }), 'next');
});

test('withFileLockAsync on etcd: its lost signal aborts when the lease goes', { skip }, async () => {
  const target = `etcd://${endpoint}/libfl-node/async`;
  await assert.rejects(pkg.withFileLockAsync(target, async (lost) => {
    const lease = pkg.status(target).lease;
    execFileSync(etcdctl, ['--endpoints', endpoint, 'lease', 'revoke', lease],
                 { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'ignore' });
    await new Promise((resolve, reject) => {
      lost.addEventListener('abort', () => reject(lost.reason));
      setTimeout(resolve, 10000 * timeScale);
    });
    return 'not lost';
  }, { leaseTtlS: 3 }), (e) => e.code === 'ELOCKLOST');
});
