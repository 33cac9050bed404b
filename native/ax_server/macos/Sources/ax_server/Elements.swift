// Reading the AX tree: apps, elements, snapshots, find, and resolving a target — identity first (the
// AXUIElement this helper holds for the id), then a unique re-match by role + name + named ancestry. The
// same rules as the Linux helper (docs/ax-protocol.md, Refs).
import AppKit
import ApplicationServices
import Foundation

// MARK: - attributes

func attr(_ el: AXUIElement, _ name: String) -> AnyObject? {
    var value: AnyObject?
    let err = AXUIElementCopyAttributeValue(el, name as CFString, &value)
    if err == .cannotComplete { Apps.noteTimeout(el) }
    return err == .success ? value : nil
}

// MARK: - apps and their messaging timeout

/// Every AX call to an app waits at most `messagingTimeout` for its answer (Apple's default is 6 s): a hung
/// app costs one bounded wait, then it is marked unresponsive for a few seconds and calls for it fail fast
/// with FAILED instead of stalling the helper (requests are handled one at a time). REIN_AX_MESSAGING_TIMEOUT
/// (seconds) overrides it.
let messagingTimeout: Float = {
    if let v = ProcessInfo.processInfo.environment["REIN_AX_MESSAGING_TIMEOUT"].flatMap(Float.init), v > 0 { return v }
    return 1.5
}()

enum Apps {
    private static var elements: [pid_t: AXUIElement] = [:]
    private static var unresponsiveUntil: [pid_t: Date] = [:]

    /// The app's element, with the messaging timeout set on it. (A timeout set on an element holds for
    /// that element only; the system-wide one, set at start, covers the elements reached from it.)
    static func element(_ pid: pid_t) -> AXUIElement {
        if let el = elements[pid] { return el }
        let el = AXUIElementCreateApplication(pid)
        AXUIElementSetMessagingTimeout(el, messagingTimeout)
        elements[pid] = el
        return el
    }

    static func noteTimeout(_ el: AXUIElement) {
        var pid: pid_t = 0
        guard AXUIElementGetPid(el, &pid) == .success else { return }
        unresponsiveUntil[pid] = Date().addingTimeInterval(3)
        log("pid \(pid) did not answer within \(messagingTimeout) s; treating it as unresponsive for 3 s")
    }

    static func isUnresponsive(_ pid: pid_t) -> Bool {
        guard let until = unresponsiveUntil[pid] else { return false }
        if until > Date() { return true }
        unresponsiveUntil[pid] = nil
        return false
    }

    static func ensureResponsive(_ pid: pid_t, _ name: String) throws {
        if isUnresponsive(pid) {
            throw AxFail(code: .failed, message: "\(name) (pid \(pid)) is not responding: it did not answer within \(messagingTimeout) s", hint: "wait until the app responds again, then retry")
        }
    }

    static func forget(_ pid: pid_t) { elements[pid] = nil }
}

func attrString(_ el: AXUIElement, _ name: String) -> String? {
    attr(el, name) as? String
}

func attrBool(_ el: AXUIElement, _ name: String) -> Bool? {
    (attr(el, name) as? NSNumber)?.boolValue
}

func children(_ el: AXUIElement) -> [AXUIElement] {
    (attr(el, kAXChildrenAttribute) as? [AXUIElement]) ?? []
}

func parent(_ el: AXUIElement) -> AXUIElement? {
    guard let p = attr(el, kAXParentAttribute) else { return nil }
    return (p as! AXUIElement)
}

func actions(_ el: AXUIElement) -> [String] {
    var names: CFArray?
    guard AXUIElementCopyActionNames(el, &names) == .success, let list = names as? [String] else { return [] }
    return list
}

func isAlive(_ el: AXUIElement) -> Bool {
    var value: AnyObject?
    let err = AXUIElementCopyAttributeValue(el, kAXRoleAttribute as CFString, &value)
    return err != .invalidUIElement && err != .cannotComplete
}

