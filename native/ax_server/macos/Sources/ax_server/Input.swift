// Synthetic input (CGEvent) and waiting for an action's effect: an AXObserver on the target app for the
// notifications that show a change, and the run loop run until one arrives (bounded) instead of a sleep.
import AppKit
import ApplicationServices
import Carbon
import Foundation

// MARK: - effects

final class EffectWatch {
    private var observer: AXObserver?
    private(set) var events: [String] = []
    private let pid: pid_t

    static let notifications = [
        kAXValueChangedNotification, kAXTitleChangedNotification, kAXFocusedUIElementChangedNotification,
        kAXUIElementDestroyedNotification, kAXCreatedNotification, kAXWindowCreatedNotification,
        kAXSelectedChildrenChangedNotification, kAXSelectedTextChangedNotification, kAXLayoutChangedNotification,
    ]

    init(pid: pid_t) {
        self.pid = pid
        var obs: AXObserver?
        let callback: AXObserverCallback = { _, _, name, refcon in
            guard let refcon = refcon else { return }
            let me = Unmanaged<EffectWatch>.fromOpaque(refcon).takeUnretainedValue()
            me.events.append(name as String)
        }
        guard AXObserverCreate(pid, callback, &obs) == .success, let o = obs else { return }
        observer = o
        let app = AXUIElementCreateApplication(pid)
        let me = Unmanaged.passUnretained(self).toOpaque()
        for n in EffectWatch.notifications { AXObserverAddNotification(o, app, n as CFString, me) }
        CFRunLoopAddSource(CFRunLoopGetCurrent(), AXObserverGetRunLoopSource(o), .defaultMode)
    }

    /// Runs the run loop until a notification came (at most maxMs), then for a short quiet spell.
    func wait(maxMs: Int, quietMs: Int = 12, capMs: Int = 150) -> JSON {
        let started = Date()
        let deadline = started.addingTimeInterval(Double(maxMs) / 1000)
        while events.isEmpty && Date() < deadline {
            CFRunLoopRunInMode(.defaultMode, min(0.02, deadline.timeIntervalSinceNow), true)
        }
        if !events.isEmpty {
            let first = Date()
            var seen = events.count
            var lastChange = Date()
            while Date().timeIntervalSince(first) < Double(capMs) / 1000 && Date().timeIntervalSince(lastChange) < Double(quietMs) / 1000 {
                CFRunLoopRunInMode(.defaultMode, Double(quietMs) / 1000, true)
                if events.count != seen { seen = events.count; lastChange = Date() }
            }
        }
        var kinds: [String] = []
        for e in events where !kinds.contains(e) { kinds.append(e) }
        stop()
        return ["observed": !events.isEmpty, "events": Array(kinds.prefix(12)), "waited_ms": Int(Date().timeIntervalSince(started) * 1000)]
    }

    func stop() {
        guard let o = observer else { return }
        CFRunLoopRemoveSource(CFRunLoopGetCurrent(), AXObserverGetRunLoopSource(o), .defaultMode)
        observer = nil
    }
}

func waitMs(_ p: Params, _ def: Int = 800) -> Int { max(0, min(p.int("wait_ms") ?? def, 10000)) }

/// Runs `check` now and after every run-loop turn (at most every 50 ms) until it is non-nil or the time is up.
func waitUntil<T>(timeoutMs: Int, _ check: () throws -> T?) rethrows -> (T?, Int) {
    let started = Date()
    let deadline = started.addingTimeInterval(Double(timeoutMs) / 1000)
    var value = try check()
    while value == nil && Date() < deadline {
        CFRunLoopRunInMode(.defaultMode, 0.05, true)
        value = try check()
    }
    return (value, Int(Date().timeIntervalSince(started) * 1000))
}

// MARK: - keys

/// Keys that are not characters: their virtual key codes are the same on every layout (kVK_Return,
/// kVK_ANSI_… are positions; these are not). Character keys come from the current layout (KeyboardLayout).
let namedKeyCodes: [String: CGKeyCode] = [
    "return": 36, "enter": 36, "tab": 48, "space": 49, "delete": 51, "backspace": 51, "escape": 53, "esc": 53,
    "forwarddelete": 117, "home": 115, "end": 119, "pageup": 116, "pagedown": 121,
    "left": 123, "right": 124, "down": 125, "up": 126,
    "f1": 122, "f2": 120, "f3": 99, "f4": 118, "f5": 96, "f6": 97, "f7": 98, "f8": 100, "f9": 101, "f10": 109, "f11": 103, "f12": 111,
]

