public import Timeline
public import Wire
import Foundation
import Vocabulary

/// A request as a curl command a person can paste into a shell, as seen at any hop.
///
/// Every argument is single-quoted (`'\''` for a quote inside); an argument holding control
/// or bidirectional-override characters uses bash/zsh `$'…'` quoting with visible escapes
/// instead, so the command reproduces the exact bytes and printing it cannot drive the
/// terminal. `-X` appears only when curl would not infer the method (GET without a body,
/// POST with one); HEAD uses `--head`.
///
/// ```swift
/// CurlExport.command(method: "POST", url: "https://lab.local/graphql",
///                    headers: try HTTPFields(["Authorization": "Bearer abcdefa1f3"]),
///                    body: #"{"query":"{hero{name}}"}"#, masking: .masked)
/// // curl 'https://lab.local/graphql' \
/// //   -H 'Authorization: Bearer ••••a1f3' \
/// //   --data-raw '{"query":"{hero{name}}"}'
/// ```
public enum CurlExport {
    /// The command for a request, one argument per line after the URL.
    public static func command(method: String, url: String, headers: HTTPFields, body: String?, masking: SecretMasking) -> String {
        var arguments = [quote(masking.url(url))]
        switch (method, body) {
        case ("GET", nil), ("POST", .some): break
        case ("HEAD", nil): arguments.append("--head")
        default: arguments.append("-X " + quote(method))
        }
        for (name, value) in masking.headers(headers) {
            arguments.append("-H " + quote("\(name): \(value)"))
        }
        if let body {
            arguments.append("--data-raw " + quote(masking.body(body, contentType: headers["Content-Type"])))
        }
        return "curl " + arguments.joined(separator: " \\\n  ")
    }

    /// The command for the request an event carries, or nil when it carries no method and
    /// URL (a response or a cache event). It sends the whole body; with `preview` (for a
    /// screen), only the body's preview, and a body cut that way is said so in a comment line
    /// first, because the command then sends only the start.
    public static func command(for event: TimelineEvent, masking: SecretMasking, preview: Bool = false) -> String? {
        guard let method = event.method, let url = event.url else { return nil }
        let body = event.body
        let cut = preview ? body?.isTruncated == true : body?.isWholeTruncated == true
        let text = preview ? body?.text : body?.wholeText
        let command = command(method: method, url: url, headers: event.headers ?? HTTPFields(), body: text, masking: masking)
        guard let body, cut else { return command }
        return "# body cut to \(text?.utf8.count ?? 0) of \(body.byteCount) bytes\n" + command
    }

    /// `argument` as one shell word.
    public static func quote(_ argument: String) -> String {
        guard argument.unicodeScalars.contains(where: VisibleEscapes.isUnsafe) else {
            return "'" + argument.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }
        var quoted = "$'"
        for scalar in argument.unicodeScalars {
            switch scalar {
            case "\\": quoted += #"\\"#
            case "'": quoted += #"\'"#
            case "\n": quoted += #"\n"#
            case "\r": quoted += #"\r"#
            case "\t": quoted += #"\t"#
            case "\u{1B}": quoted += #"\e"#
            default:
                guard VisibleEscapes.isUnsafe(scalar) else {
                    quoted.unicodeScalars.append(scalar)
                    continue
                }
                // `\x` makes one byte, so scalars above ASCII need `\u` to come out as UTF-8.
                let hex = String(scalar.value, radix: 16, uppercase: true)
                quoted += scalar.value < 0x80
                    ? #"\x"# + String(repeating: "0", count: 2 - hex.count) + hex
                    : #"\u"# + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return quoted + "'"
    }
}
