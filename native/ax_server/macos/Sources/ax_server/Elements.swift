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
    return err == .success ? value : nil
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

// MARK: - handles (the identity of an element in this helper's lifetime)

/// A random session per helper process: an id from an earlier helper is unknown here and is re-matched.
let session = String(UInt32.random(in: 0 ..< UInt32.max), radix: 16)

final class Handles {
    private var byNumber: [Int: AXUIElement] = [:]
    private var byHash: [CFHashCode: [(AXUIElement, Int)]] = [:]
    private var next = 1

    func id(for el: AXUIElement) -> String {
        let h = CFHash(el)
        if let list = byHash[h], let hit = list.first(where: { CFEqual($0.0, el) }) {
            return "\(session):\(hit.1)"
        }
        let n = next
        next += 1
        byNumber[n] = el
        byHash[h, default: []].append((el, n))
        return "\(session):\(n)"
    }

    func element(for id: String) -> AXUIElement? {
        let parts = id.split(separator: ":")
        guard parts.count == 2, String(parts[0]) == session, let n = Int(parts[1]) else { return nil }
        return byNumber[n]
    }
}

let handles = Handles()

// MARK: - nodes

struct Node {
    let el: AXUIElement
    let raw: String
    let role: String
    let name: String
    let id: String

    init(_ el: AXUIElement) {
        self.el = el
        raw = attrString(el, kAXRoleAttribute) ?? "AXUnknown"
        role = normalizeRole(raw, subrole: attrString(el, kAXSubroleAttribute))
        var n = norm(attrString(el, kAXTitleAttribute))
        if n.isEmpty { n = norm(attrString(el, kAXDescriptionAttribute)) }
        if n.isEmpty, role == "row" || role == "cell" { n = derivedName(el) }
        if n.isEmpty, let labelled = attr(el, "AXTitleUIElement") {
            n = norm(attrString(labelled as! AXUIElement, kAXValueAttribute))
        }
        name = n
        id = handles.id(for: el)
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
        if secure { return nil }
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

/// The named ancestors from the window down to the parent.
func ancestry(_ el: AXUIElement) -> [JSON] {
    var chain: [JSON] = []
    var cur = parent(el)
    var guardCount = 0
    while let c = cur, guardCount < 200 {
        guardCount += 1
        let raw = attrString(c, kAXRoleAttribute) ?? ""
        if raw == "AXApplication" { break }
        let role = normalizeRole(raw, subrole: attrString(c, kAXSubroleAttribute))
        var name = norm(attrString(c, kAXTitleAttribute))
        if name.isEmpty { name = norm(attrString(c, kAXDescriptionAttribute)) }
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
        let ax = AXUIElementCreateApplication(app.processIdentifier)
        let wins = (attr(ax, kAXWindowsAttribute) as? [AXUIElement]) ?? []
        out["windows"] = wins.map { w -> JSON in
            ["id": handles.id(for: w), "name": norm(attrString(w, kAXTitleAttribute)), "bounds": bounds(w) ?? NSNull(), "active": attrBool(w, kAXMainAttribute) ?? false]
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
    if let pid = pid {
        guard let a = apps.first(where: { Int($0.processIdentifier) == pid }) else {
            throw AxFail(code: .appGone, message: "no application with pid \(pid) is running", hint: "list the apps and pick one that is running")
        }
        return a
    }
    if let want = name?.lowercased(), !want.isEmpty {
        let exact = apps.filter { ($0.localizedName ?? "").lowercased() == want || ($0.bundleIdentifier ?? "").lowercased() == want }
        if exact.count == 1 { return exact[0] }
        if exact.count > 1 { throw AxFail(code: .ambiguous, message: "\(exact.count) applications are called \(want); name one by pid") }
        let part = apps.filter { ($0.localizedName ?? "").lowercased().contains(want) }
        if part.count == 1 { return part[0] }
        if part.count > 1 { throw AxFail(code: .ambiguous, message: "several applications match \(want)") }
        throw AxFail(code: .notFound, message: "no application called \(want) is running", hint: "list the apps to see their names")
    }
    guard let front = NSWorkspace.shared.frontmostApplication else {
        throw AxFail(code: .notFound, message: "no application is frontmost; name one")
    }
    return front
}

// MARK: - snapshot and find

func snapshot(_ p: Params) throws -> JSON {
    let started = Date()
    let app = try findApp(p)
    let root = AXUIElementCreateApplication(app.processIdentifier)
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

    func visit(_ el: AXUIElement, _ parentIndex: Int, _ depth: Int) {
        if truncated { return }
        visited += 1
        if visited > maxNodes * 20 { truncated = true; return }
        let n = Node(el)
        if !includeHidden && n.hidden { return }
        var here = parentIndex
        if interactive {
            if interactiveRoles.contains(n.role) || n.role == "window" || n.role == "dialog" {
                guard let i = emit(n, parentIndex, depth) else { return }
                here = i
            } else if !n.name.isEmpty && n.role != "text" && n.role != "image" {
                let mark = out.count
                guard let i = emit(n, parentIndex, depth) else { return }
                if depth < maxDepth { for c in children(el) { visit(c, i, depth + 1) } }
                if out.count == mark + 1 { out.removeLast() }
                return
            }
        } else if !(n.role == "group" && n.name.isEmpty) {
            if n.role == "text", parentIndex >= 0, !n.name.isEmpty, out[parentIndex].str("name") == n.name { return }
            guard let i = emit(n, parentIndex, depth) else { return }
            here = i
        }
        if depth >= maxDepth { return }
        for c in children(el) { visit(c, here, here == parentIndex ? depth : depth + 1) }
    }

    var windows: [JSON] = []
    for w in (attr(root, kAXWindowsAttribute) as? [AXUIElement]) ?? [] {
        let name = norm(attrString(w, kAXTitleAttribute))
        if let want = windowName, !name.lowercased().contains(want) { continue }
        windows.append(["id": handles.id(for: w), "name": name])
        visit(w, -1, 0)
    }
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

/// Every element of the app (pre-order), bounded.
func allElements(_ root: AXUIElement, limit: Int = 20000) -> [AXUIElement] {
    var out: [AXUIElement] = []
    var stack = (attr(root, kAXWindowsAttribute) as? [AXUIElement]) ?? []
    stack.reverse()
    while let el = stack.popLast(), out.count < limit {
        out.append(el)
        stack.append(contentsOf: children(el).reversed())
    }
    return out
}

func find(_ p: Params) throws -> JSON {
    let app = try findApp(p)
    let root = AXUIElementCreateApplication(app.processIdentifier)
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
    for el in allElements(root) {
        let n = Node(el)
        if let r = role, n.role != r { continue }
        if !p.bool("include_hidden") && n.hidden { continue }
        if !ok(name, n.name) { continue }
        var d = n.describe()
        if value != nil && !ok(value, d.str("value") ?? "") { continue }
        if let i = identifier, d.str("identifier") != i { continue }
        d["ancestry"] = ancestry(el)
        out.append(d)
        if out.count >= limit { break }
    }
    return ["app": appInfo(app, windows: false), "elements": out, "truncated": out.count >= limit]
}

// MARK: - resolving a target

enum Purpose { case act, scroll, read }

func resolve(_ target: JSON?, _ purpose: Purpose) throws -> (Node, String) {
    guard let t = target, let id = t.str("id"), let app = t.dict("app"), let pid = app.int("pid") else {
        throw AxFail(code: .invalid, message: "target needs id, role, name and app")
    }
    guard runningApps().contains(where: { Int($0.processIdentifier) == pid }) else {
        throw AxFail(code: .appGone, message: "\(app.str("name") ?? "the app") (pid \(pid)) is not running any more", hint: snapshotHint)
    }
    let wantRole = t.str("role") ?? ""
    let wantName = norm(t.str("name"))
    let label = "\(wantRole) \"\(wantName)\""
    var node: Node
    var how = "identity"
    if let el = handles.element(for: id), isAlive(el) {
        node = Node(el)
        if node.role != wantRole || node.name != wantName {
            throw AxFail(code: .staleRef, message: "the element changed: it was \(label) and is now \(node.role) \"\(node.name)\"", hint: snapshotHint)
        }
    } else {
        how = "rematch"
        let stored = (t["ancestry"] as? [JSON]) ?? []
        let root = AXUIElementCreateApplication(pid_t(pid))
        var candidates: [Node] = []
        for el in allElements(root) {
            let n = Node(el)
            guard n.role == wantRole, n.name == wantName else { continue }
            if let i = t.str("identifier"), attrString(el, kAXIdentifierAttribute) != i { continue }
            guard ancestryMatches(stored, ancestry(el)) else { continue }
            candidates.append(n)
        }
        if candidates.isEmpty {
            throw AxFail(code: .staleRef, message: "\(label) is gone and no element with the same role, name and place replaces it", hint: snapshotHint)
        }
        if candidates.count > 1 {
            throw AxFail(code: .ambiguous, message: "\(label) is gone and \(candidates.count) elements now match it; refusing to guess", hint: snapshotHint)
        }
        node = candidates[0]
    }
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
