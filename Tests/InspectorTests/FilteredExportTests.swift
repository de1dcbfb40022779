import ChainKit
import Foundation
import Inspector
import Lab
import TerminalUI
import Testing
import Timeline

/// `w` while a filter is in force: what is written is what the Requests pane shows, unless
/// the person asks for every request.
@Suite("Export under a filter")
struct FilteredExportTests {
    /// basics with five HeroQuery operations run one after another and `~cache` in force:
    /// #2 to #5, answered from the cache #1 filled, are shown.
    func filteredDriver() async -> Driver {
        let driver = Driver("basics", stepMode: false)
        for _ in 0..<5 { await driver.press(.char("n")) }
        await driver.press(.char("/"))
        for character in "~cache" { await driver.press(.char(character)) }
        await driver.press(.enter)
        return driver
    }

    /// Opens the export overlay on a temporary file under the filter, presses `keys`, and
    /// returns the file's path (already removed) and the JSON it held.
    func export(_ driver: Driver, pressing keys: Key...) async throws -> (path: String, document: JSONValue) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("chainlab-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        driver.state.modal = .export(ExportPrompt(format: .json, path: path, onlyShown: true))
        for key in keys { await driver.press(key) }
        return (path, try JSONValue(parsing: try #require(FileManager.default.contents(atPath: path))))
    }

    @Test("w under a filter offers the shown requests first; Ctrl-T switches to all and back")
    func prompt() async {
        let driver = await filteredDriver()
        #expect(driver.state.visibleRequests.map(\.id) == [2, 3, 4, 5])
        await driver.press(.char("w"))
        guard case .export(let prompt) = driver.state.modal else { Issue.record("no export overlay"); return }
        #expect(prompt.onlyShown == true)
        #expect(driver.screen().contains { $0.contains("requests [4 SHOWN] ALL 5   Ctrl-T switches") })
        await driver.press(.ctrl("t"))
        #expect(driver.screen().contains { $0.contains("requests 4 SHOWN [ALL 5]   Ctrl-T switches") })
        var state = driver.state
        #expect(Inspector.update(&state, .key(.enter)) == [.export(format: .json, path: "chainlab-basics.json")])
        await driver.press(.ctrl("t"))
        state = driver.state
        #expect(Inspector.update(&state, .key(.enter)) == [.export(format: .json, path: "chainlab-basics.json", requests: [2, 3, 4, 5])])
    }

    @Test("without a filter the overlay has no requests line and Ctrl-T changes nothing")
    func noFilter() async {
        let driver = Driver("basics", stepMode: false)
        await driver.press(.char("n"), .char("w"), .ctrl("t"))
        guard case .export(let prompt) = driver.state.modal else { Issue.record("no export overlay"); return }
        #expect(prompt.onlyShown == nil)
        #expect(!driver.screen().contains { $0.contains("SHOWN") })
        var state = driver.state
        #expect(Inspector.update(&state, .key(.enter)) == [.export(format: .json, path: "chainlab-basics.json")])
    }

    @Test("the file holds only the shown requests' summaries, events and findings; the status line says how many")
    func writesShown() async throws {
        let driver = await filteredDriver()
        let (path, document) = try await export(driver, pressing: .enter)
        #expect(driver.state.notice == .init(text: "exported the 4 requests the filter shows to \(path)", isError: false))
        let requests = try #require(document["requests"]?.arrayValue)
        #expect(requests.compactMap { $0["id"]?.numberValue } == [2, 3, 4, 5])
        let events = try #require(document["events"]?.arrayValue)
        #expect(!events.isEmpty)
        #expect(Set(events.compactMap { $0["request"]?.numberValue }) == [2, 3, 4, 5])
        // The backend's counters stay the whole run's: one operation reached the server.
        #expect(document["backend"]?["graphqlRequests"] == 1)
    }

    @Test("Ctrl-T to all writes every request, as without a filter")
    func writesAll() async throws {
        let driver = await filteredDriver()
        let (path, document) = try await export(driver, pressing: .ctrl("t"), .enter)
        #expect(driver.state.notice == .init(text: "exported to \(path)", isError: false))
        #expect(try #require(document["requests"]?.arrayValue).compactMap { $0["id"]?.numberValue } == [1, 2, 3, 4, 5])
    }
}
