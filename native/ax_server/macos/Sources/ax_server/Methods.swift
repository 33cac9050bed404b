// The protocol's methods (docs/ax-protocol.md), each a function of its params, answering the same shapes
// as the Linux helper.
import AppKit
import ApplicationServices
import Foundation

let clickActions = ["AXPress", "AXConfirm", "AXPick", "AXOpen"]

let methodNames = ["ping", "list_apps", "snapshot", "find", "click", "press", "set_value", "get_value", "focus", "scroll", "key",
                   "type_text", "mouse", "wait_for", "annotate", "screenshot", "check_permissions"]

let methods: [String: (Params) throws -> JSON] = [
    "hello": { _ in
        ["protocol": protocolVersion,
         "helper": ["name": "ax_server-macos", "version": helperVersion, "platform": "darwin", "pid": Int(getpid())] as JSON,
         "capabilities": methodNames.sorted() + ["observers"],
         "screen": screenInfo() ?? NSNull()]
    },
    "ping": { _ in ["ok": true] },
    "list_apps": { _ in ["apps": runningApps().map { appInfo($0, windows: true) }] },
    "snapshot": { p in try snapshot(p) },
    "find": { p in try find(p) },
    "click": { p in try click(p, pressOnly: false) },
    "press": { p in try click(p, pressOnly: true) },
    "set_value": { p in try setValue(p) },
    "get_value": { p in try getValue(p) },
    "focus": { p in try focus(p) },
    "scroll": { p in try scroll(p) },
    "key": { p in try key(p) },
    "type_text": { p in try typeText(p) },
    "mouse": { p in try mouse(p) },
    "wait_for": { p in try waitFor(p) },
    "annotate": { p in try annotate(p) },
    "screenshot": { p in try screenshot(p) },
    "check_permissions": { _ in checkPermissions() },
]

func pidOf(_ n: Node) -> pid_t {
    var pid: pid_t = 0
    AXUIElementGetPid(n.el, &pid)
    return pid
}

func centre(_ b: [Int]) -> (Int, Int) { (b[0] + b[2] / 2, b[1] + b[3] / 2) }

/// The element at a screen point is the target or inside it: a synthetic click there hits the target.
func hitsTarget(_ n: Node, _ x: Int, _ y: Int) -> Bool {
    var hit: AXUIElement?
    guard AXUIElementCopyElementAtPosition(AXUIElementCreateSystemWide(), Float(x), Float(y), &hit) == .success, var cur = hit else { return false }
    for _ in 0 ..< 100 {
        if CFEqual(cur, n.el) { return true }
        guard let p = parent(cur) else { return false }
        cur = p
    }
    return false
}

func click(_ p: Params, pressOnly: Bool) throws -> JSON {
    guard let target = p.dict("target") else {
        if pressOnly { throw AxFail(code: .invalid, message: "press needs a target") }
        let coordinates: Params = ["action": "click", "x": p["x"] ?? NSNull(), "y": p["y"] ?? NSNull(), "button": p["button"] ?? "left", "count": p["count"] ?? 1]
        return try mouse(coordinates)
    }
    let (n, how) = try resolve(target, .act)
    var out: JSON = ["acted_on": actedOn(n, how)]
    let watch = EffectWatch(pid: pidOf(n))
    let button = p.str("button") ?? "left"
    let count = p.int("count") ?? 1
    if button == "left" && count == 1, let action = clickActions.first(where: { actions(n.el).contains($0) }) {
        let err = AXUIElementPerformAction(n.el, action as CFString)
        if err == .success {
            out["method"] = "action:\(action)"
            out["effect"] = watch.wait(maxMs: waitMs(p))
            return out
        }
        if pressOnly { watch.stop(); throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" refused \(action) (AX error \(err.rawValue))") }
    } else if pressOnly {
        watch.stop()
        throw AxFail(code: .unsupported, message: "\(n.role) \"\(n.name)\" has no press action", hint: "use click, which falls back to the mouse")
    }
    guard let b = bounds(n.el) else { watch.stop(); throw AxFail(code: .notVisible, message: "\(n.role) \"\(n.name)\" has no bounds to click") }
    let (x, y) = centre(b)
    guard hitsTarget(n, x, y) else {
        watch.stop()
        throw AxFail(code: .notVisible, message: "\(n.role) \"\(n.name)\" is covered at its centre", hint: "close what covers it, then take a new snapshot")
    }
    postClick(x, y, button: button, count: count)
    out["method"] = "mouse"
    out["effect"] = watch.wait(maxMs: waitMs(p))
    return out
}