func bounds(_ el: AXUIElement) -> [Int]? {
    guard let p = attr(el, kAXPositionAttribute), let s = attr(el, kAXSizeAttribute) else { return nil }
    var point = CGPoint.zero
    var size = CGSize.zero
    guard AXValueGetValue(p as! AXValue, .cgPoint, &point), AXValueGetValue(s as! AXValue, .cgSize, &size) else { return nil }
    if size.width <= 0 || size.height <= 0 { return nil }
    return [Int(point.x.rounded()), Int(point.y.rounded()), Int(size.width.rounded()), Int(size.height.rounded())]
}

// MARK: - element ids (stable across helpers)

/// The window's CGWindowID, stable for the window's life. `_AXUIElementGetWindow` is not in the public
/// headers but has been in ApplicationServices since 10.x and is what window managers use; when it fails
/// the window is named by its place in AXWindows instead.
@_silgen_name("_AXUIElementGetWindow")
func _AXUIElementGetWindow(_ element: AXUIElement, _ id: UnsafeMutablePointer<CGWindowID>) -> AXError

func windowNumber(_ w: AXUIElement) -> CGWindowID? {
    var n: CGWindowID = 0
    return _AXUIElementGetWindow(w, &n) == .success && n != 0 ? n : nil
}

func appWindows(_ pid: pid_t) -> [AXUIElement] {
    (attr(Apps.element(pid), kAXWindowsAttribute) as? [AXUIElement]) ?? []
}

/// An element id: `<pid>:<window>:<path>`, where window is `w<CGWindowID>` (or `i<index in AXWindows>`) and
/// path the child indices from the window down (`0.3.1`; empty for the window). It means the same element
/// to a helper started later (`rein ax` commands persist ids with their snapshots): that helper walks the
/// path, and the client's role and name check (then the re-match) decides whether it is still the element.
/// Within one helper, ids seen before map to the very AXUIElement (CFEqual), so a sibling inserted since
/// does not matter. Two elements never share an id: a collision gets a `~k` suffix, ignored by the walk.
struct ElementPath {
    let pid: pid_t
    let window: String
    let path: [Int]

    init?(_ id: String) {
        let core = id.split(separator: "~", maxSplits: 1).first.map(String.init) ?? id
        let parts = core.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let pid = pid_t(parts[0]), parts[1].count > 1, parts[1].first == "w" || parts[1].first == "i" else { return nil }
        var path: [Int] = []
        if !parts[2].isEmpty {
            for comp in parts[2].split(separator: ".") {
                guard let i = Int(comp), i >= 0 else { return nil }
                path.append(i)
            }
        }
        self.pid = pid
        self.window = parts[1]
        self.path = path
    }

    static func make(pid: pid_t, window: String, path: [Int]) -> String {
        "\(pid):\(window):\(path.map(String.init).joined(separator: "."))"
    }

    func windowElement() -> AXUIElement? {
        let wins = appWindows(pid)
        if window.first == "w", let n = CGWindowID(window.dropFirst()) { return wins.first { windowNumber($0) == n } }
        if window.first == "i", let i = Int(window.dropFirst()), i < wins.count { return wins[i] }
        return nil
    }

    /// The elements along the path: [window, child, grandchild, …]; shorter when the path breaks off.
    func walk() -> [AXUIElement] {
        guard let w = windowElement() else { return [] }
        var chain = [w]
        for i in path {
            let kids = children(chain[chain.count - 1])
            guard i < kids.count else { break }
            chain.append(kids[i])
        }
        return chain
    }
}

func windowKey(_ w: AXUIElement, index: Int) -> String {
    windowNumber(w).map { "w\($0)" } ?? "i\(index)"
}

final class ElementIds {
    private var byId: [String: AXUIElement] = [:]
    private var byHash: [CFHashCode: [(AXUIElement, String)]] = [:]
    private static let cap = 50_000

