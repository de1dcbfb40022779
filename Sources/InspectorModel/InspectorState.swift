import ChainKit
public import Lab
public import TerminalUI
public import Timeline
public import TimelineFilter

/// The inspector's whole state: a value. Keys, lab changes and resizes become
/// ``InspectorMessage``s; ``Inspector/update(_:_:)`` changes the state and returns effects;
/// ``Inspector/render(_:into:)`` draws it.
public struct InspectorState: Sendable {
    /// The four panes, in Tab order.
    public enum Pane: Int, Sendable, Hashable, CaseIterable {
        case requests, chain, timeline, detail
    }

    /// A transient line in the status bar.
    public struct Notice: Sendable, Hashable {
        public var text: String
        public var isError: Bool

        public init(text: String, isError: Bool) {
            self.text = text
            self.isError = isError
        }
    }

    public var scenario: Scenario {
        didSet {
            panesRevision = .next()
            lintFindings = Self.lint(scenario, lab.chain)
        }
    }
    public var size: Size { didSet { panesRevision = .next() } }
    public var lab: LabView {
        didSet {
            panesRevision = .next()
            if lab.chain != oldValue.chain { lintFindings = Self.lint(scenario, lab.chain) }
        }
    }
    /// The lint findings of the chain as it is now (after any reorder): checked again only
    /// when the scenario or the lab's chain changes, not for every frame that shows them.
    public private(set) var lintFindings: [LintFinding]
    public var focus: Pane = .requests { didSet { panesRevision = .next() } }
    /// The selected request's id.
    public var selectedRequest: Int? { didSet { panesRevision = .next() } }
    /// The selected row of the Chain pane: a hop index, or one past the last hop for the
    /// token manager's refresh row.
    public var selectedHop = 0 { didSet { panesRevision = .next() } }
    /// Which side of the selected hop Detail shows: its pre-flight or its post-flight.
    public var selectedSide: StopPosition = .pre { didSet { panesRevision = .next() } }
    /// Which lane of a request with two the stop keys act on (the `switchLane` key switches it).
    public var selectedLane: Lane = .cache { didSet { panesRevision = .next() } }
    /// The attempt the Chain pane shows; nil follows the selected request's latest attempt.
    public var selectedAttempt: Int? { didSet { panesRevision = .next() } }
    /// Commands a person gave at a stop, so the screen can say who forced, edited or failed
    /// what (anything else injected at a stop came from the scenario's script or a replay).
    public var personActions: Set<PersonAction> = [] { didSet { panesRevision = .next() } }
    public var timelineScroll = 0 { didSet { panesRevision = .next() } }
    public var detailScroll = 0 { didSet { panesRevision = .next() } }
    public var revealSecrets = false { didSet { panesRevision = .next() } }
    /// Whether the focused pane fills the screen (`+`).
    public var maximized = false { didSet { panesRevision = .next() } }
    /// How far the waterfall is zoomed in around the selected request: 0 shows the whole
    /// run, each step halves the time shown (`z` in, `Z` out).
    public var waterfallZoom = 0 { didSet { panesRevision = .next() } }
    /// Whether Detail folds JSON objects and arrays below the top two levels (`f`).
    public var detailFolded = false { didSet { panesRevision = .next() } }
    /// What Detail searches for (`Ctrl-F`), and which match is shown.
    public var detailSearch = "" { didSet { panesRevision = .next() } }
    public var detailMatch = 0 { didSet { panesRevision = .next() } }
    /// What the Chain pane shows: the hops of one attempt, or a sequence diagram (`S`).
    public var chainView: ChainView = .hops { didSet { panesRevision = .next() } }
    /// The event the sequence diagram's selected row stands for, while it matches the
    /// selection; otherwise the row of the selected hop and side is selected.
    public var sequenceSeq: Int? { didSet { panesRevision = .next() } }
    /// The event `m` marked for a compare (`=`).
    public var marked: TimelineEvent? { didSet { panesRevision = .next() } }
    /// The filter expression of the Requests pane and the waterfall (`/`).
    public var filter: FilterExpression? { didSet { panesRevision = .next() } }
    /// The requests ``filter`` lets through, as of the last view (``Inspector/refreshFilter(_:)``).
    package var filterMatches: Set<Int> = [] {
        didSet {
            filteredRows = nil
            panesRevision = .next()
        }
    }
    /// ``visibleRequests`` as worked out with ``filterMatches`` for the view of that origin:
    /// a frame asks for them many times, and with 10,000 requests each asking copied them all.
    package var filteredRows: (origin: LabView.Origin, rows: [RequestRow])? { didSet { panesRevision = .next() } }
    /// What ``filterMatches`` was worked out for: the filter, the view's origin and its
    /// findings. From there, the next view of the same builder needs only its remade rows
    /// read again.
    package var filterBasis: FilterBasis? { didSet { panesRevision = .next() } }