/// US ANSI positions: only when the system gives no layout data at all (it always should).
let usFallbackKeyCodes: [String: CGKeyCode] = [
    "a": 0, "s": 1, "d": 2, "f": 3, "h": 4, "g": 5, "z": 6, "x": 7, "c": 8, "v": 9, "b": 11, "q": 12, "w": 13, "e": 14, "r": 15,
    "y": 16, "t": 17, "1": 18, "2": 19, "3": 20, "4": 21, "6": 22, "5": 23, "=": 24, "9": 25, "7": 26, "-": 27, "8": 28, "0": 29,
    "]": 30, "o": 31, "u": 32, "[": 33, "i": 34, "p": 35, "l": 37, "j": 38, "'": 39, "k": 40, ";": 41, "\\": 42, ",": 43, "/": 44,
    "n": 45, "m": 46, ".": 47, "`": 50,
]

/// Which key types a character on the keyboard layout in use, found with UCKeyTranslate over the layout's
/// 'uchr' data (so cmd+z is the key that shows z on an AZERTY or QWERTZ keyboard, not the US position).
/// Rebuilt when the current input source changes. An input method without layout data (Japanese kana, …)
/// is read through the ASCII-capable layout the system pairs with it.
enum KeyboardLayout {
    struct Key { let code: CGKeyCode; let shift: Bool }
    private static var sourceId: String?
    private static var keys: [String: Key] = [:]
    private(set) static var name = "?"

    static func key(for ch: String) -> Key? {
        refresh()
        if keys.isEmpty { return usFallbackKeyCodes[ch.lowercased()].map { Key(code: $0, shift: false) } }
        return keys[ch] ?? keys[ch.lowercased()]
    }

    private static func property(_ source: TISInputSource, _ key: CFString) -> UnsafeMutableRawPointer? {
        TISGetInputSourceProperty(source, key)
    }

    private static func refresh() {
        var source = TISCopyCurrentKeyboardLayoutInputSource()?.takeRetainedValue()
        if let s = source, property(s, kTISPropertyUnicodeKeyLayoutData) == nil {
            source = TISCopyCurrentASCIICapableKeyboardLayoutInputSource()?.takeRetainedValue()
        }
        guard let src = source, let layoutPtr = property(src, kTISPropertyUnicodeKeyLayoutData) else {
            if !keys.isEmpty || sourceId != "none" { log("no keyboard layout data; using US key positions") }
            keys = [:]
            sourceId = "none"
            return
        }
        let id = property(src, kTISPropertyInputSourceID).map { Unmanaged<CFString>.fromOpaque($0).takeUnretainedValue() as String } ?? "?"
        if id == sourceId { return }
        name = property(src, kTISPropertyLocalizedName).map { Unmanaged<CFString>.fromOpaque($0).takeUnretainedValue() as String } ?? id
        let data = Unmanaged<CFData>.fromOpaque(layoutPtr).takeUnretainedValue()
        guard let bytes = CFDataGetBytePtr(data) else { return }
        let layout = UnsafeRawPointer(bytes).assumingMemoryBound(to: UCKeyboardLayout.self)
        var map: [String: Key] = [:]
        let kbdType = UInt32(LMGetKbdType())
        // Unshifted first, so a character both give (digits on some layouts) is typed without shift.
        for shift in [false, true] {
            let modifiers = shift ? UInt32((shiftKey >> 8) & 0xFF) : 0
            for code in 0 ..< 128 {
                var dead: UInt32 = 0
                var length = 0
                var chars = [UniChar](repeating: 0, count: 4)
                let status = UCKeyTranslate(layout, UInt16(code), UInt16(kUCKeyActionDown), modifiers, kbdType,
                                            OptionBits(1 << kUCKeyTranslateNoDeadKeysBit), &dead, chars.count, &length, &chars)
                guard status == noErr, length > 0 else { continue }
                let ch = String(utf16CodeUnits: chars, count: length)
                // Control characters (Return, Tab, Escape…) are named keys, not characters.
                if ch.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { continue }
                if map[ch] == nil { map[ch] = Key(code: CGKeyCode(code), shift: shift) }
            }
        }
        keys = map
        sourceId = id
    }
}

let modifierFlags: [String: CGEventFlags] = [
    "cmd": .maskCommand, "command": .maskCommand, "super": .maskCommand, "meta": .maskCommand,
    "shift": .maskShift, "alt": .maskAlternate, "option": .maskAlternate, "ctrl": .maskControl, "control": .maskControl,
]