    /// The id of `el`; `place` is where the caller found it (pid, window key, path), else it is worked out
    /// by walking up (a few AX calls per level).
    func id(for el: AXUIElement, place: (pid_t, String, [Int])? = nil) -> String {
        let h = CFHash(el)
        if let hit = byHash[h]?.first(where: { CFEqual($0.0, el) }) { return hit.1 }
        if byId.count > ElementIds.cap { byId.removeAll(); byHash.removeAll() }
        guard let where_ = place ?? locate(el) else {
            // Not under a window (the menu bar, a detached popover): an id this helper alone knows.
            let id = "0:i0:~\(byId.count + 1)"
            store(el, id, h)
            return id
        }
        let (pid, window, path) = where_
        let base = ElementPath.make(pid: pid, window: window, path: path)
        var id = base
        var k = 1
        while let other = byId[id], !CFEqual(other, el), isAlive(other) {
            k += 1
            id = "\(base)~\(k)"
        }
        store(el, id, h)
        return id
    }

    private func store(_ el: AXUIElement, _ id: String, _ h: CFHashCode) {
        if let old = byId[id] {
            let oh = CFHash(old)
            byHash[oh]?.removeAll { CFEqual($0.0, old) }
        }
        byId[id] = el
        byHash[h, default: []].append((el, id))
    }

    /// The element this helper handed out under `id`, if it did.
    func known(_ id: String) -> AXUIElement? { byId[id] }

    func remember(_ el: AXUIElement, as id: String) { store(el, id, CFHash(el)) }

    /// Where an element is: its window and the child indices from there, found by walking up.
    private func locate(_ el: AXUIElement) -> (pid_t, String, [Int])? {
        var pid: pid_t = 0
        guard AXUIElementGetPid(el, &pid) == .success else { return nil }
        var path: [Int] = []
        var cur = el
        for _ in 0 ..< 200 {
            let raw = attrString(cur, kAXRoleAttribute) ?? ""
            if raw == "AXWindow" {
                let wins = appWindows(pid)
                guard let i = wins.firstIndex(where: { CFEqual($0, cur) }) else { return nil }
                return (pid, windowKey(cur, index: i), path.reversed())
            }
            guard let p = parent(cur) else { return nil }
            guard let i = children(p).firstIndex(where: { CFEqual($0, cur) }) else { return nil }
            path.append(i)
            cur = p
        }
        return nil
    }
}

let ids = ElementIds()

// MARK: - nodes

struct Node {
    let el: AXUIElement
    let raw: String
    let role: String
    let name: String
    let id: String

    init(_ el: AXUIElement, place: (pid_t, String, [Int])? = nil, id knownId: String? = nil) {
        self.el = el
        raw = attrString(el, kAXRoleAttribute) ?? "AXUnknown"
        role = normalizeRole(raw, subrole: attrString(el, kAXSubroleAttribute))
        name = nameOf(el, raw: raw, role: role)
        id = knownId ?? ids.id(for: el, place: place)
    }

    var secure: Bool { raw == "AXSecureTextField" || attrString(el, kAXSubroleAttribute) == "AXSecureTextField" }
    var enabled: Bool { attrBool(el, kAXEnabledAttribute) ?? true }
    var hidden: Bool { attrBool(el, "AXHidden") ?? false }

    var states: [String] {
        var out: [String] = []
        if !enabled { out.append("disabled") }
        if attrBool(el, kAXFocusedAttribute) == true { out.append("focused") }
        if role == "checkbox" || role == "radio" || role == "switch" {
            if let v = attr(el, kAXValueAttribute) as? NSNumber {
                if v.intValue == 1 { out.append("checked") } else if v.intValue == 2 { out.append("mixed") }
            }
        }
        if attrBool(el, kAXSelectedAttribute) == true { out.append("selected") }
        if let e = attrBool(el, kAXExpandedAttribute) { out.append(e ? "expanded" : "collapsed") }
        if hidden { out.append("hidden") }
        return out
    }

    func value() -> String? {
        // A static text's value is its text, which is already its name.
        if secure || raw == "AXStaticText" { return nil }
        guard let v = attr(el, kAXValueAttribute) else { return nil }
        if let s = v as? String { return clip(s) }
        if let n = v as? NSNumber, role != "checkbox", role != "radio" { return String(format: "%g", n.doubleValue) }
        return nil
    }