func getValue(_ p: Params) throws -> JSON {
    let (n, how) = try resolve(p.dict("target"), .read)
    var out: JSON = ["acted_on": actedOn(n, how)]
    if n.secure {
        out["value"] = NSNull(); out["kind"] = "text"; out["secure"] = true
        if let len = secureLength(n.el) { out["length"] = len }
        return out
    }
    let v = attr(n.el, kAXValueAttribute)
    if ["checkbox", "radio", "switch"].contains(n.role) {
        out["value"] = ((v as? NSNumber)?.intValue ?? 0) == 1 ? "true" : "false"
        out["kind"] = "state"
    } else if let num = v as? NSNumber {
        out["value"] = String(format: "%g", num.doubleValue)
        out["kind"] = "number"
        out["min"] = (attr(n.el, kAXMinValueAttribute) as? NSNumber)?.doubleValue ?? NSNull()
        out["max"] = (attr(n.el, kAXMaxValueAttribute) as? NSNumber)?.doubleValue ?? NSNull()
    } else if let s = v as? String {
        out["value"] = s
        out["kind"] = "text"
    } else {
        out["value"] = n.name
        out["kind"] = "name"
    }
    return out
}

func setValue(_ p: Params) throws -> JSON {
    let (n, how) = try resolve(p.dict("target"), .act)
    guard let value = p.str("value") else { throw AxFail(code: .invalid, message: "value must be a string") }
    var out: JSON = ["acted_on": actedOn(n, how)]
    let watch = EffectWatch(pid: pidOf(n))
    if ["checkbox", "radio", "switch"].contains(n.role) {
        let want = ["true", "on", "yes", "1", "checked"].contains(value.lowercased())
        let isOn = ((attr(n.el, kAXValueAttribute) as? NSNumber)?.intValue ?? 0) == 1
        if want != isOn {
            guard AXUIElementPerformAction(n.el, kAXPressAction as CFString) == .success else { watch.stop(); throw AxFail(code: .failed, message: "could not toggle \(n.role) \"\(n.name)\"") }
        }
        out["method"] = want == isOn ? "none" : "action:AXPress"
        out["value"] = want ? "true" : "false"
        out["effect"] = watch.wait(maxMs: want == isOn ? 0 : waitMs(p))
        let nowOn = ((attr(n.el, kAXValueAttribute) as? NSNumber)?.intValue ?? 0) == 1
        guard nowOn == want else {
            throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" is still \(nowOn ? "checked" : "unchecked") after pressing it")
        }
        out["verified"] = true
        return out
    }
    var settable = DarwinBoolean(false)
    AXUIElementIsAttributeSettable(n.el, kAXValueAttribute as CFString, &settable)
    guard settable.boolValue else { watch.stop(); throw AxFail(code: .unsupported, message: "\(n.role) \"\(n.name)\" has no value to set") }
    let current = attr(n.el, kAXValueAttribute)
    let newValue: AnyObject
    if current is NSNumber {
        guard let d = Double(value) else { watch.stop(); throw AxFail(code: .invalid, message: "\(n.role) takes a number, not \(value)") }
        if let lo = (attr(n.el, kAXMinValueAttribute) as? NSNumber)?.doubleValue, let hi = (attr(n.el, kAXMaxValueAttribute) as? NSNumber)?.doubleValue, d < lo || d > hi {
            watch.stop()
            throw AxFail(code: .invalid, message: "\(d) is outside \(n.role) \"\(n.name)\"’s range \(lo)–\(hi)")
        }
        newValue = NSNumber(value: d)
    } else {
        newValue = value as NSString
    }
    AXUIElementSetAttributeValue(n.el, kAXFocusedAttribute as CFString, kCFBooleanTrue)
    let err = AXUIElementSetAttributeValue(n.el, kAXValueAttribute as CFString, newValue)
    if n.secure {
        // A secure field never shows its value, but it tells its length: the set value is verified by
        // AXNumberOfCharacters (UTF-16 units, as NSString counts). When setting AXValue was refused or did
        // not take, the text is typed into the focused field instead, and verified the same way.
        let want = (value as NSString).length
        var method = "value"
        if err != .success || secureLength(n.el) != want {
            method = "keys"
            do { try retypeSecure(n, value) } catch { watch.stop(); throw error }
        }
        out["effect"] = watch.wait(maxMs: waitMs(p))
        let have = secureLength(n.el)
        guard have == want else {
            throw AxFail(code: .failed, message: "the secure field \"\(n.name)\" holds \(have.map(String.init) ?? "an unknown number of") characters after setting \(want); it was not set", hint: "focus the field and type the text")
        }
        out["method"] = method
        out["value"] = NSNull()
        out["secure"] = true
        out["verified"] = true
        return out
    }
    guard err == .success else { watch.stop(); throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" refused the value (AX error \(err.rawValue))") }
    out["method"] = "value"
    out["effect"] = watch.wait(maxMs: waitMs(p))
    // Read back: a text field that shows something else was not set (the app refused or rewrote it).
    if newValue is NSString, n.role == "textfield" || n.role == "textarea" {
        let shown = attrString(n.el, kAXValueAttribute)
        if shown != value {
            throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" shows \(shown.map { "\"\(clip($0, 80))\"" } ?? "nothing") after setting \"\(clip(value, 80))\"", hint: "read its value, or type the text into it")
        }
    }
    if let want = newValue as? NSNumber {
        // A slider or stepper may round to its step: within half a step (or 0.5 %) of the number is set.
        let have = (attr(n.el, kAXValueAttribute) as? NSNumber)?.doubleValue
        let lo = (attr(n.el, kAXMinValueAttribute) as? NSNumber)?.doubleValue ?? 0
        let hi = (attr(n.el, kAXMaxValueAttribute) as? NSNumber)?.doubleValue ?? 0
        let tolerance = max(abs(hi - lo) * 0.005, 1e-9)
        guard let h = have, abs(h - want.doubleValue) <= tolerance else {
            throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" shows \(have.map { String(format: "%g", $0) } ?? "no value") after setting \(want)")
        }
    }
    out["verified"] = true
    out["value"] = Node(n.el).value() ?? value
    return out
}

