public import ChainKit

/// The largest inputs the lab accepts, chosen from what its scenarios and a person at the
/// inspector need, so that anything accepted runs in bounded time and memory. Scenario files
/// and recordings beyond them are refused with the JSON path of the count or size that is
/// too large (exit status 2); docs/security.md lists them.
public enum LabLimits {
    /// Layers in a chain: GraphQL and HTTP interceptors together, or middlewares. Apollo
    /// iOS's default chain has 6 and the lab's longest built-in 5.
    public static let chainLength = 256
    /// Operations a scenario defines.
    public static let operations = 100
    /// Entries in a scenario's `launch` list.
    public static let launches = 1_000
    /// Entries in a scenario's `script`.
    public static let scriptSteps = 10_000
    /// The largest `safetyCap`: attempts one operation may make before the lab stops it.
    public static let safetyCap = 1_000
    /// Hop passes a run may make at most: launches × safety cap × hops of the chain. Each
    /// count alone is modest, but their product is what a run costs (about 6 KB per hop
    /// pass); a scenario or a replay above it is refused.
    public static let hopPasses = 20_000
    /// Commands in a recording.
    public static let recordedCommands = 100_000
    /// `launch` commands in a recording, and so the largest request id it can name.
    public static let recordedLaunches = 10_000
    /// Headers in one recorded header edit.
    public static let headersPerEdit = 100
    /// Seconds one recorded `delay` or `advanceClock` may move the lab clock (one day).
    public static let secondsPerClockMove: Double = 86_400
    /// Bytes of a scenario file.
    public static let scenarioFileBytes = 1 << 20
    /// Bytes of a recording file.
    public static let recordingFileBytes = 16 << 20
    /// How scenario files and recordings are parsed: an object at the top, refused at its
    /// first byte otherwise (before a large array is read), and no key twice in one object
    /// (which of two values a reader keeps is not something a file should leave open); both
    /// errors name the line, the column and, for a duplicate, its JSON path.
    public static let fileParsing = JSONParser.Options(expecting: .object, rejectsDuplicateKeys: true)
}