    package struct FilterBasis: Sendable {
        package var source: String
        package var origin: LabView.Origin
        package var findings: [Finding]?

        package init(source: String, origin: LabView.Origin, findings: [Finding]?) {
            self.source = source
            self.origin = origin
            self.findings = findings
        }
    }
    /// The overlay and the notice are drawn over the panes and in the status line; changing
    /// them leaves ``panesRevision`` as it was.
    public var modal: Overlay?
    public var notice: Notice?
    public var symbols: Symbols { didSet { panesRevision = .next() } }
    /// The keys in force: the standard keymap with the config file's bindings over it.
    public var keys: KeyBindings = .standard { didSet { panesRevision = .next() } }
    /// The format the export overlay (`w`) offers first.
    public var exportFormat: ExportFormat = .json { didSet { panesRevision = .next() } }
    /// Where the selected request was held when the lab last changed, so the selection
    /// follows a request being stepped.
    package var followedPlace: StopPlace? { didSet { panesRevision = .next() } }
    /// Whether the selected request left a stop the selection was following: when it
    /// finishes, the selection moves to where it ended.
    package var followsToEnd = false { didSet { panesRevision = .next() } }
    /// The highest request id when `n` or `N` was pressed: the first request above it is
    /// selected once a view shows it, so the keys that follow act on what was just started.
    package var selectsLaunchAbove: Int? { didSet { panesRevision = .next() } }
    /// How many operations `n` and `N` have started: the next is the scenario's launch list
    /// at this position, from its start again once the list is used up.
    var launchesStarted = 0 { didSet { panesRevision = .next() } }
    /// Changes whenever a property the panes may read changes (every property but
    /// ``modal`` and ``notice``): ``PaneCache`` keeps the panes drawn while it stays.
    package private(set) var panesRevision = PanesRevision.next()

    public init(scenario: Scenario, lab: LabView, size: Size, symbols: Symbols = .unicode) {
        self.scenario = scenario
        self.lab = lab
        self.size = size
        self.symbols = symbols
        lintFindings = Self.lint(scenario, lab.chain)
    }

    private static func lint(_ scenario: Scenario, _ chain: Scenario.Chain) -> [LintFinding] {
        var configured = scenario
        configured.chain = chain
        return ChainLint.check(scenario: configured)
    }

    /// The operation the next `n` starts, as a headless run launches them (``Scenario/launch``).
    package mutating func nextLaunchedOperation() -> Int {
        defer { launchesStarted += 1 }
        return scenario.launch.isEmpty ? 0 : scenario.launch[launchesStarted % scenario.launch.count]
    }

    /// The requests the filter lets through.
    public var visibleRequests: [RequestRow] {
        guard filter != nil else { return lab.requests }
        if let filteredRows, filteredRows.origin == lab.origin { return filteredRows.rows }
        return lab.requests.filter { filterMatches.contains($0.id) }
    }

    /// Where the selected request is in ``visibleRequests``. Without a filter the rows are
    /// the lab's, in id order, and it is found by its id: with 10,000 requests, reading every
    /// row on each key was a tenth of a key's frame in a debug build (`input.latency.10k`).
    package var selectedVisibleIndex: Int? {
        guard filter != nil else { return selectedRequest.flatMap { lab.index(of: $0) } }
        return visibleRequests.firstIndex { $0.id == selectedRequest }
    }

    /// The selected request's row.
    public var selectedRow: RequestRow? {
        selectedRequest.flatMap { lab.index(of: $0) }.map { lab.requests[$0] }
    }

    /// Where the selected request is waiting, if it is: for a request with two lanes, the
    /// selected lane's stop.
    public var selectedStop: ParkedStop? {
        guard let request = selectedRequest else { return nil }
        guard hasTwoLanes else { return lab.parked[request] }
        return lab.laneStops[LaneKey(request, selectedLane)]
    }