/// A secure field's length: AXNumberOfCharacters (it never gives its value).
func secureLength(_ el: AXUIElement) -> Int? {
    (attr(el, kAXNumberOfCharactersAttribute) as? NSNumber)?.intValue
}

/// Types `value` into a secure field in the frontmost app: focus it, select what it holds, type over it.
func retypeSecure(_ n: Node, _ value: String) throws {
    guard frontPid() == pidOf(n) else {
        throw AxFail(code: .failed, message: "the secure field \"\(n.name)\" did not take the value, and its app is not frontmost to type it", hint: "focus the app first (accessibility focus with app)")
    }
    AXUIElementSetAttributeValue(n.el, kAXFocusedAttribute as CFString, kCFBooleanTrue)
    let (focused, _) = waitUntil(timeoutMs: 1000) { attrBool(n.el, kAXFocusedAttribute) == true ? true : nil }
    guard focused == true else { throw AxFail(code: .failed, message: "the secure field \"\(n.name)\" did not take the keyboard focus; nothing was typed") }
    if let combo = try? parseCombo("cmd+a") { postKey(combo.1, flags: combo.0) }
    postKey(51, flags: []) // delete the selection
    if !value.isEmpty { postText(value) }
    // Let the field take the keys before it is read back.
    _ = waitUntil(timeoutMs: 500) { secureLength(n.el) == (value as NSString).length ? true : nil }
}

func focus(_ p: Params) throws -> JSON {
    if let t = p.dict("target") {
        let (n, how) = try resolve(t, .act)
        AXUIElementSetAttributeValue(n.el, kAXFocusedAttribute as CFString, kCFBooleanTrue)
        let (ok, _) = waitUntil(timeoutMs: 1000) { attrBool(n.el, kAXFocusedAttribute) == true ? true : nil }
        guard ok == true else { throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" did not take the keyboard focus") }
        return ["acted_on": actedOn(n, how), "focused": true]
    }
    let app = try findApp(p)
    app.activate()
    let (ok, _) = waitUntil(timeoutMs: 1500) { NSWorkspace.shared.frontmostApplication?.processIdentifier == app.processIdentifier ? true : nil }
    return ["app": appInfo(app, windows: false), "focused": ok == true]
}

