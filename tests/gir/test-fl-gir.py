#!/usr/bin/env python3
# libfl through GObject Introspection (Fl-1.typelib), from Python: what a Python service does.
# Speaks TAP. Two real processes contend for one lock: this one and a holder started from this
# same file (--hold TARGET), which says "held PID" once it holds and releases when told.
#
# Run: meson test -C build --suite gir
import math
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

import gi

gi.require_version("Fl", "1")
from gi.repository import Fl, GLib  # noqa: E402

SCALE = float(os.environ.get("FL_TEST_TIME_SCALE", "1") or "1")
DEADLINE_S = 30 * SCALE


def hold(target):
    """The other process: holds TARGET's lock until a line arrives on stdin."""
    lock = Fl.Lock.acquire(target, None, None)
    print("held", os.getpid(), flush=True)
    sys.stdin.readline()
    lock.release()
    print("released", flush=True)


class Holder:
    """A second Python process holding TARGET's lock."""

    def __init__(self, target):
        self.proc = subprocess.Popen([sys.executable, __file__, "--hold", target],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        words = self.read_line().split()
        assert words == ["held", str(self.proc.pid)], words

    def read_line(self):
        """The holder's next line, within the deadline (no sleep: select on its output)."""
        ready, _, _ = select.select([self.proc.stdout], [], [], DEADLINE_S)
        assert ready, f"the holder said nothing within {DEADLINE_S} s"
        return self.proc.stdout.readline().strip()

    def release(self):
        self.proc.stdin.write("release\n")
        self.proc.stdin.flush()
        assert self.read_line() == "released"
        assert self.proc.wait(DEADLINE_S) == 0

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def assert_error(e, code, *words):
    assert e.matches(Fl.error_quark(), code), (e.domain, e.code, e.message)
    for w in words:
        assert w in e.message, (w, e.message)


def assert_times_out(holder, acquire):
    """acquire() fails with TIMEOUT naming the holder, after 0.2 s (scaled) at least."""
    start = time.monotonic()
    try:
        acquire()
        raise AssertionError("acquired while another process held the lock")
    except GLib.Error as e:
        assert_error(e, Fl.Error.TIMEOUT, str(holder.proc.pid))
    assert time.monotonic() - start >= 0.2 * SCALE


def test_contended_two_processes(d):
    target = os.path.join(d, "events.yaml")
    holder = Holder(target)
    try:
        try:
            Fl.Lock.try_acquire(target, None)
            raise AssertionError("try_acquire succeeded while another process held the lock")
        except GLib.Error as e:
            assert_error(e, Fl.Error.BUSY, target + ".lock", str(holder.proc.pid))
        assert Fl.is_locked(target, None)
        holder.release()
    finally:
        holder.kill()
    lock = Fl.Lock.try_acquire(target, None)
    assert lock.is_held() and lock.get_path() == target + ".lock"
    with open(lock.get_path()) as f:
        assert f.read() == str(os.getpid())
    lock.release()
    assert not os.path.exists(target + ".lock")


def test_timeout(d):
    target = os.path.join(d, "timeout")
    holder = Holder(target)
    try:
        options = Fl.LockOptions.new()
        options.set_timeout_ms(int(200 * SCALE))
        assert_times_out(holder, lambda: Fl.Lock.acquire(target, options, None))
    finally:
        holder.kill()


def test_lost(d):
    # What a peer speaking only the original protocol can do: the lock file removed under its
    # holder (tests/libfl/test-release-lost.c).
    target = os.path.join(d, "lost")
    lock = Fl.Lock.acquire(target, None, None)
    os.unlink(lock.get_path())
    try:
        lock.release()
        raise AssertionError("release succeeded after the lock file was removed")
    except GLib.Error as e:
        assert_error(e, Fl.Error.LOST, lock.get_path())
    assert not lock.is_held()


def test_async_acquire(d):
    target = os.path.join(d, "async")
    loop = GLib.MainLoop()
    results = []

    def done_cb(source, result):
        results.append(Fl.Lock.acquire_finish(result))
        loop.quit()

    Fl.Lock.acquire_async(target, None, None, done_cb)
    GLib.timeout_add(int(DEADLINE_S * 1000), loop.quit)
    loop.run()
    assert len(results) == 1 and results[0].is_held()
    results[0].release()


def test_with_lock(d):
    target = os.path.join(d, "with")
    seen = []

    def critical_section(user_data):
        seen.append((user_data, Fl.is_locked(target, None)))
        return True

    # The callback gets the user_data given to fl_with_lock() (its closure argument).
    assert Fl.with_lock(target, critical_section, "data", None, None)
    assert seen == [("data", True)]
    assert not os.path.exists(target + ".lock")


class Boom(Exception):
    """What a critical section raises: it must arrive as it was."""


def assert_held_here(target):
    snapshot = Fl.Snapshot.new_for_target(target, None)
    assert snapshot.get_state() == Fl.EntryState.HELD, snapshot.get_state()
    assert snapshot.get_pid() == os.getpid()
    assert Fl.is_locked(target, None)


def assert_released(target):
    assert not Fl.is_locked(target, None)
    assert not os.path.exists(target + ".lock")


def test_with_statement(d):
    # gi/overrides/Fl.py: a held lock is a context manager.
    target = os.path.join(d, "with-statement")
    with Fl.Lock.acquire(target, None, None) as lock:
        assert isinstance(lock, Fl.Lock) and lock.is_held()
        assert_held_here(target)
    assert not lock.is_held()
    assert_released(target)


def test_with_statement_exception(d):
    target = os.path.join(d, "with-exception")
    raised = Boom("inside")
    try:
        with Fl.Lock.acquire(target, None, None):
            assert_held_here(target)
            raise raised
    except Boom as e:
        assert e is raised and e.args == ("inside",)
    else:
        raise AssertionError("the exception raised inside `with` did not arrive")
    assert_released(target)


def test_lock_in_seconds(d):
    target = os.path.join(d, "seconds")
    with Fl.lock(target, timeout=5.0) as lock:
        assert lock.is_held()
        assert_held_here(target)
    assert_released(target)

    holder = Holder(target)
    try:
        assert_times_out(holder, lambda: Fl.lock(target, timeout=0.2 * SCALE))
    finally:
        holder.kill()

    # stale_after, in seconds: content that is not a PID is stale once that old (its age is
    # counted from its last change, which the test cannot move back).
    other = os.path.join(d, "not-a-pid")
    with open(other + ".lock", "w") as f:
        f.write("not-a-pid")
    for stale_after, words in ((math.inf, "never"), (3600.0, "1 h")):
        try:
            Fl.lock(other, timeout=0, stale_after=stale_after)
            raise AssertionError(f"taken over with stale_after={stale_after}")
        except GLib.Error as e:
            assert_error(e, Fl.Error.BUSY, words)
    with Fl.lock(other, timeout=0, stale_after=0) as lock:
        assert lock.is_held()


def test_with_lock_exception(d):
    target = os.path.join(d, "with-lock-exception")
    raised = Boom("in the critical section")

    def critical_section(user_data):
        assert_held_here(target)
        raise raised

    try:
        Fl.with_lock(target, critical_section, None, None, None)
    except Boom as e:
        assert e is raised
    else:
        raise AssertionError("the exception raised by the function did not arrive")
    assert_released(target)
    assert Fl.with_lock(target, lambda data: data * 2, 21) == 42


def test_held_by_self(d):
    target = os.path.join(d, "held-by-self")
    with Fl.lock(target, timeout=60):
        start = time.monotonic()
        for acquire in (lambda: Fl.Lock.try_acquire(target, None),
                        lambda: Fl.lock(target, timeout=60)):
            try:
                acquire()
                raise AssertionError("a lock this process holds was acquired again")
            except GLib.Error as e:
                assert_error(e, Fl.Error.HELD_BY_SELF, target + ".lock", str(os.getpid()))
        assert time.monotonic() - start < 30, "refused only after waiting"
        assert_held_here(target)
    assert_released(target)


def test_statement_releases(d):
    # docs/bindings.md: a lock not kept in a variable is released when Python drops it.
    target = os.path.join(d, "statement")
    Fl.Lock.acquire(target, None, None)
    assert_released(target)
    lock = Fl.Lock.acquire(target, None, None)
    assert_held_here(target)
    del lock
    assert_released(target)


def test_scan_and_model(d):
    target = os.path.join(d, "scanned")
    lock = Fl.Lock.acquire(target, None, None)
    with open(os.path.join(d, "stale.lock"), "w") as f:
        f.write("0x7fffffff")  # a PID no process can have

    snapshots = Fl.scan_directory(d, Fl.ScanFlags.NONE, None, None)
    by_name = {s.get_name(): s for s in snapshots}
    assert sorted(by_name) == ["scanned.lock", "stale.lock"], sorted(by_name)
    mine = by_name["scanned.lock"]
    assert mine.get_kind() == Fl.EntryKind.LOCK
    assert mine.get_pid() == os.getpid()
    assert mine.get_state() == Fl.EntryState.HELD
    assert Fl.entry_state_to_string(mine.get_state()) == "held"
    assert by_name["stale.lock"].get_state() == Fl.EntryState.STALE

    model = Fl.DirectoryModel.new(None)
    assert model.add_directory(d, False)
    assert model.get_n_items() == 2
    entry = model.lookup(lock.get_path())
    assert entry is not None and entry.get_snapshot().get_pid() == os.getpid()
    lock.release()


def test_example(d):
    # docs/examples/update-under-lock.py, as docs/bindings.md shows it.
    example = os.path.join(os.environ["G_TEST_SRCDIR"], "..", "docs", "examples",
                           "update-under-lock.py")
    target = os.path.join(d, "events.yaml")
    proc = subprocess.Popen([sys.executable, example, target], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err
    assert out.split() == ["events.yaml.lock", "held", str(proc.pid)], out
    with open(target) as f:
        assert f.read() == "one more line\n"
    assert not os.path.exists(target + ".lock")


TESTS = [
    test_contended_two_processes,
    test_timeout,
    test_lost,
    test_async_acquire,
    test_with_lock,
    test_with_statement,
    test_with_statement_exception,
    test_lock_in_seconds,
    test_with_lock_exception,
    test_held_by_self,
    test_statement_releases,
    test_scan_and_model,
    test_example,
]


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--hold":
        hold(sys.argv[2])
        return 0
    print(f"1..{len(TESTS)}")
    failed = 0
    for n, test in enumerate(TESTS, 1):
        d = tempfile.mkdtemp(prefix="fl-gir-")
        try:
            test(d)
            print(f"ok {n} - {test.__name__}")
        except Exception as e:  # report and go on: TAP says which failed
            failed += 1
            print(f"not ok {n} - {test.__name__}: {type(e).__name__}: {e}")
            import traceback
            for line in traceback.format_exc().splitlines():
                print("# " + line)
        finally:
            shutil.rmtree(d, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
