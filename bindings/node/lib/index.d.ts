// TypeScript declarations of libfl for Node.js (lib/index.cjs, docs/node.md).
//
// SPDX-License-Identifier: LGPL-2.1-or-later
import { EventEmitter } from 'node:events';

/** The module's options, and the waits' own. Durations in milliseconds, >= 0 or Infinity. */
export interface LockOptions {
  /** How long to wait for the lock (30 000; Infinity: for ever; 0: one try). */
  timeoutMs?: number;
  /** The longest time between two looks where no event can be watched (libfl wakes on the
   * release itself). */
  retryIntervalMs?: number;
  /** How old a lock whose content is not a PID must be to be taken over (30 000;
   * Infinity: never). */
  staleAfterMs?: number;
  /** etcd targets: the lease's TTL in seconds (10). */
  leaseTtlS?: number;
}

export interface AsyncLockOptions extends LockOptions {
  /** Ends the wait: the promise rejects with an AbortError whose cause is signal.reason. */
  signal?: AbortSignal;
}

/** An error of this package: code names it (ELOCKTIMEOUT, ELOCKLOST, ELOCKHELDBYSELF,
 * ELOCKBUSY, ELOCKPERM, ELOCKNOTDIR, ELOCKFOREIGN, ELOCKINVALID, ELOCKNOSPC, ELOCKFAILED,
 * ABORT_ERR), path is the target, lockPath the lock file (or etcd key prefix). */
export interface LockError extends Error {
  code: string;
  path?: string;
  lockPath?: string;
  cause?: unknown;
}

export declare class LockHandle extends EventEmitter {
  private constructor();
  readonly target: string;
  readonly lockPath: string;
  /** Whether this process holds the lock now: false once released or lost. */
  readonly held: boolean;
  /** Grows from one holder to the next: an etcd lock's key revision; null for a file lock. */
  readonly fencingToken: number | null;
  /** Releases; throws ELOCKLOST (removing nothing) if the lock was taken away. Twice: nothing. */
  release(): void;
  /** etcd targets: the lease may have expired; stop touching what the lock protects. */
  on(event: 'lost', listener: () => void): this;
  once(event: 'lost', listener: () => void): this;
}

/** A record as `flctl status -j` and `flctl list -j` print it (docs/flctl.1, JSON OUTPUT). */
export interface LockRecord {
  path: string;
  target: string | null;
  kind: 'lock' | 'temp' | 'graveyard' | 'foreign' | 'other-program' | string;
  state: 'held' | 'active' | 'stale' | 'orphan' | 'unknown' | 'foreign' | 'free' | 'unlocked' | string;
  pid: number | null;
  process: string | null;
  cmdline: string | null;
  process_uid: number | null;
  liveness: 'unknown' | 'alive' | 'dead' | 'reused' | string;
  kernel_lock: boolean | null;
  stale: boolean;
  reason: string | null;
  content: string | null;
  file_uid: number | null;
  mtime: string | null;
  age_s: number | null;
  host: string | null;
  lease: string | null;
  lease_ttl_s: number | null;
  token: number | null;
  revision: number | null;
  waiting: boolean;
  waiters: LockRecord[] | null;
  format: string | null;
  owner_user: string | null;
  owner_name: string | null;
  owner_since_s: number | null;
  holder_exited: boolean;
  holder_stopped: boolean;
  keeper_pid: number | null;
  keeper_process: string | null;
  schema?: number;
}

export declare function withFileLock<T>(targetPath: string, fn: () => T, options?: LockOptions): T;
export declare function withFileLockAsync<T>(targetPath: string,
                                             asyncFn: (lost: AbortSignal) => T | Promise<T>,
                                             options?: AsyncLockOptions): Promise<T>;
export declare function lock(targetPath: string, options?: AsyncLockOptions): Promise<LockHandle>;
export declare function lockSync(targetPath: string, options?: LockOptions): LockHandle;
export declare function isLocked(targetPath: string): boolean;
export declare function lockDirFor(targetPath: string): string;
export declare function status(path: string): LockRecord;
export declare function scan(dir: string, options?: { recursive?: boolean }):
  LockRecord[] & { errors: LockError[] };

declare const _default: {
  withFileLock: typeof withFileLock;
  withFileLockAsync: typeof withFileLockAsync;
  lock: typeof lock;
  lockSync: typeof lockSync;
  isLocked: typeof isLocked;
  lockDirFor: typeof lockDirFor;
  status: typeof status;
  scan: typeof scan;
  LockHandle: typeof LockHandle;
};
export default _default;
