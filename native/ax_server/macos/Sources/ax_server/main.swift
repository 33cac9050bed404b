// ax_server for macOS — Rein's accessibility helper (docs/ax-protocol.md). NOT COMPILED where Rein is
// developed (Linux): build it on a Mac with `swift build -c release` and wrap it with build-app.sh.
//
//   ax_server --socket DIR/ax.sock [--parent-pid PID] [--exit-on-disconnect]   (socket 0600 in a 0700 folder)
//   ax_server --stdio [--parent-pid PID]
//   ax_server --check-permissions | --request-permission accessibility|screen_recording
//
// Requests are handled one at a time, in arrival order, on the main thread: reader threads only queue
// lines. The main thread's run loop is run during an action's wait (AXObserver notifications arrive there),
// and nothing else is scheduled on it, so one request never runs inside another.
import AppKit
import ApplicationServices
import Foundation

setvbuf(stdout, nil, _IOLBF, 0)
signal(SIGPIPE, SIG_IGN)

func log(_ s: String) { FileHandle.standardError.write(Data("ax_server: \(s)\n".utf8)) }

var args = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return args[i + 1]
}

if args.contains("--check-permissions") {
    FileHandle.standardOutput.write(encodeLine(checkPermissions()))
    exit(0)
}
if let which = option("--request-permission") {
    switch which {
    case "accessibility": _ = AXIsProcessTrustedWithOptions([kAXTrustedCheckOptionPrompt.takeUnretainedValue() as String: true] as CFDictionary)
    case "screen_recording": _ = CGRequestScreenCaptureAccess()
    default: log("unknown permission \(which)"); exit(2)
    }
    exit(0)
}

// A hung app must not stall the helper: every AX call waits at most this long (Elements.swift, Apps).
AXUIElementSetMessagingTimeout(AXUIElementCreateSystemWide(), messagingTimeout)

// MARK: - connections and the request queue

final class Connection {
    let readFd: Int32
    let writeFd: Int32
    private let lock = NSLock()
    var closed = false
    init(readFd: Int32, writeFd: Int32) { self.readFd = readFd; self.writeFd = writeFd }

    func send(_ obj: JSON) {
        lock.lock(); defer { lock.unlock() }
        if closed { return }
        let data = encodeLine(obj)
        data.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(writeFd, raw.baseAddress! + off, raw.count - off)
                if n <= 0 { closed = true; return }
                off += n
            }
        }
    }
}

final class RequestQueue {
    private let cond = NSCondition()
    private var items: [(Connection, Data?)] = []
    func push(_ c: Connection, _ line: Data?) { cond.lock(); items.append((c, line)); cond.signal(); cond.unlock() }
    func pop(timeout: TimeInterval) -> (Connection, Data?)? {
        cond.lock(); defer { cond.unlock() }
        if items.isEmpty { _ = cond.wait(until: Date().addingTimeInterval(timeout)) }
        return items.isEmpty ? nil : items.removeFirst()
    }
}

let queue = RequestQueue()
let countLock = NSLock()
var openConnections = 0
let exitWhenAlone = args.contains("--exit-on-disconnect") || args.contains("--stdio")
var anyConnection = false

func readLines(_ c: Connection) {
    Thread.detachNewThread {
        var buf = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(c.readFd, &chunk, chunk.count)
            if n <= 0 { break }
            buf.append(contentsOf: chunk[0 ..< n])
            while let nl = buf.firstIndex(of: 0x0A) {
                let line = buf[buf.startIndex ..< nl]
                buf = Data(buf[(nl + 1)...])
                if !line.isEmpty { queue.push(c, Data(line)) }
            }
            if buf.count > 16 * 1024 * 1024 { break }
        }
        queue.push(c, nil) // end of this connection
    }
}

func handle(_ line: Data) -> JSON? {
    guard let obj = try? JSONSerialization.jsonObject(with: line), let req = obj as? JSON, let method = req.str("method") else {
        return ["jsonrpc": "2.0", "id": NSNull(), "error": ["code": -32700, "message": "parse error"]]
    }
    let id = req["id"]
    let params = (req["params"] as? Params) ?? [:]
    guard let fn = methods[method] else {
        return ["jsonrpc": "2.0", "id": id ?? NSNull(), "error": ["code": -32601, "message": "no method \(method)", "data": ["code": "UNSUPPORTED"]]]
    }
    var reply: JSON
    do {
        reply = ["jsonrpc": "2.0", "id": id ?? NSNull(), "result": try fn(params)]
    } catch let e as AxFail {
        reply = ["jsonrpc": "2.0", "id": id ?? NSNull(), "error": e.toError()]
    } catch {
        reply = ["jsonrpc": "2.0", "id": id ?? NSNull(), "error": ["code": -32603, "message": "\(method) failed: \(error)", "data": ["code": "FAILED"]]]
    }
    return id == nil ? nil : reply
}

// MARK: - transports

func serveSocket(_ path: String) {
    let folder = (path as NSString).deletingLastPathComponent
    var st = stat()
    guard stat(folder, &st) == 0, st.st_uid == getuid(), (st.st_mode & 0o077) == 0 else {
        log("the socket folder \(folder) must be ours and private (0700)"); exit(2)
    }
    unlink(path)
    let fd = socket(AF_UNIX, SOCK_STREAM, 0)
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { log("socket path too long"); exit(2) }
    withUnsafeMutableBytes(of: &addr.sun_path) { raw in
        for (i, b) in bytes.enumerated() { raw[i] = b }
        raw[bytes.count] = 0
    }
    let old = umask(0o177)
    let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) } }
    umask(old)
    guard bound == 0, chmod(path, 0o600) == 0, listen(fd, 4) == 0 else { log("cannot listen on \(path): \(String(cString: strerror(errno)))"); exit(2) }
    FileHandle.standardOutput.write(encodeLine(["ready": true, "socket": path, "pid": Int(getpid()), "protocol": protocolVersion]))
    Thread.detachNewThread {
        while true {
            let conn = accept(fd, nil, nil)
            if conn < 0 { continue }
            // Only our own user: getpeereid(2) gives the peer's effective uid (LOCAL_PEERCRED underneath).
            var peerUid: uid_t = 0
            var peerGid: gid_t = 0
            guard getpeereid(conn, &peerUid, &peerGid) == 0, peerUid == getuid() else {
                log("refused a connection from uid \(peerUid)")
                close(conn)
                continue
            }
            let c = Connection(readFd: conn, writeFd: conn)
            countLock.lock(); openConnections += 1; anyConnection = true; countLock.unlock()
            readLines(c)
        }
    }
}

if let path = option("--socket") {
    serveSocket(path)
} else if args.contains("--stdio") {
    openConnections = 1
    anyConnection = true
    readLines(Connection(readFd: STDIN_FILENO, writeFd: STDOUT_FILENO))
} else {
    log("give --socket PATH or --stdio")
    exit(2)
}

let parentPid = option("--parent-pid").flatMap { Int32($0) }

// MARK: - the loop

while true {
    if let p = parentPid, kill(p, 0) != 0 && errno == ESRCH { log("the parent process is gone"); exit(0) }
    guard let item = queue.pop(timeout: 1) else { continue }
    let conn = item.0
    guard let line = item.1 else {
        conn.closed = true
        if conn.readFd != STDIN_FILENO { close(conn.readFd) }
        countLock.lock(); openConnections -= 1; let alone = anyConnection && openConnections <= 0; countLock.unlock()
        if exitWhenAlone && alone { log("the connection closed"); exit(0) }
        continue
    }
    if let reply = autoreleasepool(invoking: { handle(line) }) { conn.send(reply) }
}
