package import ChainKit
package import Scheduling

extension StopPlace {
    /// A stop as scenario files (a script step's `until`) and recordings (a command's `at`)
    /// write it: `"launch"`, `"wake"`, `"refresh"` or `{"hop": N, "position": "pre"|"post"}`.
    package var json: JSONValue {
        switch self {
        case .launch: "launch"
        case .wake: "wake"
        case .refresh: "refresh"
        case .hop(let hop, let position): ["hop": .number(Double(hop)), "position": .string(position.rawValue)]
        }
    }

    /// The largest hop a file may name: the longest chain's layers, its cache step and its
    /// transport.
    package static let maximumHopInFiles = LabLimits.chainLength + 2

    /// The stop `json` writes (see ``json``); nil when it is none, or names a hop above
    /// ``maximumHopInFiles``.
    package init?(json: JSONValue) {
        switch json {
        case "launch": self = .launch
        case "wake": self = .wake
        case "refresh": self = .refresh
        default:
            guard json.objectValue?.keys.allSatisfy({ $0 == "hop" || $0 == "position" }) == true,
                let hop = json["hop"]?.numberValue, hop >= 0, hop <= Double(Self.maximumHopInFiles), hop.rounded() == hop,
                let position = json["position"]?.stringValue.flatMap(StopPosition.init(rawValue:))
            else { return nil }
            self = .hop(Int(hop), position)
        }
    }
}
