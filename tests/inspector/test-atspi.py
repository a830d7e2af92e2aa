#!/usr/bin/env python3
# test-atspi.py: the Lock Inspector's accessible tree as a screen reader reads it, over AT-SPI
# (suite 'ui', under Xvfb)
#
# The other UI tests read accessible properties in-process (GTK_A11Y=test), which is not what
# Orca hears: AT-SPI joins a widget's label with what it is "labelled by", and falls back to
# the type name of a widget nobody named. This test runs fl-inspector --demo with GTK's real
# AT-SPI backend, on the accessibility bus that at-spi2-core's at-spi-bus-launcher starts
# (the test runs itself again under dbus-run-session, whose bus activates the launcher on
# demand), and reads the tree with libatspi (gir1.2-atspi-2.0). Issue 34, item 12.
#
# Usage: python3 test-atspi.py FL-INSPECTOR
#
# SPDX-License-Identifier: LGPL-2.1-or-later

import os
import subprocess
import sys
import time

SCALE = float(os.environ.get('FL_TEST_TIME_SCALE', '1') or '1')

# GTK's fallback names: the type of a widget nobody named.
RAW_NAMES = ('GtkListItemWidget', 'GtkColumnViewCell', 'GtkColumnViewTitle', 'GtkColumnListView')
BUTTON_ROLES = ('push button', 'toggle button', 'check box', 'radio button', 'menu item')

# A row of the demo (inspector-demo.c: a holder that exited, its file left behind).
ROW_NAME = 'report.csv.lock'
ROW_STATE = 'Stale: holder exited'


def skip(reason):
    # A missing display fails in CI (FL_REQUIRE_DISPLAY), as the C UI tests do.
    if os.environ.get('FL_REQUIRE_DISPLAY') and 'display' in reason:
        print('1..1\nnot ok 1 - %s' % reason)
        sys.exit(1)
    print('1..0 # SKIP %s' % reason)
    sys.exit(0)


if not os.environ.get('DISPLAY') and not os.environ.get('WAYLAND_DISPLAY'):
    skip('no display')
try:
    import gi
    gi.require_version('Atspi', '2.0')
    from gi.repository import Atspi
except (ImportError, ValueError) as e:
    skip('no libatspi for Python (install gir1.2-atspi-2.0): %s' % e)


def outer():
    """A session bus of the test's own. The bus's daemons (the registry says "SpiRegistry
    daemon is running") write to its stdout, so the TAP comes back through a file."""
    import shutil
    import tempfile

    if shutil.which('dbus-run-session') is None:
        skip('no dbus-run-session (Debian package dbus-daemon)')
    with tempfile.NamedTemporaryFile('r', prefix='fl-atspi-', suffix='.tap') as tap:
        status = subprocess.call(['dbus-run-session', '--', sys.executable, __file__, '--inner',
                                  sys.argv[1], tap.name], stdout=sys.stderr)
        sys.stdout.write(tap.read())
    return status


def wait_for(what, func, seconds):
    deadline = time.monotonic() + seconds * SCALE
    while True:
        found = func()
        if found or time.monotonic() > deadline:
            return found
        # libatspi answers from D-Bus calls; nothing to iterate, so the poll has an interval.
        time.sleep(0.1)


def children(node):
    try:
        n = node.get_child_count()
    except gi.repository.GLib.Error:
        return []
    out = []
    for i in range(n):
        try:
            child = node.get_child_at_index(i)
        except gi.repository.GLib.Error:
            continue
        if child is not None:
            out.append(child)
    return out


def walk(node, out, depth=0):
    """Every (role, name, node) under @node, depth first."""
    try:
        out.append((node.get_role_name(), node.get_name() or '', node))
    except gi.repository.GLib.Error:
        return out
    if depth < 60:
        for child in children(node):
            walk(child, out, depth + 1)
    return out


