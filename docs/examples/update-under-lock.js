// Appends a line to a file under its lock, and lists the locks beside it while holding it
// (docs/bindings.md). Usage: gjs -m update-under-lock.js FILE
import Fl from 'gi://Fl?version=1';
import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import System from 'system';

const target = System.programArgs[0];
const options = Fl.LockOptions.new();
options.set_timeout_ms(5000);
let lock;
try {
    lock = Fl.Lock.acquire(target, options, null);
} catch (e) {
    if (e.matches(Fl.error_quark(), Fl.Error.TIMEOUT)) {
        printerr(`busy: ${e.message}`);  // names the holder and the lock's age
        System.exit(1);
    }
    throw e;
}

const file = Gio.File.new_for_path(target);
const stream = file.append_to(Gio.FileCreateFlags.NONE, null);
stream.write_all(new TextEncoder().encode('one more line\n'), null);
stream.close(null);

const dir = GLib.path_get_dirname(file.get_path());
for (const snapshot of Fl.scan_directory(dir, Fl.ScanFlags.NONE, null, null))
    print(snapshot.get_name(), Fl.entry_state_to_string(snapshot.get_state()), snapshot.get_pid());

lock.release();  // throws Fl.Error.LOST if the lock was taken away meanwhile
