// helpers.mjs: what the tests of libfl's Node.js package share
//
// The package is the source tree's bindings/node/lib with the addon meson built
// (LIBFL_NODE_ADDON); the real module is the one build-aux/install-deps installed
// (FL_NODE_REFERENCE); tests/helpers/module-driver.mjs runs either in a child process.
//
// SPDX-License-Identifier: LGPL-2.1-or-later

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function required(name) {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the tests through meson test`);
  return value;
}

export const packageDir = required('FL_NODE_PACKAGE');
export const packageEntry = path.join(packageDir, 'lib', 'index.mjs');
export const driver = required('FL_MODULE_DRIVER');
export const referencePath = required('FL_NODE_REFERENCE');

// FL_TEST_TIME_SCALE: the one multiplier of every deadline and bound on time
// (tests/helpers/fl-test-util.h); CI raises it on slow stages.
export const timeScale = Math.max(Number(process.env.FL_TEST_TIME_SCALE) || 1, 1);

export const pkg = await import(pathToFileURL(packageEntry).href);

// The module itself, or the reason it cannot be loaded (the test then fails saying so).
export async function loadReference() {
  if (!fs.existsSync(referencePath))
    throw new Error(`the real module is not installed at ${referencePath}: ` +
                    'run build-aux/install-deps');
  return import(pathToFileURL(referencePath).href);
}

export function tempDir(t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fl-node-test-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// The driver running `impl` ('package' or 'module'): its env names what it imports.
export function driverEnv(impl) {
  return { ...process.env,
           FL_NODE_REFERENCE: impl === 'package' ? packageEntry : referencePath };
}

export function spawnDriver(impl, args, options = {}) {
  return spawn(process.execPath, [driver, ...args],
               { env: driverEnv(impl), stdio: ['pipe', 'pipe', 'pipe'], ...options });
}

// Resolves with the first line a child prints, or rejects when it exits first.
export function firstLine(child) {
  return new Promise((resolve, reject) => {
    let text = '';
    let err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl >= 0)
        resolve(text.slice(0, nl));
    });
    child.on('exit', (code) => reject(new Error(`exited with ${code} before a line: ${err}`)));
  });
}

export function exitOf(child) {
  return new Promise((resolve) => {
    let err = '';
    child.stderr?.on('data', (d) => { err += d; });
    if (child.exitCode !== null)
      resolve({ code: child.exitCode, stderr: err });
    else
      child.on('exit', (code, signal) => resolve({ code: code ?? signal, stderr: err }));
  });
}

// A child holding TARGET's lock with `impl` until release() closes its stdin.
export async function holder(impl, target) {
  const child = spawnDriver(impl, ['hold', target]);
  const line = await firstLine(child);
  return {
    pid: child.pid,
    line,
    async release() {
      child.stdin.end();
      return exitOf(child);
    },
  };
}

// Waits until cond() is true, polling (a condition with a deadline, never a sleep as the
// synchronisation itself).
export async function waitFor(cond, ms, what) {
  const deadline = Date.now() + ms * timeScale;
  while (!cond()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${ms * timeScale} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export function readCounter(counter) {
  const text = fs.readFileSync(counter, 'utf8');
  return text === '' ? 0 : parseInt(text, 10);
}