    func describe() -> JSON {
        var out: JSON = ["id": id, "role": role, "name": name, "raw_role": raw]
        let st = states
        if !st.isEmpty { out["states"] = st }
        out["bounds"] = bounds(el) ?? NSNull()
        if secure { out["secure"] = true }
        if let v = value() { out["value"] = v }
        if let i = attrString(el, kAXIdentifierAttribute), !i.isEmpty { out["identifier"] = i }
        if let d = attrString(el, kAXHelpAttribute).map({ norm($0) }), !d.isEmpty, d != name { out["description"] = clip(d) }
        return out
    }
}

func derivedName(_ el: AXUIElement, depth: Int = 0) -> String {
    var parts: [String] = []
    func walk(_ e: AXUIElement, _ d: Int) {
        if d > 3 || parts.count >= 3 { return }
        for c in children(e) {
            if attrString(c, kAXRoleAttribute) == "AXStaticText" {
                let v = norm(attrString(c, kAXValueAttribute))
                if !v.isEmpty { parts.append(clip(v, 80)) }
            }
            if parts.count >= 3 { return }
            walk(c, d + 1)
        }
    }
    walk(el, depth)
    return parts.joined(separator: " ")
}

/// The accessible name, the same way for an element and for the ancestors of one (the client compares
/// ancestries it stored from a snapshot with those the helper computes when it re-matches). A static text
/// is named by its AXValue (its text; its title and description are usually empty); other elements by
/// their title, then description, then (rows and cells) the texts they show, then their title element.
func nameOf(_ el: AXUIElement, raw: String, role: String) -> String {
    if raw == "AXStaticText" {
        let v = norm(attrString(el, kAXValueAttribute))
        if !v.isEmpty { return clip(v) }
    }
    var n = norm(attrString(el, kAXTitleAttribute))
    if n.isEmpty { n = norm(attrString(el, kAXDescriptionAttribute)) }
    if n.isEmpty, role == "row" || role == "cell" { n = derivedName(el) }
    if n.isEmpty, let labelled = attr(el, "AXTitleUIElement") {
        n = norm(attrString(labelled as! AXUIElement, kAXValueAttribute))
    }
    return n
}

/// The named ancestors (and windows and dialogs) from the window down to the parent.
func ancestry(_ el: AXUIElement) -> [JSON] {
    var chain: [JSON] = []
    var cur = parent(el)
    var guardCount = 0
    while let c = cur, guardCount < 200 {
        guardCount += 1
        let raw = attrString(c, kAXRoleAttribute) ?? ""
        if raw == "AXApplication" { break }
        let role = normalizeRole(raw, subrole: attrString(c, kAXSubroleAttribute))
        let name = nameOf(c, raw: raw, role: role)
        if !name.isEmpty || role == "window" || role == "dialog" { chain.append(["role": role, "name": name]) }
        cur = parent(c)
    }
    return chain.reversed()
}

func ancestryMatches(_ stored: [JSON], _ actual: [JSON]) -> Bool {
    var i = 0
    for a in actual where i < stored.count {
        if a.str("role") == stored[i].str("role") && a.str("name") == stored[i].str("name") { i += 1 }
    }
    return i == stored.count
}

// MARK: - apps

func runningApps() -> [NSRunningApplication] {
    NSWorkspace.shared.runningApplications.filter { $0.activationPolicy == .regular && $0.processIdentifier != getpid() }
}

func appInfo(_ app: NSRunningApplication, windows: Bool) -> JSON {
    var out: JSON = ["name": app.localizedName ?? app.bundleIdentifier ?? "?", "pid": Int(app.processIdentifier)]
    if let b = app.bundleIdentifier { out["bundle_id"] = b }
    if windows {
        let pid = app.processIdentifier
        out["windows"] = appWindows(pid).enumerated().map { i, w -> JSON in
            let key = windowKey(w, index: i)
            return ["id": ids.id(for: w, place: (pid, key, [])), "name": norm(attrString(w, kAXTitleAttribute)), "bounds": bounds(w) ?? NSNull(),
                    "active": attrBool(w, kAXMainAttribute) ?? false]
        }
        out["active"] = app.isActive
    }
    return out
}