/// With a target: it must be in the frontmost app and take the focus, or no key is sent (no keys land in another app).
func prepareKeyboard(_ p: Params) throws -> (Node, String)? {
    guard let t = p.dict("target") else {
        // No target: the keys are for the app `pid`/`app` names, brought to the front and checked there.
        if p["pid"] != nil || p["app"] != nil {
            let app = try findApp(p)
            if frontPid() != app.processIdentifier {
                app.activate()
                let (ok, _) = waitUntil(timeoutMs: 1500) { frontPid() == app.processIdentifier ? true : nil }
                guard ok == true else {
                    throw AxFail(code: .failed, message: "\(app.localizedName ?? "the app") did not come to the front; no keys were sent", hint: "focus the app first (accessibility focus with app)")
                }
            }
        }
        return nil
    }
    let (n, how) = try resolve(t, .act)
    guard NSWorkspace.shared.frontmostApplication?.processIdentifier == pidOf(n) else {
        throw AxFail(code: .notVisible, message: "the app of \(n.role) \"\(n.name)\" is not frontmost: keystrokes would go to another app", hint: "focus the app first (accessibility focus with app)")
    }
    AXUIElementSetAttributeValue(n.el, kAXFocusedAttribute as CFString, kCFBooleanTrue)
    let (ok, _) = waitUntil(timeoutMs: 1000) { attrBool(n.el, kAXFocusedAttribute) == true ? true : nil }
    guard ok == true else { throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" did not take the keyboard focus; no keys were sent") }
    return (n, how)
}

func frontPid() -> pid_t { NSWorkspace.shared.frontmostApplication?.processIdentifier ?? 0 }

/// `{name, pid}` of the app keys went to (the answer's `app`).
func appSummary(_ pid: pid_t) -> JSON {
    let app = NSRunningApplication(processIdentifier: pid)
    return ["name": app?.localizedName ?? app?.bundleIdentifier ?? "?", "pid": Int(pid)]
}

func key(_ p: Params) throws -> JSON {
    let list: [String] = (p["keys"] as? [String]) ?? [p.str("keys") ?? ""]
    let combos = try list.map(parseCombo)
    let target = try prepareKeyboard(p)
    // Only the events of the app the keys went to count as their effect.
    let pid = target.map { pidOf($0.0) } ?? frontPid()
    let watch = EffectWatch(pid: pid)
    for (flags, code) in combos {
        guard frontPid() == pid else { watch.stop(); throw AxFail(code: .failed, message: "the keyboard focus moved to another app; the keys after that were not sent") }
        postKey(code, flags: flags)
    }
    var out: JSON = ["method": "keys", "effect": watch.wait(maxMs: waitMs(p, 400)), "app": appSummary(pid)]
    if let t = target { out["acted_on"] = actedOn(t.0, t.1) }
    return out
}

func typeText(_ p: Params) throws -> JSON {
    guard let text = p.str("text"), !text.isEmpty else { throw AxFail(code: .invalid, message: "text must be a non-empty string") }
    if let t = p.dict("target") {
        let (n, how) = try resolve(t, .act)
        var settable = DarwinBoolean(false)
        AXUIElementIsAttributeSettable(n.el, kAXSelectedTextAttribute as CFString, &settable)
        if settable.boolValue {
            // Replaces the selection (the caret: an empty selection) through the app, not the keyboard.
            let watch = EffectWatch(pid: pidOf(n))
            let before = n.secure ? nil : attrString(n.el, kAXValueAttribute)
            let lengthBefore = n.secure ? secureLength(n.el) : nil
            let err = AXUIElementSetAttributeValue(n.el, kAXSelectedTextAttribute as CFString, text as CFString)
            guard err == .success else { watch.stop(); throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" refused the text") }
            var out: JSON = ["acted_on": actedOn(n, how), "method": "insert_text", "effect": watch.wait(maxMs: waitMs(p, 400)), "app": appSummary(pidOf(n))]
            // Read back: the text holds what was inserted (a secure field: its length grew by it).
            if n.secure, let l0 = lengthBefore, let l1 = secureLength(n.el) {
                // Inserted at the caret, or over a selection: at least the text's length, and more than before unless it replaced one.
                guard l1 >= (text as NSString).length, l1 != l0 || (text as NSString).length == 0 else {
                    throw AxFail(code: .failed, message: "the secure field \"\(n.name)\" did not take the text (\(l1) characters)")
                }
                out["verified"] = true
            } else if let after = attrString(n.el, kAXValueAttribute), before != nil {
                guard after.contains(text) else {
                    throw AxFail(code: .failed, message: "\(n.role) \"\(n.name)\" does not hold the inserted text", hint: "read its value, or type the text with the keyboard")
                }
                out["verified"] = true
            } else {
                out["verified"] = false
            }
            return out
        }
    }
    let target = try prepareKeyboard(p)
    let pid = target.map { pidOf($0.0) } ?? frontPid()
    let watch = EffectWatch(pid: pid)
    guard frontPid() == pid else { watch.stop(); throw AxFail(code: .failed, message: "the keyboard focus is in another app; nothing was typed") }
    postText(text)
    // Typed through the keyboard: nothing to read back reliably (a shortcut, a canvas).
    var out: JSON = ["method": "keys", "effect": watch.wait(maxMs: waitMs(p, 400)), "app": appSummary(pid), "verified": false]
    if let t = target { out["acted_on"] = actedOn(t.0, t.1) }
    return out
}

