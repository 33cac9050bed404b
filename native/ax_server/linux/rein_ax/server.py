"""JSON-RPC 2.0, one object per line, over a Unix socket (0600, in a 0700 folder, peers of our uid only)
or over stdin/stdout. Requests are handled one at a time in arrival order, on the GLib main loop that also
delivers AT-SPI events; a request that waits for an effect runs the loop, and lines arriving meanwhile are
queued, never handled inside another request."""

import json
import os
import socket
import stat
import struct
import sys
import traceback

from gi.repository import GLib

from .errors import AxFail, CODES

MAX_LINE = 16 * 1024 * 1024


def log(msg):
    # Our stderr is a pipe to the parent: when the parent was killed it is broken, and a failed log line
    # must not keep stop() from quitting the loop (an orphaned helper would then run on forever).
    try:
        sys.stderr.write('ax_server: %s\n' % msg)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class Peer:
    """One connection: its read buffer and how to write a line back."""

    def __init__(self, server, rfd, write, close):
        self.server = server
        self.rfd = rfd
        self.write_bytes = write
        self.close_fn = close
        self.buf = b''
        self.closed = False
        self.watch = GLib.io_add_watch(rfd, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self._readable)

    def _readable(self, fd, cond):
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, InterruptedError):
            return True
        except OSError:
            chunk = b''
        if not chunk:
            # The other side stopped sending; what it sent before is still answered, then we close.
            self.watch = None
            self.server.enqueue(self, None)
            return False
        self.buf += chunk
        while True:
            nl = self.buf.find(b'\n')
            if nl < 0:
                break
            line, self.buf = self.buf[:nl], self.buf[nl + 1:]
            if line.strip():
                self.server.enqueue(self, line)
        if len(self.buf) > MAX_LINE:
            self.send({'jsonrpc': '2.0', 'id': None, 'error': {'code': -32600, 'message': 'request line too long'}})
            self.watch = None
            self.close()
            return False
        return True

    def send(self, obj):
        if self.closed:
            return
        try:
            self.write_bytes((json.dumps(obj, separators=(',', ':'), ensure_ascii=False) + '\n').encode('utf-8'))
        except OSError:
            self.close()

    def close(self):
        if self.closed:
            return
        self.closed = True
        if self.watch is not None:
            GLib.source_remove(self.watch)
            self.watch = None
        # Lines of this peer still queued are dropped: nobody would read their answers.
        self.server.queue = [(p, l) for p, l in self.server.queue if p is not self]
        self.close_fn()
        self.server.peer_closed(self)


class Server:
    def __init__(self, methods, exit_when_alone=False):
        self.methods = methods
        self.queue = []
        self.busy = False
        self.loop = GLib.MainLoop()
        self.peers = set()
        self.exit_when_alone = exit_when_alone
        self.listener = None
        self.socket_path = None

    # -------------------------------------------------------------------------------------- transports

    def serve_stdio(self):
        out = sys.stdout.buffer

        def write(b):
            out.write(b)
            out.flush()

        self.exit_when_alone = True
        self.peers.add(Peer(self, 0, write, lambda: None))

    def serve_socket(self, path):
        folder = os.path.dirname(os.path.abspath(path))
        st = os.stat(folder)
        if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o077:
            raise SystemExit('ax_server: the socket folder %s must be ours and private (0700)' % folder)
        if os.path.exists(path):
            os.unlink(path)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            s.bind(path)
        finally:
            os.umask(old)
        os.chmod(path, 0o600)
        s.listen(4)
        s.setblocking(False)
        self.listener = s
        self.socket_path = path
        GLib.io_add_watch(s.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN, self._accept)

    def _accept(self, fd, cond):
        try:
            conn, _ = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return True
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize('3i'))
        pid, uid, gid = struct.unpack('3i', creds)
        if uid != os.getuid():
            log('refused a connection from uid %d (pid %d)' % (uid, pid))
            conn.close()
            return True
        conn.setblocking(True)
        self.peers.add(Peer(self, conn.fileno(), conn.sendall, conn.close))
        return True

    def watch_parent(self, parent_pid):
        """Ends with the process that started us (its pid, and EOF on a piped stdin in socket mode)."""
        def check():
            try:
                os.kill(parent_pid, 0)
            except ProcessLookupError:
                self.stop('the parent process is gone')
                return False
            except PermissionError:
                pass
            if os.getppid() != parent_pid and os.getppid() == 1:
                self.stop('the parent process is gone')
                return False
            return True
        GLib.timeout_add(1000, check)

    def watch_stdin_eof(self):
        def readable(fd, cond):
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b''
            if not data:
                self.stop('stdin closed')
                return False
            return True
        try:
            if not os.isatty(0):
                GLib.io_add_watch(0, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, readable)
        except OSError:
            pass

    # -------------------------------------------------------------------------------------- requests

    def enqueue(self, peer, line):
        self.queue.append((peer, line))
        if not self.busy:
            GLib.idle_add(self._pump)

    def _pump(self):
        if self.busy:
            return False
        self.busy = True
        try:
            while self.queue:
                peer, line = self.queue.pop(0)
                if line is None:
                    peer.close()
                    continue
                reply = self.handle(line)
                if reply is not None:
                    peer.send(reply)
        finally:
            self.busy = False
        return False

    def handle(self, line):
        try:
            req = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            return {'jsonrpc': '2.0', 'id': None, 'error': {'code': -32700, 'message': 'parse error'}}
        if not isinstance(req, dict) or not isinstance(req.get('method'), str):
            return {'jsonrpc': '2.0', 'id': req.get('id') if isinstance(req, dict) else None,
                    'error': {'code': -32600, 'message': 'invalid request'}}
        rid = req.get('id')
        method = req['method']
        params = req.get('params') or {}
        if not isinstance(params, dict):
            return {'jsonrpc': '2.0', 'id': rid, 'error': {'code': CODES['INVALID'], 'message': 'params must be an object'}}
        fn = self.methods.table.get(method)
        if fn is None:
            return {'jsonrpc': '2.0', 'id': rid, 'error': {'code': -32601, 'message': 'no method %s' % method,
                                                         'data': {'code': 'UNSUPPORTED'}}}
        try:
            result = fn(params)
            reply = {'jsonrpc': '2.0', 'id': rid, 'result': result}
        except AxFail as e:
            reply = {'jsonrpc': '2.0', 'id': rid, 'error': e.to_error()}
        except GLib.Error as e:
            code = 'STALE_REF' if 'UnknownObject' in (e.message or '') else 'FAILED'
            reply = {'jsonrpc': '2.0', 'id': rid, 'error': AxFail(code, 'accessibility call failed: %s' % e.message).to_error()}
        except Exception as e:  # noqa: BLE001 (a bug must answer, not kill the helper)
            log('%s failed:\n%s' % (method, traceback.format_exc()))
            reply = {'jsonrpc': '2.0', 'id': rid, 'error': {'code': -32603, 'message': '%s failed: %s' % (method, e), 'data': {'code': 'FAILED'}}}
        return None if rid is None else reply

    # -------------------------------------------------------------------------------------- life

    def peer_closed(self, peer):
        self.peers.discard(peer)
        if self.exit_when_alone and not self.peers:
            self.stop('the connection closed')

    def stop(self, why):
        log('stopping: %s' % why)
        self.loop.quit()

    def run(self):
        try:
            self.loop.run()
        finally:
            if self.socket_path:
                try:
                    os.unlink(self.socket_path)
                except OSError:
                    pass
