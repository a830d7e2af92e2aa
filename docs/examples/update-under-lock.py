#!/usr/bin/env python3
# Appends a line to a file under its lock, and lists the locks beside it while holding it
# (docs/bindings.md). Usage: update-under-lock.py FILE
import os
import sys

import gi

gi.require_version("Fl", "1")
from gi.repository import Fl, GLib  # noqa: E402

target = sys.argv[1]
options = Fl.LockOptions.new()
options.set_timeout_ms(5000)
try:
    lock = Fl.Lock.acquire(target, options, None)
except GLib.Error as e:
    if e.matches(Fl.error_quark(), Fl.Error.TIMEOUT):
        sys.exit(f"busy: {e.message}")  # names the holder and the lock's age
    raise

with open(target, "a") as f:
    f.write("one more line\n")

for snapshot in Fl.scan_directory(os.path.dirname(os.path.abspath(target)),
                                  Fl.ScanFlags.NONE, None, None):
    print(snapshot.get_name(), Fl.entry_state_to_string(snapshot.get_state()),
          snapshot.get_pid())

lock.release()  # raises Fl.Error.LOST if the lock was taken away meanwhile