func findApp(_ p: Params) throws -> NSRunningApplication {
    var pid = p.int("pid")
    var name = p.str("app")?.trimmingCharacters(in: .whitespaces)
    if pid == nil, let n = name, let asPid = Int(n) { pid = asPid; name = nil }
    let apps = runningApps()
    let found: NSRunningApplication
    if let pid = pid {
        guard let a = apps.first(where: { Int($0.processIdentifier) == pid }) else {
            throw AxFail(code: .appGone, message: "no application with pid \(pid) is running", hint: "list the apps and pick one that is running")
        }
        found = a
    } else if let want = name?.lowercased(), !want.isEmpty {
        let exact = apps.filter { ($0.localizedName ?? "").lowercased() == want || ($0.bundleIdentifier ?? "").lowercased() == want }
        let part = apps.filter { ($0.localizedName ?? "").lowercased().contains(want) }
        if exact.count == 1 { found = exact[0] }
        else if exact.count > 1 { throw AxFail(code: .ambiguous, message: "\(exact.count) applications are called \(want); name one by pid") }
        else if part.count == 1 { found = part[0] }
        else if part.count > 1 { throw AxFail(code: .ambiguous, message: "several applications match \(want)") }
        else { throw AxFail(code: .notFound, message: "no application called \(want) is running", hint: "list the apps to see their names") }
    } else {
        guard let front = NSWorkspace.shared.frontmostApplication else {
            throw AxFail(code: .notFound, message: "no application is frontmost; name one")
        }
        found = front
    }
    try Apps.ensureResponsive(found.processIdentifier, found.localizedName ?? "the app")
    return found
}

// MARK: - snapshot and find

func snapshot(_ p: Params) throws -> JSON {
    let started = Date()
    let app = try findApp(p)
    let pid = app.processIdentifier
    let interactive = p.str("filter") == "interactive"
    let maxNodes = max(1, min(p.int("max_nodes") ?? 400, 5000))
    let maxDepth = max(1, min(p.int("max_depth") ?? 64, 200))
    let includeHidden = p.bool("include_hidden")
    let windowName = p.str("window").map { norm($0).lowercased() }
    var out: [JSON] = []
    var truncated = false
    var visited = 0

    func emit(_ n: Node, _ parentIndex: Int, _ depth: Int) -> Int? {
        if out.count >= maxNodes { truncated = true; return nil }
        var d = n.describe()
        d["parent"] = parentIndex
        d["depth"] = depth
        out.append(d)
        return out.count - 1
    }

    // `key` and `path` say where the element is, so its id needs no walk up.
    func visit(_ el: AXUIElement, _ key: String, _ path: [Int], _ parentIndex: Int, _ depth: Int) {
        if truncated || Apps.isUnresponsive(pid) { return }
        visited += 1
        if visited > maxNodes * 20 { truncated = true; return }
        let n = Node(el, place: (pid, key, path))
        if !includeHidden && n.hidden { return }
        var here = parentIndex
        func visitChildren(_ under: Int, _ d: Int) {
            for (i, c) in children(el).enumerated() { visit(c, key, path + [i], under, d) }
        }
        if interactive {
            if interactiveRoles.contains(n.role) || n.role == "window" || n.role == "dialog" {
                guard let i = emit(n, parentIndex, depth) else { return }
                here = i
            } else if !n.name.isEmpty && n.role != "text" && n.role != "image" {
                let mark = out.count
                guard let i = emit(n, parentIndex, depth) else { return }
                if depth < maxDepth { visitChildren(i, depth + 1) }
                if out.count == mark + 1 { out.removeLast() }
                return
            }
        } else if !(n.role == "group" && n.name.isEmpty) {
            if n.role == "text", parentIndex >= 0, !n.name.isEmpty, out[parentIndex].str("name") == n.name { return }
            guard let i = emit(n, parentIndex, depth) else { return }
            here = i
        }
        if depth >= maxDepth { return }
        visitChildren(here, here == parentIndex ? depth : depth + 1)
    }

    var windows: [JSON] = []
    for (wi, w) in appWindows(pid).enumerated() {
        let name = norm(attrString(w, kAXTitleAttribute))
        if let want = windowName, !name.lowercased().contains(want) { continue }
        let key = windowKey(w, index: wi)
        windows.append(["id": ids.id(for: w, place: (pid, key, [])), "name": name])
        visit(w, key, [], -1, 0)
    }
    try Apps.ensureResponsive(pid, app.localizedName ?? "the app")
    if windowName != nil && windows.isEmpty { throw AxFail(code: .notFound, message: "no window of this app matches the title") }
    if interactive {
        for i in out.indices {
            let p = out[i].int("parent") ?? -1
            out[i]["depth"] = p < 0 ? 0 : (out[p].int("depth") ?? 0) + 1
        }
    }
    return ["app": appInfo(app, windows: false), "windows": windows, "elements": out, "truncated": truncated, "visited": visited,
            "took_ms": Int(Date().timeIntervalSince(started) * 1000)]
}

