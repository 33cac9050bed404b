#!/usr/bin/python3
"""ax_server for Linux: Rein's accessibility helper over AT-SPI (docs/ax-protocol.md).

    /usr/bin/python3 ax_server.py --socket DIR/ax.sock [--parent-pid PID] [--exit-on-disconnect]
                                                                            (prints one ready line on stdout)
    /usr/bin/python3 ax_server.py --stdio                                   (JSON-RPC on stdin/stdout)
    /usr/bin/python3 ax_server.py --check-permissions                       (prints the answer and exits)

Needs Debian's python3 with python3-gi, python3-pyatspi and gir1.2-atspi-2.0 (gir1.2-gtk-3.0 for
screenshots), a D-Bus session bus and, for input and screenshots, an X display.
"""

import argparse
import json
import os
import sys

# Never become an accessible app ourselves (GTK_MODULES=atk-bridge may be in the environment we inherit).
os.environ['NO_AT_BRIDGE'] = '1'
os.environ.pop('GTK_MODULES', None)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Rein's install folder may be read-only or shared: no __pycache__ next to the helper.
sys.dont_write_bytecode = True


def main(argv):
    ap = argparse.ArgumentParser(prog='ax_server')
    ap.add_argument('--socket')
    ap.add_argument('--stdio', action='store_true')
    ap.add_argument('--parent-pid', type=int)
    ap.add_argument('--check-permissions', action='store_true')
    ap.add_argument('--exit-on-disconnect', action='store_true', help='socket mode: end when the last client disconnects')
    args = ap.parse_args(argv)

    try:
        import gi
        gi.require_version('Atspi', '2.0')
        import pyatspi  # noqa: F401  (the Debian package that brings libatspi's bindings; checked here)
        from gi.repository import Atspi  # noqa: F401
    except (ImportError, ValueError) as e:
        sys.stderr.write('ax_server: AT-SPI bindings are missing (%s): apt-get install python3-pyatspi gir1.2-atspi-2.0 python3-gi\n' % e)
        return 3

    from rein_ax.methods import Methods
    from rein_ax.server import Server

    methods = Methods()
    if args.check_permissions:
        print(json.dumps(methods.check_permissions({})))
        return 0
    methods.start()
    server = Server(methods, exit_when_alone=args.exit_on_disconnect)
    if args.socket:
        server.serve_socket(args.socket)
        server.watch_stdin_eof()
        sys.stdout.write(json.dumps({'ready': True, 'socket': args.socket, 'pid': os.getpid(), 'protocol': 1}) + '\n')
        sys.stdout.flush()
    elif args.stdio:
        server.serve_stdio()
    else:
        ap.error('give --socket PATH or --stdio')
    if args.parent_pid:
        server.watch_parent(args.parent_pid)
    server.run()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