func parseCombo(_ keys: String) throws -> (CGEventFlags, CGKeyCode) {
    var parts = keys.trimmingCharacters(in: .whitespaces).split(separator: "+", omittingEmptySubsequences: false).map(String.init)
    if keys.hasSuffix("++") { parts = Array(parts.dropLast(2)) + ["+"] }
    guard let last = parts.last, !last.isEmpty else { throw AxFail(code: .invalid, message: "keys must be a key name or a combination such as cmd+a") }
    var flags: CGEventFlags = []
    for m in parts.dropLast() {
        guard let f = modifierFlags[m.lowercased()] else { throw AxFail(code: .invalid, message: "unknown modifier \(m) (cmd, shift, alt, ctrl)") }
        flags.insert(f)
    }
    if let code = namedKeyCodes[last.lowercased()] { return (flags, code) }
    guard last.count == 1 else {
        throw AxFail(code: .invalid, message: "unknown key \(last) (use names like return, tab, escape, up, f5, a single character, or cmd+shift+a)")
    }
    // With modifiers, a letter names its key (ctrl+A is ctrl+a, as before); alone, "A" is shift+a.
    guard let key = (flags.isEmpty ? nil : KeyboardLayout.key(for: last.lowercased())) ?? KeyboardLayout.key(for: last) else {
        throw AxFail(code: .invalid, message: "no key types \(last) on the current keyboard layout (\(KeyboardLayout.name))", hint: "type it as text instead")
    }
    if key.shift { flags.insert(.maskShift) }
    return (flags, key.code)
}

func postKey(_ code: CGKeyCode, flags: CGEventFlags) {
    let src = CGEventSource(stateID: .hidSystemState)
    let down = CGEvent(keyboardEventSource: src, virtualKey: code, keyDown: true)
    let up = CGEvent(keyboardEventSource: src, virtualKey: code, keyDown: false)
    down?.flags = flags
    up?.flags = flags
    down?.post(tap: .cghidEventTap)
    up?.post(tap: .cghidEventTap)
}

/// Any Unicode text, one character at a time, without a key table.
func postText(_ text: String) {
    let src = CGEventSource(stateID: .hidSystemState)
    for ch in text {
        if ch == "\n" { postKey(36, flags: []); continue }
        if ch == "\t" { postKey(48, flags: []); continue }
        let units = Array(String(ch).utf16)
        for keyDown in [true, false] {
            let e = CGEvent(keyboardEventSource: src, virtualKey: 0, keyDown: keyDown)
            units.withUnsafeBufferPointer { e?.keyboardSetUnicodeString(stringLength: units.count, unicodeString: $0.baseAddress) }
            e?.post(tap: .cghidEventTap)
        }
        usleep(2000)
    }
}

// MARK: - mouse

func postClick(_ x: Int, _ y: Int, button: String = "left", count: Int = 1) {
    let point = CGPoint(x: x, y: y)
    let (down, up, btn): (CGEventType, CGEventType, CGMouseButton) = {
        switch button {
        case "right": return (.rightMouseDown, .rightMouseUp, .right)
        case "middle": return (.otherMouseDown, .otherMouseUp, .center)
        default: return (.leftMouseDown, .leftMouseUp, .left)
        }
    }()
    CGEvent(mouseEventSource: nil, mouseType: .mouseMoved, mouseCursorPosition: point, mouseButton: btn)?.post(tap: .cghidEventTap)
    for i in 1 ... max(1, min(count, 3)) {
        let d = CGEvent(mouseEventSource: nil, mouseType: down, mouseCursorPosition: point, mouseButton: btn)
        let u = CGEvent(mouseEventSource: nil, mouseType: up, mouseCursorPosition: point, mouseButton: btn)
        d?.setIntegerValueField(.mouseEventClickState, value: Int64(i))
        u?.setIntegerValueField(.mouseEventClickState, value: Int64(i))
        d?.post(tap: .cghidEventTap)
        u?.post(tap: .cghidEventTap)
    }
}

func postMove(_ x: Int, _ y: Int, dragging: Bool = false) {
    let type: CGEventType = dragging ? .leftMouseDragged : .mouseMoved
    CGEvent(mouseEventSource: nil, mouseType: type, mouseCursorPosition: CGPoint(x: x, y: y), mouseButton: .left)?.post(tap: .cghidEventTap)
}

func postButton(_ x: Int, _ y: Int, down: Bool) {
    CGEvent(mouseEventSource: nil, mouseType: down ? .leftMouseDown : .leftMouseUp, mouseCursorPosition: CGPoint(x: x, y: y), mouseButton: .left)?.post(tap: .cghidEventTap)
}

func postScroll(_ x: Int, _ y: Int, direction: String, amount: Int) {
    postMove(x, y)
    let dy: Int32 = direction == "up" ? Int32(amount) : direction == "down" ? -Int32(amount) : 0
    let dx: Int32 = direction == "left" ? Int32(amount) : direction == "right" ? -Int32(amount) : 0
    CGEvent(scrollWheelEvent2Source: nil, units: .line, wheelCount: 2, wheel1: dy, wheel2: dx, wheel3: 0)?.post(tap: .cghidEventTap)
}
