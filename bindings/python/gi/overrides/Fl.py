# gi/overrides/Fl.py: libfl the way Python's own locks are used (docs/bindings.md)
#
# PyGObject loads this when a program imports gi.repository.Fl. It adds what a C API cannot
# say: a held Fl.Lock is a context manager, Fl.lock() takes seconds as Python's filelock does,
# and Fl.with_lock() lets the function's exception through unchanged (through the C callback,
# an exception becomes "failed without saying why").
#
# SPDX-License-Identifier: LGPL-2.1-or-later
import math

from ..module import get_introspection_module
from ..overrides import override

Fl = get_introspection_module("Fl")
GLib = get_introspection_module("GLib")

__all__ = []


def _release_after(lock, raised):
    """Releases @lock. If the section raised, that exception is what the caller must see:
    a failed release is then added to it as a note, not raised over it."""
    if raised is None:
        lock.release()
        return
    try:
        lock.release()
    except Exception as e:  # noqa: BLE001 - any failure here is secondary to @raised
        if hasattr(raised, "add_note"):  # Python 3.11
            raised.add_note(f"and the lock's release failed: {e}")


class Lock(Fl.Lock):
    """A held lock is a context manager: `with Fl.Lock.acquire(target, None, None) as lock:`
    holds it for the block and releases it after, also when the block raises."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        _release_after(self, exc)
        return False


Lock = override(Lock)
__all__.append("Lock")


def _ms(seconds, name, infinite):
    if seconds is None:
        return None
    if seconds < 0 or math.isinf(seconds):
        return infinite
    if math.isnan(seconds):
        raise ValueError(f"{name} is not a number")
    return math.ceil(seconds * 1000)


def lock(path, timeout=None, stale_after=None, cancellable=None):
    """Acquires @path's lock now and returns it, for `with Fl.lock(path, timeout=5):`.

    @timeout: seconds to wait for a live holder (a float; None: libfl's default, 30 s; 0: do
    not wait; negative or math.inf: wait forever). @stale_after: seconds after which a lock
    whose content is not a PID is stale (None: the default, 30 s; math.inf: never). Raises
    GLib.Error in the Fl.Error domain, as Fl.Lock.acquire() does."""
    options = Fl.LockOptions.new()
    timeout_ms = _ms(timeout, "timeout", Fl.TIMEOUT_INFINITE)
    if timeout_ms is not None:
        options.set_timeout_ms(timeout_ms)
    # FL_STALE_NEVER is G_MAXINT64, which g-ir-scanner leaves out of Fl-1.gir.
    stale_ms = _ms(stale_after, "stale_after", GLib.MAXINT64)
    if stale_ms is not None:
        options.set_stale_after_ms(stale_ms)
    return Lock.acquire(path, options, cancellable)


__all__.append("lock")


def with_lock(target, func, user_data=None, options=None, cancellable=None):
    """Calls func(user_data) holding @target's lock and returns what it returns. An exception
    it raises arrives unchanged, after the release."""
    with Lock.acquire(target, options, cancellable):
        return func(user_data)


__all__.append("with_lock")
