import Foundation
import Inspector
import Vocabulary

/// Reads the config file: the one `--config` names, else the one in the user's config
/// folder when it exists. A mistake is a `CommandLineError` (exit 2) naming the file and
/// the JSON path, raised before the terminal is touched.
enum ConfigFile {
    static func load(path explicit: String?, environment: [String: String]) throws -> InspectorConfig {
        guard let path = explicit ?? InspectorConfig.defaultPath(environment: environment) else { return InspectorConfig() }
        guard explicit != nil || FileManager.default.fileExists(atPath: path) else { return InspectorConfig() }
        let shown = VisibleEscapes.escape(path)
        let data = try readFile(path, purpose: "config file", limit: InspectorConfig.maximumBytes)
        guard let text = String(data: data, encoding: .utf8) else { throw CommandLineError("config file \(shown): not UTF-8 text") }
        do {
            return try InspectorConfig.parse(text)
        } catch {
            throw CommandLineError("config file \(shown): \(error.description)")
        }
    }
}