func mouse(_ p: Params) throws -> JSON {
    guard let x = p.int("x"), let y = p.int("y") else { throw AxFail(code: .invalid, message: "mouse needs x and y (screen points)") }
    let watch = EffectWatch(pid: frontPid())
    switch p.str("action") ?? "click" {
    case "click": postClick(x, y, button: p.str("button") ?? "left", count: p.int("count") ?? 1)
    case "move": postMove(x, y)
    case "down": postButton(x, y, down: true)
    case "up": postButton(x, y, down: false)
    case "drag":
        guard let tx = p.int("to_x"), let ty = p.int("to_y") else { watch.stop(); throw AxFail(code: .invalid, message: "drag needs to_x and to_y") }
        postMove(x, y)
        postButton(x, y, down: true)
        for i in 1 ... 8 { postMove(x + (tx - x) * i / 8, y + (ty - y) * i / 8, dragging: true); usleep(8000) }
        postButton(tx, ty, down: false)
    default:
        watch.stop()
        throw AxFail(code: .invalid, message: "unknown mouse action")
    }
    return ["method": "mouse", "point": [x, y], "effect": watch.wait(maxMs: waitMs(p, 300))]
}

func scroll(_ p: Params) throws -> JSON {
    let direction = p.str("direction") ?? "down"
    let amount = max(1, min(p.int("amount") ?? 3, 50))
    guard let t = p.dict("target") else {
        guard let x = p.int("x"), let y = p.int("y") else { throw AxFail(code: .invalid, message: "scroll needs a target, or x and y") }
        let watch = EffectWatch(pid: frontPid())
        postScroll(x, y, direction: direction, amount: amount)
        return ["method": "wheel", "effect": watch.wait(maxMs: waitMs(p, 300))]
    }
    let (n, how) = try resolve(t, .scroll)
    var out: JSON = ["acted_on": actedOn(n, how)]
    let watch = EffectWatch(pid: pidOf(n))
    if p.bool("into_view") {
        if let b = bounds(n.el), onScreen(n.el, b) {
            watch.stop()
            out["method"] = "none"; out["in_view"] = true
            return out
        }
        if actions(n.el).contains("AXScrollToVisible") { AXUIElementPerformAction(n.el, "AXScrollToVisible" as CFString) }
        let (ok, _) = waitUntil(timeoutMs: 800) { () -> Bool? in
            guard let b = bounds(n.el), onScreen(n.el, b) else { return nil }
            return true
        }
        guard ok == true else { watch.stop(); throw AxFail(code: .failed, message: "could not bring \(n.role) \"\(n.name)\" into view") }
        out["method"] = "scroll_to"; out["in_view"] = true; out["effect"] = watch.wait(maxMs: 0)
        return out
    }
    guard let b = bounds(n.el) else { watch.stop(); throw AxFail(code: .notVisible, message: "\(n.role) \"\(n.name)\" has no bounds to scroll at") }
    let (x, y) = centre(b)
    postScroll(x, y, direction: direction, amount: amount)
    out["method"] = "wheel"
    out["effect"] = watch.wait(maxMs: waitMs(p, 300))
    return out
}

