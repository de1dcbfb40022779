import ChainKit
import Foundation
import Lab
import Testing
import Timeline
import Exports

/// Recordings are read field by field with ranges, then checked against the scenario they
/// replay, before anything runs: a crafted file is refused with its JSON path, never a crash.
@Suite("Recording validation")
struct RecordingValidationTests {
    static func document(_ commands: String, scenario: String = "basics") -> Data {
        Data(#"{"format":"chainlab-recording","version":1,"scenario":"\#(scenario)","commands":[\#(commands)]}"#.utf8)
    }

    /// The decoding error for `commands`, or the validation error against `basics`, or nil.
    func error(_ commands: String) throws -> String? {
        do {
            let recording = try Recording(json: Self.document(commands))
            try recording.validate(for: try #require(Catalog.scenario(named: "basics")))
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("every field is checked with its range and named by its JSON path", arguments: [
        (#"{"command":"advanceClock","seconds":1e16}"#, "recording at commands[0].seconds: expected a number of seconds from 0 to 86400"),
        (#"{"command":"advanceClock","seconds":1e300}"#, "recording at commands[0].seconds: expected a number of seconds from 0 to 86400"),
        (#"{"command":"launch","operation":0},{"command":"delay","request":1,"seconds":1e300}"#, "recording at commands[1].seconds: expected a number of seconds from 0 to 86400"),
        (#"{"command":"advanceClock","seconds":-1}"#, "recording at commands[0].seconds: expected a number of seconds from 0 to 86400"),
        (#"{"command":"launch","operation":0},{"command":"editResponse","request":1,"status":700}"#, "recording at commands[1].status: expected a whole number from 100 to 599"),
        (#"{"command":"launch","operation":0},{"command":"editResponse","request":1,"status":99}"#, "recording at commands[1].status: expected a whole number from 100 to 599"),
        (#"{"command":"launch","operation":0.5}"#, "recording at commands[0].operation: expected a whole number from 0 to 99"),
        (#"{"command":"step","request":0}"#, "recording at commands[0].request: expected a whole number from 1 to 10000"),
        (#"{"command":"step","request":1,"colour":"red"}"#, "recording at commands[0].colour: unknown key; known: command, request, at, lane"),
        (#"{"command":"launch","operation":0},{"command":"pass","request":1,"at":{"hop":1.5,"position":"pre"}}"#, #"recording at commands[1].at: expected "launch", "wake", "refresh" or {"hop": N, "position": "pre"|"post"} with N from 0 to 258"#),
        (#"{"command":"launch","operation":0},{"command":"pass","request":1,"at":{"hop":1,"position":"pre","x":1}}"#, #"recording at commands[1].at: expected "launch", "wake", "refresh" or {"hop": N, "position": "pre"|"post"} with N from 0 to 258"#),
        (#"[]"#, #"recording at commands[0]: expected an object such as {"command": "step", "request": 1}"#),
        (#"{"command":"launch","operation":0},{"command":"editRequestHeaders","request":1,"headers":[["X","a\r\nb"]]}"#, #"recording at commands[1].headers[0]: header "X" has an invalid value: CR (\r) at offset 1; CR, LF and NUL are not allowed"#),
    ])
    func fieldRanges(commands: String, message: String) throws {
        #expect(try error(commands) == message)
    }

    @Test("a launch of an operation the scenario does not have is refused before the run")
    func launchOfMissingOperation() throws {
        #expect(try error(#"{"command":"launch","operation":5}"#)
            == "recording at commands[0].operation: operation 5 does not exist; scenario 'basics' has 1 operation (0-based)")
    }

    @Test("a command for a request not launched yet, or a stop at a hop the chain lacks, is refused")
    func requestsAndHopsFromTheScenario() throws {
        #expect(try error(#"{"command":"step","request":1}"#)
            == "recording at commands[0].request: request #1 has not been launched; no request was launched before this command")
        #expect(try error(#"{"command":"launch","operation":0},{"command":"step","request":2}"#)
            == "recording at commands[1].request: request #2 has not been launched; only #1 was launched before this command")
        // basics: MaxRetry, Auth and APQ interceptors, cache, ResponseCodeInterceptor, transport, parser = hops 0...6.
        #expect(try error(#"{"command":"launch","operation":0},{"command":"pass","request":1,"at":{"hop":7,"position":"pre"}}"#)
            == "recording at commands[1].at.hop: hop 7 does not exist; the chain of 'basics' has 7 hops (0-based)")
        #expect(try error(#"{"command":"launch","operation":0},{"command":"pass","request":1,"at":{"hop":6,"position":"post"}}"#) == nil)
    }

    @Test("counts are limited: commands, launches and headers per edit")
    func counts() throws {
        let tooMany = Array(repeating: #"{"command":"expireTokens"}"#, count: LabLimits.recordedCommands + 1).joined(separator: ",")
        #expect(try error(tooMany) == "recording at commands: 100001 commands; a recording may have at most 100000")
        let launches = Array(repeating: #"{"command":"launch","operation":0}"#, count: LabLimits.recordedLaunches + 1).joined(separator: ",")
        #expect(try error(launches) == "recording at commands[10000]: more than 10000 launches; a recording may start at most 10000 requests")
        let headers = Array(repeating: #"["X-A","1"]"#, count: LabLimits.headersPerEdit + 1).joined(separator: ",")
        #expect(try error(#"{"command":"launch","operation":0},{"command":"editRequestHeaders","request":1,"headers":[\#(headers)]}"#)
            == "recording at commands[1].headers: 101 headers; an edit may have at most 100")
    }

    @Test("a key given twice is refused with its JSON path; anything but an object at the top at its first byte")
    func duplicateKeysAndTopLevel() throws {
        // Which request a step with two ids would release is not for the reader to guess.
        #expect(try error(#"{"command":"launch","operation":0},{"command":"step","request":1,"request":2}"#)
            == #"recording: not valid JSON at line 1, column 141: duplicate key "request" at commands[1].request"#)
        let twice = Data(#"{"format":"chainlab-recording","version":1,"format":"chainlab-recording","scenario":"basics","commands":[]}"#.utf8)
        #expect(throws: Recording.DecodingError(path: "", reason: #"not valid JSON at line 1, column 44: duplicate key "format" at format"#)) {
            try Recording(json: twice)
        }
        #expect(throws: Recording.DecodingError(path: "", reason: "not valid JSON at line 1, column 1: expected an object at the top, found an array")) {
            try Recording(json: Data("[".utf8) + Data(repeating: UInt8(ascii: " "), count: 1000))
        }
    }

    @Test("what a run on a real server sent is read back; a bad endpoint, headers or operation is refused with its path", arguments: [
        (#""endpoint": 4"#, "recording at endpoint: expected the server's URL as a string"),
        (#""headers": ["X-A: 1", 2]"#, "recording at headers: expected an array of \"Name: value\" strings"),
        (#""operations": [{"name": "Me", "documentFile": "/etc/passwd"}]"#, "recording at operations[0].documentFile: a recording carries the document itself (\"document\"), not a file name"),
        (#""operations": [{"name": "Me", "document": "query Me {"}]"#, "recording at operations[0].document: not a GraphQL document: line 1, column 11: '{' opened at line 1, column 10 is never closed"),
    ])
    func realServerRun(member: String, message: String) throws {
        let recording = Recording(
            scenario: "basics", commands: [RecordedCommand(command: .launch(operation: 0), place: nil)], endpoint: "https://api.example.test/graphql",
            headers: ["X-Api-Key: ••••3456"], operations: [Scenario.Operation(name: "Me") { $0.document = "query Me { me { id } }"; $0.kind = .query }])
        #expect(try Recording(json: Data(recording.json.utf8)) == recording)
        let json = #"{"format": "chainlab-recording", "version": 1, "scenario": "basics", \#(member), "commands": []}"#
        #expect(throws: Recording.DecodingError.self) { try Recording(json: Data(json.utf8)) }
        do { _ = try Recording(json: Data(json.utf8)) } catch { #expect(error.description == message) }
    }

    @Test("a file beyond the size limit is refused before it is parsed")
    func fileSize() {
        let data = Data(count: LabLimits.recordingFileBytes + 1)
        #expect(throws: Recording.DecodingError(path: "", reason: "the file has 16777217 bytes; a recording may have at most 16777216")) {
            try Recording(json: data)
        }
    }

    @Test("a recording the lab wrote validates against its scenario and replays to the same timeline")
    func roundTrip() async throws {
        let scenario = try #require(Catalog.scenario(named: "refresh-storm"))
        let session = LabSession(scenario: scenario)
        let original = await session.runHeadless()
        let recording = try Recording(json: Data(Recording(scenario: scenario.name, commands: session.commandLog).json.utf8))
        try recording.validate(for: scenario)
        let replayed = await LabSession(scenario: scenario, replay: recording.commands).runHeadless()
        #expect(replayed.events == original.events)
    }

    @Test("a library caller's launch of a missing operation fails that request instead of trapping")
    func sessionLaunchOutOfRange() async throws {
        let session = LabSession(scenario: try #require(Catalog.scenario(named: "basics")))
        session.launch(operation: 7)
        let result = await session.runHeadless()
        #expect(result.requests.first == RequestSummary(id: 1, operation: "#7", outcome: .failure, attempts: 0, error: "operation 7 does not exist; the scenario has 1", results: []))
        await session.shutDown()
    }

    @Test("a clock moved to the limit many times, and huge seconds in messages, convert without trapping")
    func largeTimes() {
        #expect(TextTrace.lines([TimelineEvent(time: 1e300, request: 1, attempt: 1, hop: 0, name: "x", kind: .graphql, phase: .preflight)], masking: .masked).first?.hasPrefix("9223372036854775.807s") == true)
    }
}