/// An element and where it is (its window key and the child indices from the window).
struct Placed {
    let el: AXUIElement
    let key: String
    let path: [Int]
}

/// The elements under `root` (itself included), pre-order, bounded by count and by a deadline.
/// `skip` names subtrees already searched (`key:path`), left out with everything under them.
func subtree(_ root: Placed, limit: Int, deadline: Date, budget: inout Int, skip: Set<String> = []) -> (elements: [Placed], complete: Bool) {
    var out: [Placed] = []
    var stack = [root]
    while let cur = stack.popLast() {
        if !skip.isEmpty && skip.contains(placeKey(cur)) { continue }
        if out.count >= limit || budget <= 0 || Date() > deadline { return (out, false) }
        budget -= 1
        out.append(cur)
        let kids = children(cur.el)
        for i in stride(from: kids.count - 1, through: 0, by: -1) { stack.append(Placed(el: kids[i], key: cur.key, path: cur.path + [i])) }
    }
    return (out, true)
}

func placeKey(_ p: Placed) -> String { "\(p.key):\(p.path.map(String.init).joined(separator: "."))" }

/// Every element of the app's windows (pre-order), bounded.
func allElements(_ pid: pid_t, limit: Int = 20000) -> [Placed] {
    var budget = limit
    var out: [Placed] = []
    let deadline = Date().addingTimeInterval(10)
    for (i, w) in appWindows(pid).enumerated() {
        out += subtree(Placed(el: w, key: windowKey(w, index: i), path: []), limit: limit - out.count, deadline: deadline, budget: &budget).elements
    }
    return out
}

func find(_ p: Params) throws -> JSON {
    let app = try findApp(p)
    let pid = app.processIdentifier
    let role = p.str("role")
    let name = p.str("name").map { norm($0).lowercased() }
    let value = p.str("value").map { norm($0).lowercased() }
    let identifier = p.str("identifier")
    let exact = p.bool("exact")
    let limit = p.int("max_results") ?? 50
    func ok(_ want: String?, _ have: String) -> Bool {
        guard let w = want else { return true }
        return exact ? norm(have).lowercased() == w : norm(have).lowercased().contains(w)
    }
    var out: [JSON] = []
    for placed in allElements(pid) {
        let n = Node(placed.el, place: (pid, placed.key, placed.path))
        if let r = role, n.role != r { continue }
        if !p.bool("include_hidden") && n.hidden { continue }
        if !ok(name, n.name) { continue }
        var d = n.describe()
        if value != nil && !ok(value, d.str("value") ?? "") { continue }
        if let i = identifier, d.str("identifier") != i { continue }
        d["ancestry"] = ancestry(placed.el)
        out.append(d)
        if out.count >= limit { break }
    }
    try Apps.ensureResponsive(pid, app.localizedName ?? "the app")
    return ["app": appInfo(app, windows: false), "elements": out, "truncated": out.count >= limit]
}

// MARK: - resolving a target

enum Purpose { case act, scroll, read }