    /// Whether the selected request has two live lanes now (``Lane``).
    public var hasTwoLanes: Bool {
        selectedRequest.map { lab.forked.contains($0) } ?? false
    }

    /// The lane a command at the selected request's stop names: the selected one while the
    /// request has two, else none.
    public var commandLane: Lane? { hasTwoLanes ? selectedLane : nil }

    /// The stop of the selected request's other lane while it has two.
    public var otherLaneStop: ParkedStop? {
        guard let request = selectedRequest, hasTwoLanes else { return nil }
        return lab.laneStops[LaneKey(request, selectedLane == .cache ? .network : .cache)]
    }

    /// The selected request when a person holds it at a stop.
    public var heldStop: ParkedStop? {
        guard let stop = selectedStop, stop.held else { return nil }
        return stop
    }

    /// The hops of the selected request's chain.
    public var hops: [HopInfo] { lab.hops(of: selectedRequest) }

    /// The selected request's events, attempt by attempt and hop by hop, as far as the view
    /// has seen them.
    package var history: RequestHistory {
        guard let request = selectedRequest else { return RequestHistory(events: []) }
        return RequestHistory(events: lab.events(of: request))
    }

    /// How many attempts the selected request has made so far.
    public var attemptCount: Int { selectedRow?.attempt ?? 1 }

    /// The attempt the Chain pane and Detail show.
    public var shownAttempt: Int { min(selectedAttempt ?? attemptCount, attemptCount) }

    /// Whether the shown attempt is the one the request is making now.
    public var showsLatestAttempt: Bool { shownAttempt == attemptCount }

    /// Whether the Chain pane has a row for the token manager's refresh: the shown attempt
    /// refreshed, or the request is waiting at the refresh stop.
    package var hasRefreshRow: Bool {
        (showsLatestAttempt && selectedStop?.place == .refresh) || !(history.attempt(shownAttempt)?.refresh.isEmpty ?? true)
    }

    /// The rows of the Chain pane: the hops, then the refresh row when there is one.
    package var chainRowCount: Int { hops.count + (hasRefreshRow ? 1 : 0) }

    /// Whether the refresh row is selected.
    public var selectsRefresh: Bool { selectedHop == hops.count }
}

/// What the Chain pane shows.
public enum ChainView: Sendable, Hashable {
    /// One row per hop of the shown attempt, its pre-flight and post-flight.
    case hops
    /// The selected request's events in order, hops as columns (`S`).
    case sequence
    /// Every request's events interleaved on one axis (`A`).
    case allRequests
}

/// A command a person gave at a stop: force 401, force retry, fail or an edit.
public struct PersonAction: Sendable, Hashable {
    public var request: Int
    public var attempt: Int
    public var place: StopPlace

    public init(request: Int, attempt: Int, place: StopPlace) {
        self.request = request
        self.attempt = attempt
        self.place = place
    }
}

/// An overlay that takes the keys until it closes.
public enum Overlay: Sendable, Hashable {
    case help(scroll: Int)
    case confirmQuit
    case scenarioInfo
    case editor(HeaderEditor)
    case export(ExportPrompt)
    case curl(title: String, command: String)
    case failPicker(request: Int)
    case reorder(ChainReorder)
    case filter(FilterPrompt)
    case breakRules(BreakRulesEditor)
    case findings(FindingsList)
    case search(TextInput)
    case compare(Comparison)

    /// Whether the overlay has a text field that takes every character as an edit, so that
    /// characters read together can go in as one paste.
    public var takesText: Bool {
        switch self {
        case .filter, .breakRules, .search, .export, .editor: true
        default: false
        }
    }
}

/// Something that happened: a key, a change in the lab, a new terminal size.
public enum InspectorMessage: Sendable {
    case key(Key)
    /// Characters that arrived together, as a paste does: typed into the open text field in
    /// one insertion; with no field open, each is a key.
    case paste(String)
    /// A mouse report, with the map of the frame it was made on.
    case mouse(MouseEvent, ScreenMap)
    case resize(Size)
    case labChanged(LabView)
    /// An export ended; `requests`: how many it wrote when it wrote only those the filter shows.
    case exportFinished(path: String, error: String?, requests: Int? = nil)
    /// A line from the background OTLP export (`--otlp-endpoint`) for the status line.
    case otlpExportStatus(text: String, isError: Bool)
}