func waitFor(_ p: Params) throws -> JSON {
    let condition = p.str("condition") ?? ""
    let timeout = max(0, min(p.int("timeout_ms") ?? 10000, 120000))
    let query = p.dict("query") ?? [:]
    let target = p.dict("target")
    let want = p.str("value")
    func findNow() throws -> [JSON] {
        var q = query
        for k in ["app", "pid"] { if let v = p[k] { q[k] = v } }
        q["max_results"] = 2
        return (try find(q)["elements"] as? [JSON]) ?? []
    }
    let check: () throws -> JSON?
    switch condition {
    case "exists" where target == nil:
        check = { try findNow().first }
    case "gone" where target == nil:
        check = { try findNow().isEmpty ? ["gone": true] : nil }
    case "gone":
        check = {
            do { _ = try resolve(target, .act); return nil } catch let e as AxFail where [.staleRef, .notVisible, .appGone].contains(e.code) { return ["gone": true] }
        }
    case "value", "enabled", "focused", "checked", "unchecked":
        guard target != nil else { throw AxFail(code: .invalid, message: "\(condition) needs a target") }
        check = {
            let (n, how) = try resolve(target, .read)
            switch condition {
            case "enabled": return n.enabled ? actedOn(n, how) : nil
            case "focused": return attrBool(n.el, kAXFocusedAttribute) == true ? actedOn(n, how) : nil
            case "checked", "unchecked":
                let on = ((attr(n.el, kAXValueAttribute) as? NSNumber)?.intValue ?? 0) == 1
                return on == (condition == "checked") ? actedOn(n, how) : nil
            default:
                let v = norm(n.value())
                let ok = p.bool("exact") ? v == norm(want) : v.lowercased().contains(norm(want).lowercased())
                return ok ? ["value": v] : nil
            }
        }
    case "window":
        guard let w = want else { throw AxFail(code: .invalid, message: "window needs the title in value") }
        check = {
            for app in runningApps() {
                let info = appInfo(app, windows: true)
                for win in (info["windows"] as? [JSON]) ?? [] where (win.str("name") ?? "").lowercased().contains(norm(w).lowercased()) {
                    return ["window": win.str("name") ?? "", "app": info.str("name") ?? "", "pid": info.int("pid") ?? 0]
                }
            }
            return nil
        }
    default:
        throw AxFail(code: .invalid, message: "unknown condition \(condition)")
    }
    let (value, waited) = try waitUntil(timeoutMs: timeout, check)
    guard let v = value else { throw AxFail(code: .timeout, message: "waited \(timeout) ms and the condition \(condition) did not hold") }
    var out: JSON = ["met": true, "waited_ms": waited]
    if v["role"] != nil && v["id"] != nil { out["element"] = v } else { out.merge(v) { a, _ in a } }
    return out
}

func annotate(_ p: Params) throws -> JSON {
    var q = p
    if q["filter"] == nil { q["filter"] = "interactive" }
    var snap = try snapshot(q)
    let elements = (snap["elements"] as? [JSON]) ?? []
    let limit = max(1, min(p.int("max_labels") ?? 50, 200))
    var labels: [JSON] = []
    var items: [(Int, [Int])] = []
    for (i, el) in elements.enumerated() where labels.count < limit {
        guard let b = el["bounds"] as? [Int], !["window", "dialog", "group", "application"].contains(el.str("role") ?? "") else { continue }
        labels.append(["label": labels.count + 1, "index": i])
        items.append((labels.count, b))
    }
    for (k, v) in try annotateImage(items, maxWidth: p.int("max_width") ?? 0) { snap[k] = v }
    snap["labels"] = labels
    return snap
}

func checkPermissions() -> JSON {
    let trusted = AXIsProcessTrusted()
    let screen = CGPreflightScreenCaptureAccess()
    return ["accessibility": trusted ? "granted" : "denied", "screen_recording": screen ? "granted" : "denied", "automation": "unknown",
            "details": ["bundle": Bundle.main.bundlePath, "pid": Int(getpid()),
                        "hint": trusted && screen ? NSNull() : "allow Rein AX in System Settings → Privacy & Security (Accessibility, Screen Recording)"]]
}