/// How long a re-match may search, and how many elements: inside the client's 4 s action timeout.
let rematchBudgetMs = 2500
let rematchBudgetNodes = 20000

func resolve(_ target: JSON?, _ purpose: Purpose) throws -> (Node, String) {
    guard let t = target, let id = t.str("id"), let app = t.dict("app"), let pid = app.int("pid") else {
        throw AxFail(code: .invalid, message: "target needs id, role, name and app")
    }
    guard let running = runningApps().first(where: { Int($0.processIdentifier) == pid }) else {
        throw AxFail(code: .appGone, message: "\(app.str("name") ?? "the app") (pid \(pid)) is not running any more", hint: snapshotHint)
    }
    // A pid reused by another app is another app.
    if let was = app.str("name"), !was.isEmpty, let now = running.localizedName, now != was, running.bundleIdentifier != was {
        throw AxFail(code: .appGone, message: "\(was) (pid \(pid)) is not running any more; that pid is now \(now)", hint: snapshotHint)
    }
    try Apps.ensureResponsive(pid_t(pid), running.localizedName ?? "the app")
    let wantRole = t.str("role") ?? ""
    let wantName = norm(t.str("name"))
    let label = "\(wantRole) \"\(wantName)\""
    var found: Node?
    var how = "identity"
    if let el = ids.known(id), isAlive(el) {
        // This helper handed the id out: it is that very element, so a change is a change.
        let n = Node(el, id: id)
        if n.role != wantRole || n.name != wantName {
            throw AxFail(code: .staleRef, message: "the element changed: it was \(label) and is now \(n.role) \"\(n.name)\"", hint: snapshotHint)
        }
        found = n
    } else if let place = ElementPath(id), place.pid == pid_t(pid) {
        // An id from an earlier helper (or of an element this helper saw die): the element at that place,
        // if it is still what it was, there. One this helper saw die was recreated: that is a re-match.
        if ids.known(id) != nil { how = "rematch" }
        let chain = place.walk()
        if chain.count == place.path.count + 1, let el = chain.last {
            let n = Node(el, id: id)
            if n.role == wantRole && n.name == wantName && ancestryMatches((t["ancestry"] as? [JSON]) ?? [], ancestry(el)) {
                ids.remember(el, as: id)
                found = n
            }
        }
        if found == nil { how = "rematch"; found = try rematch(t, place: place, chain: chain, label: label) }
    }
    if found == nil {
        how = "rematch"
        found = try rematch(t, place: nil, chain: [], label: label)
    }
    let node = found!
    try Apps.ensureResponsive(pid_t(pid), running.localizedName ?? "the app")
    if purpose == .act {
        if node.hidden { throw AxFail(code: .notVisible, message: "\(label) is hidden", hint: "make it visible first, then take a new snapshot") }
        guard let b = bounds(node.el), onScreen(node.el, b) else {
            throw AxFail(code: .notVisible, message: "\(label) is off-screen", hint: "scroll it into view (accessibility scroll with into_view) first")
        }
        if !node.enabled { throw AxFail(code: .disabled, message: "\(label) is disabled", hint: "wait until it is enabled or do what enables it first") }
    } else if purpose == .scroll && !node.enabled {
        throw AxFail(code: .disabled, message: "\(label) is disabled")
    }
    return (node, how)
}

