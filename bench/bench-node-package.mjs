// bench-node-package.mjs: libfl's Node.js package beside the module itself, under Node, in
// one run: the uncontended cycle and the handoff, as ratios (docs/node.md)
//
//   node bench/bench-node-package.mjs [--full]
//
// Needs LIBFL_NODE_ADDON (the addon meson built; build-aux/bench sets it) and the module
// build-aux/install-deps installed (FL_NODE_REFERENCE, or found in the default cache).
//
// Uncontended: withFileLock(target, () => {}) in a loop after a warm-up, by each in this
// process; the median of the rounds' ns per cycle. Handoff (as bench-handoff.c): two player
// processes pass the lock; the waiter says it is about to block, the holder keeps the lock a
// random 2-17 ms more (so the waiter is surely asleep, and a 15 ms poll cannot phase-lock),
// stamps CLOCK_MONOTONIC and releases; the waiter stamps when its withFileLock ran.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const packageEntry = path.join(here, '..', 'bindings', 'node', 'lib', 'index.mjs');

function referencePath() {
  if (process.env.FL_NODE_REFERENCE)
    return process.env.FL_NODE_REFERENCE;
  const cache = '/var/cache/libfl-node-reference';
  for (const d of fs.existsSync(cache) ? fs.readdirSync(cache) : []) {
    const p = path.join(cache, d, 'node_modules/@dogfood-lab/findings/lib/file-lock.js');
    if (fs.existsSync(p))
      return p;
  }
  throw new Error('the module is not installed: run build-aux/install-deps');
}

// A player: "hold MS" takes the lock, says "held", keeps it MS more (asleep: Atomics.wait),
// stamps and releases; "wait" stamps, says "waiting", takes the lock and says when it got it.
// Stamps are process.hrtime (CLOCK_MONOTONIC, one clock for every process of the machine).
async function player(entry, target) {
  const { withFileLock } = await import(pathToFileURL(entry).href);
  const lines = readline.createInterface({ input: process.stdin });
  const forever = { timeoutMs: Infinity };
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for await (const line of lines) {
    const [command, ms] = line.split(' ');
    if (command === 'hold') {
      let released;
      withFileLock(target, () => {
        process.stdout.write('held\n');
        Atomics.wait(sleeper, 0, 0, Number(ms));
        released = process.hrtime.bigint();
      }, forever);
      process.stdout.write(`released ${released}\n`);
    } else if (command === 'wait') {
      process.stdout.write(`waiting ${process.hrtime.bigint()}\n`);
      let acquired;
      withFileLock(target, () => { acquired = process.hrtime.bigint(); }, forever);
      process.stdout.write(`acquired ${acquired}\n`);
    }
  }
}

function spawnPlayer(entry, target) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--player', entry, target],
                      { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout });
  const queue = [];
  const waiters = [];
  lines.on('line', (l) => (waiters.length ? waiters.shift()(l) : queue.push(l)));
  return {
    child,
    send: (l) => child.stdin.write(`${l}\n`),
    next: () => new Promise((r) => (queue.length ? r(queue.shift()) : waiters.push(r))),
  };
}

async function handoff(entry, dir, rounds) {
  const target = path.join(dir, `handoff-${path.basename(path.dirname(entry))}`);
  const p = [spawnPlayer(entry, target), spawnPlayer(entry, target)];
  const samples = [];
  let dropped = 0;
  for (let i = 0; i < rounds; i++) {
    const [holder, waiter] = i % 2 === 0 ? p : [p[1], p[0]];
    // Long enough for the waiter to be told and to block, then 2-17 ms more.
    holder.send(`hold ${40 + 2 + Math.random() * 15}`);
    await holder.next();                          // held
    waiter.send('wait');
    const waiting = BigInt((await waiter.next()).split(' ')[1]);
    const released = BigInt((await holder.next()).split(' ')[1]);
    const acquired = BigInt((await waiter.next()).split(' ')[1]);
    // A waiter that was not yet waiting 2 ms before the release measured no handoff.
    if (released - waiting < 2_000_000n)
      dropped++;
    else
      samples.push(Number(acquired - released) / 1000);
  }
  if (dropped > rounds / 4)
    throw new Error(`${dropped} of ${rounds} handoffs had no waiter blocked: the machine is too busy`);
  for (const q of p)
    q.child.stdin.end();
  return samples;
}

async function uncontended(entry, dir, rounds, cycles) {
  const { withFileLock } = await import(pathToFileURL(entry).href);
  const target = path.join(dir, `uncontended-${rounds}-${cycles}-${Math.random()}`);
  const section = () => {};
  for (let i = 0; i < 2000; i++)
    withFileLock(target, section);
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < cycles; i++)
      withFileLock(target, section);
    samples.push(Number(process.hrtime.bigint() - start) / cycles);
  }
  return samples;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const full = process.argv.includes('--full');
  const rounds = full ? 9 : 5;
  const cycles = full ? 5000 : 1000;
  const handoffs = full ? 200 : 40;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-bench-node-'));
  try {
    const impls = [['package', packageEntry], ['module', referencePath()]];
    const result = {};
    for (const [name, entry] of impls)
      result[name] = {
        cycle: median(await uncontended(entry, dir, rounds, cycles)),
        handoff: median(await handoff(entry, dir, handoffs)),
      };
    console.log(`Node.js ${process.version}: libfl's package beside @dogfood-lab/findings' ` +
                `file-lock.js, one run (${rounds} x ${cycles} cycles, ${handoffs} handoffs)`);
    console.log('                          package      module   package/module');
    console.log(`uncontended cycle (us) ${(result.package.cycle / 1000).toFixed(1).padStart(10)} ` +
                `${(result.module.cycle / 1000).toFixed(1).padStart(11)} ` +
                `${(result.package.cycle / result.module.cycle).toFixed(2).padStart(10)}`);
    console.log(`handoff, median (us)   ${result.package.handoff.toFixed(0).padStart(10)} ` +
                `${result.module.handoff.toFixed(0).padStart(11)} ` +
                `${(result.package.handoff / result.module.handoff).toFixed(3).padStart(10)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--player')
  await player(process.argv[3], process.argv[4]);
else
  await main();
