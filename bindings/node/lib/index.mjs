// The ES module entry point: the same functions as lib/index.cjs (one copy of the code).
//
// SPDX-License-Identifier: LGPL-2.1-or-later
import lib from './index.cjs';

export const {
  withFileLock,
  withFileLockAsync,
  lock,
  lockSync,
  isLocked,
  lockDirFor,
  status,
  scan,
  LockHandle,
} = lib;
export default lib;