/// What the app must do for an update: talk to the lab, write a file, or stop.
public enum InspectorEffect: Sendable, Hashable {
    case command(LabCommand)
    /// Commands queued together: none takes effect before all are queued, so `N`'s first
    /// request cannot run ahead of the others however the machine is loaded.
    case commands([LabCommand])
    case setBreakpoint(Breakpoint, enabled: Bool)
    case setStepMode(Bool)
    case setChain(Scenario.Chain)
    /// Write the timeline to `path`; with `requests`, only those requests.
    case export(format: ExportFormat, path: String, requests: Set<Int>? = nil)
    case quit
}

/// The export overlay: a format, a file name and, while a filter is in force, whether only
/// the requests it shows are written.
public struct ExportPrompt: Sendable, Hashable {
    /// One of ``ExportFormat/inInspector``.
    public var format: ExportFormat
    public var path: TextInput
    /// Whether only the requests the filter shows are written (at first they are, as what
    /// is on screen is what a person means); nil while no filter is in force.
    public var onlyShown: Bool?

    public init(format: ExportFormat = .json, path: String, onlyShown: Bool? = nil) {
        self.format = format
        self.path = TextInput(text: path)
        self.onlyShown = onlyShown
    }
}

/// The reorder overlay: the chain's layers, one selected, moved with J/K.
public struct ChainReorder: Sendable, Hashable {
    public var chain: Scenario.Chain
    public var selected = 0

    public init(chain: Scenario.Chain) {
        self.chain = chain
    }

    /// The layers in order, with the GraphQL interceptors first.
    public var names: [String] {
        switch chain {
        case .graphQL(let graphQL, let http): (graphQL + http).map(\.name)
        case .middleware(let layers): layers.map(\.name)
        }
    }

    /// Moves the selected layer by `offset`; GraphQL interceptors stay above the cache
    /// step and HTTP interceptors below it, so a move across that line is refused.
    public mutating func move(by offset: Int) -> String? {
        let target = selected + offset
        switch chain {
        case .graphQL(var graphQL, var http):
            if selected < graphQL.count {
                guard graphQL.indices.contains(target) else {
                    return target >= graphQL.count ? "GraphQL interceptors stay above the cache step; HTTP interceptors below it" : nil
                }
                graphQL.swapAt(selected, target)
            } else {
                let from = selected - graphQL.count, to = target - graphQL.count
                guard http.indices.contains(to) else {
                    return to < 0 ? "HTTP interceptors stay below the cache step; GraphQL interceptors above it" : nil
                }
                http.swapAt(from, to)
            }
            chain = .graphQL(graphQL: graphQL, http: http)
        case .middleware(var layers):
            guard layers.indices.contains(target) else { return nil }
            layers.swapAt(selected, target)
            chain = .middleware(layers)
        }
        selected = target
        return nil
    }
}

/// The `/` line: a filter expression being typed, and why the last one was refused.
public struct FilterPrompt: Sendable, Hashable {
    public var input: TextInput
    /// The refusal of the expression last entered; the filter in force did not change.
    public var error: FilterSyntaxError?

    public init(text: String, error: FilterSyntaxError? = nil) {
        input = TextInput(text: text)
        self.error = error
    }
}

/// The breakpoints overlay (`Ctrl-B`): the rules in force, one selected, and a line to type
/// a new one (`post@AuthInterceptor if ~op HeroQuery & ~c 401`).
public struct BreakRulesEditor: Sendable, Hashable {
    public var input: TextInput
    public var selected = 0
    /// Why the rule last entered was refused.
    public var error: String?

    public init(text: String = "") {
        input = TextInput(text: text)
    }
}

/// The findings overlay: lint findings of the chain (`L`) or run findings (`F`), one selected.
public struct FindingsList: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case lint, run }
    public var kind: Kind
    public var selected = 0
    /// Which cited event of the selected run finding is open, if one is.
    public var openEvent: Int?

    public init(kind: Kind) {
        self.kind = kind
    }
}

/// Two events side by side: `m` marks one, `=` compares it with the selected one; `p`
/// compares the selected hop with the same hop of the previous attempt, `d` what the hop
/// received with what it passed on, `#` the selected request with another at the same hop.
public struct Comparison: Sendable, Hashable {
    /// The two events: the older one on the left.
    public var left: TimelineEvent
    public var right: TimelineEvent
    /// How far the overlay is scrolled.
    public var scroll = 0

    public init(left: TimelineEvent, right: TimelineEvent) {
        self.left = left
        self.right = right
    }
}
