// The protocol's error codes and numbers (src-main/core/ax/protocol.ts, AX_ERROR_NUMBERS) and JSON helpers.
import Foundation

let protocolVersion = 1
let helperVersion = "0.1.0"

enum AxCode: String {
    case staleRef = "STALE_REF"
    case notFound = "NOT_FOUND"
    case ambiguous = "AMBIGUOUS"
    case notVisible = "NOT_VISIBLE"
    case disabled = "DISABLED"
    case timeout = "TIMEOUT"
    case permission = "PERMISSION"
    case appGone = "APP_GONE"
    case unsupported = "UNSUPPORTED"
    case failed = "FAILED"
    case invalid = "INVALID"

    var number: Int {
        switch self {
        case .staleRef: return -32001
        case .notFound: return -32002
        case .ambiguous: return -32003
        case .notVisible: return -32004
        case .disabled: return -32005
        case .timeout: return -32006
        case .permission: return -32007
        case .appGone: return -32008
        case .unsupported: return -32009
        case .failed: return -32010
        case .invalid: return -32602
        }
    }
}

let snapshotHint = "take a new snapshot and use the ref it gives"

/// A refusal or failure the caller can act on; becomes a JSON-RPC error with data.code.
struct AxFail: Error {
    let code: AxCode
    let message: String
    var hint: String? = nil

    func toError() -> [String: Any] {
        var data: [String: Any] = ["code": code.rawValue]
        if let hint = hint { data["hint"] = hint }
        return ["code": code.number, "message": message, "data": data]
    }
}

typealias Params = [String: Any]
typealias JSON = [String: Any]

func encodeLine(_ obj: JSON) -> Data {
    var data = (try? JSONSerialization.data(withJSONObject: obj, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    data.append(0x0A)
    return data
}

extension Dictionary where Key == String, Value == Any {
    func str(_ k: String) -> String? { self[k] as? String }
    func int(_ k: String) -> Int? {
        if let n = self[k] as? NSNumber { return n.intValue }
        return nil
    }
    func double(_ k: String) -> Double? {
        if let n = self[k] as? NSNumber { return n.doubleValue }
        return nil
    }
    func bool(_ k: String) -> Bool { (self[k] as? NSNumber)?.boolValue ?? false }
    func dict(_ k: String) -> JSON? { self[k] as? JSON }
}

/// Whitespace collapsed: how names are compared on both sides.
func norm(_ s: String?) -> String {
    (s ?? "").split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
}

func clip(_ s: String, _ limit: Int = 200) -> String {
    s.count <= limit ? s : String(s.prefix(limit)) + "…"
}