/// The element was recreated (or this helper never saw it): look for the one element with the same role,
/// name, identifier and named ancestry — first under its last known parent, then under each ancestor up to
/// its window, then in all the app's windows (a reopened dialog is a new window). The first level with any
/// match decides: one is acted on, several are AMBIGUOUS. Searching near where it was keeps a duplicate
/// elsewhere (a second "Close tab") from making it ambiguous, and keeps the search small: each element
/// costs AX calls to the app. A search that runs out of its budget refuses.
func rematch(_ t: JSON, place: ElementPath?, chain: [AXUIElement], label: String) throws -> Node {
    guard let pidN = t.dict("app")?.int("pid") else { throw AxFail(code: .invalid, message: "target needs app.pid") }
    let pid = pid_t(pidN)
    let wantRole = t.str("role") ?? ""
    let wantName = norm(t.str("name"))
    let stored = (t["ancestry"] as? [JSON]) ?? []
    let identifier = t.str("identifier")
    let deadline = Date().addingTimeInterval(Double(rematchBudgetMs) / 1000)
    var budget = rematchBudgetNodes

    var levels: [[Placed]] = []
    if let place = place, !chain.isEmpty {
        // chain[k] sits at path[0..<k]; the last known parent is at path.count - 1 (or what is left of it).
        let parentDepth = min(place.path.count - 1, chain.count - 1)
        if parentDepth >= 0 {
            for k in stride(from: parentDepth, through: 0, by: -1) { levels.append([Placed(el: chain[k], key: place.window, path: Array(place.path.prefix(k)))]) }
        }
    }
    levels.append(appWindows(pid).enumerated().map { i, w in Placed(el: w, key: windowKey(w, index: i), path: []) })

    var searched = Set<String>()
    for roots in levels {
        var candidates: [Node] = []
        var complete = true
        for root in roots {
            let (elements, done) = subtree(root, limit: rematchBudgetNodes, deadline: deadline, budget: &budget, skip: searched)
            complete = complete && done
            for placed in elements {
                // The cheap checks first: one AX call for the role.
                let raw = attrString(placed.el, kAXRoleAttribute) ?? "AXUnknown"
                guard normalizeRole(raw, subrole: attrString(placed.el, kAXSubroleAttribute)) == wantRole else { continue }
                guard nameOf(placed.el, raw: raw, role: wantRole) == wantName else { continue }
                if let i = identifier, attrString(placed.el, kAXIdentifierAttribute) != i { continue }
                guard ancestryMatches(stored, ancestry(placed.el)) else { continue }
                candidates.append(Node(placed.el, place: (pid, placed.key, placed.path)))
            }
        }
        if Apps.isUnresponsive(pid) { try Apps.ensureResponsive(pid, t.dict("app")?.str("name") ?? "the app") }
        if candidates.count > 1 {
            throw AxFail(code: .ambiguous, message: "\(label) is gone and \(candidates.count) elements now match it; refusing to guess", hint: snapshotHint)
        }
        if !complete {
            throw AxFail(code: .staleRef, message: "\(label) is gone and the search for its replacement ran out of time (\(rematchBudgetNodes - budget) elements looked at)", hint: snapshotHint)
        }
        if let only = candidates.first { return only }
        // Nothing under this root: the next level leaves it out.
        for root in roots { searched.insert(placeKey(root)) }
    }
    throw AxFail(code: .staleRef, message: "\(label) is gone and no element with the same role, name and place replaces it", hint: snapshotHint)
}

func intersects(_ a: [Int], _ b: [Int]) -> Bool {
    a[0] < b[0] + b[2] && a[0] + a[2] > b[0] && a[1] < b[1] + b[3] && a[1] + a[3] > b[1]
}

/// On a screen, and inside its window and every scroll area around it.
func onScreen(_ el: AXUIElement, _ b: [Int]) -> Bool {
    let screens = NSScreen.screens.map { s -> [Int] in
        // AX coordinates start at the top-left of the main screen.
        let main = NSScreen.screens.first?.frame.height ?? s.frame.height
        return [Int(s.frame.minX), Int(main - s.frame.maxY), Int(s.frame.width), Int(s.frame.height)]
    }
    if !screens.contains(where: { intersects(b, $0) }) { return false }
    var cur = parent(el)
    var n = 0
    while let c = cur, n < 100 {
        n += 1
        let raw = attrString(c, kAXRoleAttribute) ?? ""
        if raw == "AXApplication" { break }
        if raw == "AXScrollArea" || raw == "AXWindow", let pb = bounds(c), !intersects(b, pb) { return false }
        cur = parent(c)
    }
    return true
}

func actedOn(_ n: Node, _ how: String) -> JSON {
    ["id": n.id, "role": n.role, "name": n.name, "bounds": bounds(n.el) ?? NSNull(), "resolved_by": how]
}