def find_app(pid):
    desktop = Atspi.get_desktop(0)
    for app in children(desktop):
        try:
            if app.get_process_id() == pid:
                return app
        except gi.repository.GLib.Error:
            pass
    return None


def main(inspector, tap_path):
    env = dict(os.environ)
    # GTK's real backend: the other UI tests set GTK_A11Y=test (tests/meson.build).
    env.pop('GTK_A11Y', None)
    env['GSETTINGS_BACKEND'] = 'memory'
    app_process = subprocess.Popen([inspector, '--demo'], env=env)
    results = []

    def check(ok, what, detail=''):
        results.append((bool(ok), what, detail))

    try:
        Atspi.init()
        app = wait_for('the application on the bus', lambda: find_app(app_process.pid), 30)
        if app is None:
            check(False, 'fl-inspector shows on the AT-SPI bus')
            return report(results, tap_path)

        def demo_row():
            for role, name, node in walk(app, []):
                if role == 'table row' and name.startswith(ROW_NAME + ', '):
                    return node
            return None

        row = wait_for('the demo row', demo_row, 30)
        tree = walk(app, [])

        raw = sorted({name for role, name, node in tree if name.startswith(RAW_NAMES)})
        check(not raw, 'no row, cell, title or list is named by its GTK type', ', '.join(raw))

        buttons = [(role, name) for role, name, node in tree if role in BUTTON_ROLES]
        underscored = [name for role, name in buttons if '_' in name]
        check(buttons and not underscored, 'no button name has a mnemonic underscore',
              ', '.join(underscored))
        # "Copy Path Copy Path": the label, a space, the label again.
        doubled = [name for role, name in buttons
                   if len(name) % 2 == 1 and name[len(name) // 2] == ' '
                   and name[:len(name) // 2] == name[len(name) // 2 + 1:]]
        check(not doubled, 'no button name says its label twice', ', '.join(doubled))
        names = {name for role, name in buttons}
        for want in ('Copy Path', 'Problems Only', 'Open Folder', 'Read Folders Again'):
            check(want in names, 'a button named "%s"' % want, ', '.join(sorted(names)))

        check(row is not None, 'a table row named "%s, <state>"' % ROW_NAME)
        if row is not None:
            row_name = row.get_name()
            cells = [(c.get_role_name(), c.get_name()) for c in children(row)]
            check(row_name == '%s, %s' % (ROW_NAME, ROW_STATE), 'the row says the lock and state',
                  row_name)
            check(('table cell', ROW_NAME) in cells, 'a table cell names the lock', repr(cells))
            check(('table cell', ROW_STATE) in cells, 'a table cell names the state', repr(cells))
            check(all(role == 'table cell' and name for role, name in cells[:4]),
                  'Lock, State, Holder and Age cells have a role and a name', repr(cells))

        headers = [node for role, name, node in tree if name == 'Column headers']
        check(headers, 'the header row is named "Column headers"')
        if headers:
            titles = [c.get_name() for c in children(headers[0])]
            check(titles[:4] == ['Lock', 'State', 'Holder', 'Age'],
                  'the column titles are named after their columns', repr(titles))
        lists = [role for role, name, node in tree if role == 'list' and name == 'Lock files']
        check(lists, 'the list inside the column view is named "Lock files"')
    finally:
        app_process.terminate()
        app_process.wait()

    return report(results, tap_path)


def report(results, tap_path):
    with open(tap_path, 'w') as tap:
        tap.write('1..%d\n' % len(results))
        for i, (ok, what, detail) in enumerate(results, 1):
            tap.write('%s %d - %s\n' % ('ok' if ok else 'not ok', i, what))
            if not ok and detail:
                tap.write('# %s\n' % detail)
    return 0 if all(ok for ok, what, detail in results) else 1


if len(sys.argv) == 4 and sys.argv[1] == '--inner':
    sys.exit(main(sys.argv[2], sys.argv[3]))
sys.exit(outer())
