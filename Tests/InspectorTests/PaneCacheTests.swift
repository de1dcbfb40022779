import Inspector
import Lab
import TerminalUI
import Testing

/// `PaneCache` draws the frames `Inspector.render` draws, and the terminal writes the same
/// cells for them (`input.type.char`).
@Suite("Pane cache")
struct PaneCacheTests {
    @Test("each frame, and each frame's changes from the one before, are what render draws whole")
    func framesAreRendersFrames() async {
        let driver = Driver()
        var cache = PaneCache()
        let size = driver.state.size
        var previous: (kept: Buffer, whole: Buffer)?
        func check(_ sourceLocation: SourceLocation = #_sourceLocation) {
            var whole = Buffer(size: size)
            let map = Inspector.render(driver.state, into: &whole)
            let frame = cache.frame(driver.state, size: size)
            #expect(frame.buffer == whole, sourceLocation: sourceLocation)
            #expect(frame.map == map, sourceLocation: sourceLocation)
            if let previous {
                #expect(frame.buffer.diff(from: previous.kept) == whole.diff(from: previous.whole), sourceLocation: sourceLocation)
            }
            previous = (frame.buffer, whole)
        }
        check()
        // A request launched and stepped to a hop, so Detail shows its request.
        for key: Key in [.char("n"), .char("s"), .char("s"), .char("s")] {
            await driver.press(key)
            check()
        }
        // Keys as the app takes them between two views of the lab: typing into the `/` line
        // (the panes stay), a refused expression, Ctrl-F search (Detail marks what is typed),
        // help, and keys refused with a notice.
        let typed: [Key] = [
            .char("/"), .char("~"), .char("c"), .char(" "), .backspace, .char("("), .enter, .escape,
            .ctrl("f"), .char("e"), .char("r"), .enter, .char("?"), .escape, .char("Z"), .char("+"), .char("+"),
        ]
        for key in typed {
            _ = Inspector.update(&driver.state, .key(key))
            check()
        }
        // Keys with the lab's new view after each: moving, Tab, a filter applied and cleared.
        for key: Key in [.char("j"), .tab, .char("/"), .char("x"), .enter, .char("k"), .escape, .tab] {
            await driver.press(key)
            check()
        }
    }

    @Test("a frame of another size, or too small for the panes, is drawn whole")
    func otherSizes() {
        let driver = Driver()
        // With an overlay open, so the panes are kept between the frames.
        driver.state.modal = .filter(FilterPrompt(text: "~c 401"))
        var cache = PaneCache()
        for size in [Size(width: 120, height: 40), Size(width: 90, height: 30), Size(width: 20, height: 5), Size(width: 120, height: 40)] {
            var whole = Buffer(size: size)
            let map = Inspector.render(driver.state, into: &whole)
            let frame = cache.frame(driver.state, size: size)
            #expect(frame.buffer == whole)
            #expect(frame.map == map)
        }
    }

    @Test("the panes' revision stays while only the overlay or the notice changes")
    func revisionFollowsEverythingButOverlayAndNotice() {
        var state = Driver().state
        let revision = state.panesRevision
        state.modal = .filter(FilterPrompt(text: "~c 401"))
        state.notice = .init(text: "filter cleared", isError: false)
        state.modal = nil
        #expect(state.panesRevision == revision)
        let changes: [(inout InspectorState) -> Void] = [
            { $0.focus = .chain }, { $0.selectedHop += 1 }, { $0.detailScroll += 1 }, { $0.detailSearch = "a" },
            { $0.size = Size(width: 80, height: 24) }, { $0.lab.clock += 1 }, { $0.maximized.toggle() },
        ]
        var seen: Set<PanesRevision> = [revision]
        for change in changes {
            change(&state)
            #expect(seen.insert(state.panesRevision).inserted)
        }
        // Every stored property but the overlay and the notice moves the revision; a new one
        // must be added to this list and given the same `didSet` (`lintFindings` is set only
        // by `scenario`'s and `lab`'s).
        let followed: Set<String> = [
            "scenario", "size", "lab", "focus", "selectedRequest", "selectedHop", "selectedSide", "selectedLane",
            "selectedAttempt", "personActions", "timelineScroll", "detailScroll", "revealSecrets", "maximized",
            "waterfallZoom", "detailFolded", "detailSearch", "detailMatch", "chainView", "sequenceSeq", "marked",
            "filter", "filterMatches", "filteredRows", "filterBasis", "symbols", "keys", "exportFormat",
            "followedPlace", "followsToEnd", "selectsLaunchAbove", "launchesStarted", "lintFindings",
        ]
        let stored = Set(Mirror(reflecting: state).children.compactMap(\.label))
        #expect(stored == followed.union(["modal", "notice", "panesRevision"]))
    }
}
