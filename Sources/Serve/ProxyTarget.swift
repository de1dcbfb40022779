import Foundation
import Vocabulary

/// Where a request for the proxy goes on the upstream: its target with dot segments
/// removed (RFC 3986 §5.2.4, `%2E` counted as a dot), put under the upstream URL's path.
/// A target that would climb above that path (`/../../etc/passwd` in front of
/// `http://h/base`) is refused rather than forwarded somewhere the user did not point
/// the proxy at.
///
/// ```swift
/// ProxyTarget.resolve("/a/./b/../c?x=1", basePath: "/base")   // .success("/base/a/c?x=1")
/// ProxyTarget.resolve("/../etc/passwd", basePath: "/base")    // .failure: climbs above /base
/// ```
enum ProxyTarget {
    /// Why a target is not forwarded.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    static func resolve(_ target: String, basePath: String) -> Result<String, Refusal> {
        guard target.hasPrefix("/") else {
            return .failure(Refusal(description: "the request target \(VisibleEscapes.escape(target)) is not a path starting with /; send origin-form targets such as /graphql"))
        }
        let split = target.firstIndex(of: "?")
        let path = split.map { target[..<$0] } ?? target[...]
        let query = split.map { target[$0...] } ?? ""
        var base = basePath
        while base.hasSuffix("/") { base.removeLast() }
        // Without a dot or a percent sign the path has no dot segment to resolve.
        if !path.utf8.contains(UInt8(ascii: ".")) && !path.utf8.contains(UInt8(ascii: "%")) { return .success(base + target) }
        var kept: [Substring] = []
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment.lowercased().replacingOccurrences(of: "%2e", with: ".") {
            case ".":
                if isLast { kept.append("") }
            case "..":
                guard !kept.isEmpty else {
                    let base = basePath.isEmpty ? "/" : basePath
                    return .failure(Refusal(description: "the path \(VisibleEscapes.escape(String(path))) climbs above the upstream's base path \(VisibleEscapes.escape(base)); it is not forwarded"))
                }
                kept.removeLast()
                if isLast { kept.append("") }
            default:
                kept.append(segment)
            }
        }
        return .success(base + "/" + kept.joined(separator: "/") + query)
    }
}
