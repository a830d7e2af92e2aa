// libfl for Node.js: the API of @dogfood-lab/findings/lib/file-lock.js over libfl, and what
// that module never had (docs/node.md).
//
// The addon (src/) does the locking; this file gives it the module's shape: withFileLock()
// runs a function under a lock and releases it however the function ends, lock() hands out a
// LockHandle, withFileLockAsync() waits off the JavaScript thread and stops at an AbortSignal.
//
// SPDX-License-Identifier: LGPL-2.1-or-later
'use strict';

const { EventEmitter } = require('node:events');

// LIBFL_NODE_ADDON: the project's tests load the addon meson built from the same sources.
const binding = require(process.env.LIBFL_NODE_ADDON || '../build/Release/fl_node.node');

function invalidArg(name, expected, value) {
  const err = new TypeError(`The "${name}" argument must be ${expected}. ` +
                            `Received ${value === null ? 'null' : typeof value}`);
  err.code = 'ERR_INVALID_ARG_TYPE';
  return err;
}

function checkFunction(name, fn) {
  if (typeof fn !== 'function')
    throw invalidArg(name, 'of type function', fn);
}

function checkSignal(signal) {
  if (signal !== undefined && signal !== null &&
      (typeof signal !== 'object' || typeof signal.aborted !== 'boolean' ||
       typeof signal.addEventListener !== 'function'))
    throw invalidArg('options.signal', 'an instance of AbortSignal', signal);
}

function abortError(signal, target) {
  const err = new Error(`The wait for the lock of ${target} was aborted`,
                        { cause: signal.reason });
  err.name = 'AbortError';
  err.code = 'ABORT_ERR';
  err.path = target;
  err.lockPath = typeof target === 'string' ? `${target}.lock` : undefined;
  return err;
}

// A held lock. 'lost' is emitted when an etcd lock's lease may have expired (file locks
// never lose theirs): stop touching what it protects.
class LockHandle extends EventEmitter {
  #native;

  constructor(native, target) {
    super();
    this.#native = native;
    this.target = target;
    this.lockPath = target.startsWith('etcd://') || target.startsWith('etcds://')
      ? target : binding.lockPathFor(target);
  }

  // Whether this process holds the lock now: false once released or lost.
  get held() {
    return binding.lockInfo(this.#native).held;
  }

  // A number that grows from one holder to the next (an etcd lock's key revision); null for
  // a file lock, which has no honest one.
  get fencingToken() {
    return binding.lockInfo(this.#native).fencingToken;
  }

  // Releases; never removes a lock that is not this holder's (ELOCKLOST then). Twice: nothing.
  release() {
    binding.release(this.#native);
  }
}

// The native handle's loss reaches the LockHandle through a WeakRef: the relay keeps its
// callback alive, and must not keep a dropped handle (released when collected) alive too.
function lostRelay() {
  const relay = { handle: null };
  relay.onLost = () => {
    const handle = relay.handle && relay.handle.deref();
    if (handle)
      handle.emit('lost');
  };
  return relay;
}

function lockSync(targetPath, options) {
  const relay = lostRelay();
  const handle = new LockHandle(binding.acquireSync(targetPath, options, relay.onLost),
                                targetPath);
  relay.handle = new WeakRef(handle);
  return handle;
}

// Waits in a thread of its own; options.signal (an AbortSignal) ends the wait, rejecting
// with an AbortError whose cause is the signal's reason, and leaves nothing behind.
async function lock(targetPath, options = {}) {
  const signal = options === null || typeof options !== 'object' ? undefined : options.signal;
  checkSignal(signal);
  if (signal && signal.aborted)
    throw abortError(signal, targetPath);
  const relay = lostRelay();
  const [promise, token] = binding.acquireAsync(targetPath, options, relay.onLost);
  const onAbort = () => binding.cancel(token);
  if (signal)
    signal.addEventListener('abort', onAbort, { once: true });
  let native;
  try {
    native = await promise;
  } catch (err) {
    if (err && err.code === 'ABORT_ERR' && signal && signal.aborted)
      throw abortError(signal, targetPath);
    throw err;
  } finally {
    if (signal)
      signal.removeEventListener('abort', onAbort);
  }
  const handle = new LockHandle(native, targetPath);
  relay.handle = new WeakRef(handle);
  return handle;
}

// The module's withFileLock(): runs fn while the lock is held, returns its result, releases
// when it returns or throws. Synchronous, as the module's callers are.
function withFileLock(targetPath, fn, options = {}) {
  return binding.withLock(targetPath, fn, options);
}

// withFileLock() for asynchronous sections: waits off the event loop, awaits asyncFn(lost),
// where lost is an AbortSignal aborted if the lock is lost (etcd), then releases.
async function withFileLockAsync(targetPath, asyncFn, options = {}) {
  checkFunction('asyncFn', asyncFn);
  const handle = await lock(targetPath, options);
  const lost = new AbortController();
  handle.once('lost', () => lost.abort(Object.assign(
    new Error(`The lock of ${targetPath} was lost: what it protects is no longer protected`),
    { code: 'ELOCKLOST', path: targetPath, lockPath: handle.lockPath })));
  let result;
  try {
    result = await asyncFn(lost.signal);
  } catch (err) {
    try { handle.release(); } catch { /* asyncFn's error is the one to report */ }
    throw err;
  }
  handle.release();
  return result;
}

// The module's isLocked(): here, held by a live holder now (the module only asked whether
// the file exists, so it said true for a dead holder's lock too).
function isLocked(targetPath) {
  return binding.isLocked(targetPath);
}

// The module's lockDirFor(): `${targetPath}.lock`.
function lockDirFor(targetPath) {
  return binding.lockPathFor(targetPath);
}

// What a lock is now, as `flctl status -j` prints it (an "unlocked" record if none).
function status(path) {
  return binding.status(path);
}

// Every lock, temp and graveyard file in dir, as `flctl list -j` prints them; the parts that
// could not be read are the array's `errors`.
function scan(dir, options = {}) {
  return binding.scan(dir, options);
}

module.exports = {
  withFileLock,
  withFileLockAsync,
  lock,
  lockSync,
  isLocked,
  lockDirFor,
  status,
  scan,
  LockHandle,
};
