import Foundation
import ChainKit
import Lab
import TerminalUI
import Timeline
import TimelineFilter
import Exports
import Vocabulary
public import InspectorModel
import InspectorView

extension Inspector {
    /// Applies one message to the state and returns what the app must do.
    public static func update(_ state: inout InspectorState, _ message: InspectorMessage) -> [InspectorEffect] {
        switch message {
        case .resize(let size):
            state.size = size
            return []
        case .labChanged(let view):
            state.lab = view
            if state.filter != nil { refreshFilter(&state) }
            selectLaunched(&state)
            if let refusal = view.newRefusals.last { state.notice = .init(text: refusal, isError: true) }
            followSelection(&state)
            return []
        case .exportFinished(let path, let error, let requests):
            let what = requests.map { "exported the \($0 == 1 ? "request" : "\($0) requests") the filter shows" } ?? "exported"
            state.notice = error.map { .init(text: $0, isError: true) } ?? .init(text: "\(what) to \(path)", isError: false)
            return []
        case .otlpExportStatus(let text, let isError):
            state.notice = .init(text: text, isError: isError)
            return []
        case .mouse(let event, let map):
            return handleMouse(event, map: map, &state)
        case .paste(let text):
            if paste(text, &state) { return [] }
            return text.flatMap { update(&state, .key(.char($0))) }
        case .key(let key):
            if key == .resize { return [] }
            // A mouse report reaches the inspector with the frame's map (`.mouse`).
            if case .mouse = key { return [] }
            // A character typed into a text field takes the same path as a paste: the field is
            // changed in place, not copied out of the overlay and back.
            if case .char(let character) = key, paste(String(character), &state) { return [] }
            state.notice = nil
            if let modal = state.modal {
                let before = (state.revealSecrets, state.detailSearch, state.detailMatch)
                let effects = handleModal(modal, key, &state)
                if effects.isEmpty, state.modal == modal, state.notice == nil, before == (state.revealSecrets, state.detailSearch, state.detailMatch) {
                    state.notice = overlayRefusal(key, in: modal.keymap)
                }
                return effects
            }
            guard let action = state.keys.action(for: key) else { return [] }
            if let reason = state.keys.disabledReason(action, in: state) {
                state.notice = reason
                return []
            }
            return perform(action, &state)
        }
    }

    /// Keeps a request selected, and keeps the Chain pane on the stop the selected request
    /// is held at while it is being stepped, and on where it ended once it finishes.
    static func followSelection(_ state: inout InspectorState) {
        if state.selectedRequest.flatMap({ state.lab.index(of: $0) }) == nil {
            state.selectedRequest = state.visibleRequests.first?.id
        }
        let place = state.selectedStop?.place
        if place != state.followedPlace {
            switch place {
            case .hop(let hop, let position):
                state.selectedHop = hop
                state.selectedSide = position
                state.selectedAttempt = nil
                state.followsToEnd = false
            case .refresh:
                state.selectedHop = state.hops.count
                state.selectedAttempt = nil
                state.followsToEnd = false
            default:
                // Released from a stop: once it finishes, show where it ended.
                if state.followedPlace != nil { state.followsToEnd = true }
            }
        }
        if state.followsToEnd, let row = state.selectedRow, row.isFinished {
            state.followsToEnd = false
            selectEnd(&state)
        }
        state.followedPlace = place
        state.selectedHop = min(state.selectedHop, max(0, state.chainRowCount - 1))
    }

    /// Selects the request `n` or `N` started once the view has it, from its first stop; a
    /// filter that hides it leaves the selection and says so.
    static func selectLaunched(_ state: inout InspectorState) {
        guard let above = state.selectsLaunchAbove, let launched = state.lab.requests.first(where: { $0.id > above }) else { return }
        state.selectsLaunchAbove = nil
        if let filter = state.filter, !state.filterMatches.contains(launched.id) {
            state.notice = .init(text: "#\(launched.id) started; the filter \(filter.source) hides it (\(state.keys.keyName(.back)) clears the filter)", isError: false)
            return
        }
        state.selectedRequest = launched.id
        state.selectedAttempt = nil
        state.selectedHop = 0
        state.selectedSide = .pre
        state.sequenceSeq = nil
        state.detailScroll = 0
        // Follow it from its first stop, or to where it ended if it has already finished.
        state.followedPlace = nil
        state.followsToEnd = true
    }

    /// Selects where the selected request ended: its result or error at the top of its last
    /// attempt.
    static func selectEnd(_ state: inout InspectorState) {
        state.selectedAttempt = nil
        guard let end = state.history.end else { return }
        state.selectedHop = end.hop
        state.selectedSide = end.side
        state.detailScroll = 0
    }

    /// Shows another attempt of the selected request, keeping the selected hop.
    static func showAttempt(by offset: Int, _ state: inout InspectorState) {
        let count = state.attemptCount
        let target = state.shownAttempt + offset
        guard (1...count).contains(target) else { return }
        state.followsToEnd = false
        state.selectedAttempt = target == count ? nil : target
        state.selectedHop = min(state.selectedHop, max(0, state.chainRowCount - 1))
        state.detailScroll = 0
    }

    /// Records that a person gave a command at the selected request's stop.
    static func noteByPerson(_ stop: ParkedStop, _ state: inout InspectorState) {
        state.personActions.insert(PersonAction(request: stop.request, attempt: stop.attempt, place: stop.place))
    }

    /// Carries out `action`, which ``KeyBindings/disabledReason(_:in:)`` has let through.
    static func perform(_ action: Action, _ state: inout InspectorState) -> [InspectorEffect] {
        switch action {
        case .newOperation, .newSeveral:
            state.selectsLaunchAbove = state.lab.requests.map(\.id).max() ?? 0
            let launches = (0..<(action == .newOperation ? 1 : 5)).map { _ in LabCommand.launch(operation: state.nextLaunchedOperation()) }
            return action == .newOperation ? [.command(launches[0])] : [.commands(launches)]
        case .step, .continueRequest:
            guard let request = state.heldStop?.request ?? inFlightRequest(state) else { return [] }
            let lane = state.commandLane
            return [.command(action == .step ? .step(request: request, lane: lane) : .resume(request: request, lane: lane))]
        case .switchLane:
            state.selectedLane = state.selectedLane == .cache ? .network : .cache
            let stop = state.selectedStop
            state.notice = .init(text: "\(state.selectedLane.rawValue) lane: \(stop.map { "\($0.held ? "held" : "waiting its turn") at \($0.place) of \($0.hopName)" } ?? "running"); \(state.keys.keyName(.step)) and \(state.keys.keyName(.continueRequest)) act on it", isError: false)
            followSelection(&state)
            return []
        case .continueAll:
            return [.command(.resumeAll)]
        case .toggleStepMode:
            state.lab.stepMode.toggle()
            state.notice = .init(text: state.lab.stepMode ? "step mode on: new operations stop before every hop" : "step mode off: new operations run to breakpoints", isError: false)
            return [.setStepMode(state.lab.stepMode)]
        case .toggleBreakpoint: return toggleBreakpoint(&state)
        case .editHeaders:
            guard let stop = state.heldStop else { return [] }
            var editor = stop.capabilities.canEditRequest
                ? HeaderEditor(request: stop.request, target: .request, headers: stop.currentHeaders, status: nil)
                : HeaderEditor(request: stop.request, target: .response, headers: stop.currentHeaders, status: stop.pending.responseStatus ?? stop.snapshot.status)
            editor.revealsSecrets = state.revealSecrets
            state.modal = .editor(editor)
            return []
        case .force401:
            guard let stop = state.heldStop else { return [] }
            noteByPerson(stop, &state)
            return [.command(.force401(request: stop.request, lane: stop.lane))]
        case .forceRetry:
            guard let stop = state.heldStop else { return [] }
            noteByPerson(stop, &state)
            return [.command(.forceRetry(request: stop.request, lane: stop.lane))]
        case .fail:
            guard let stop = state.heldStop else { return [] }
            state.modal = .failPicker(request: stop.request)
            return []
        case .advanceClock: return [.command(.advanceClock(seconds: 1))]
        case .expireTokens:
            state.notice = .init(text: "every access token on the backend is now expired", isError: false)
            return [.command(.expireTokens)]
        case .reorderChain:
            state.modal = .reorder(ChainReorder(chain: state.lab.chain))
            return []
        case .export:
            state.modal = .export(ExportPrompt(
                format: state.exportFormat, path: "chainlab-\(state.scenario.name).\(state.exportFormat.fileExtension)",
                onlyShown: state.filter == nil ? nil : true))
            return []
        case .showCurl:
            showCurl(&state)
            return []
        case .filter:
            state.modal = .filter(FilterPrompt(text: state.filter?.source ?? ""))
            return []
        case .breakRules:
            state.modal = .breakRules(BreakRulesEditor())
            return []
        case .revealSecrets:
            // No notice: it would hide the status line's `⚠ secrets revealed` and its hints.
            state.revealSecrets.toggle()
            return []
        case .scenarioInfo:
            state.modal = .scenarioInfo
            return []
        case .lintFindings, .runFindings:
            state.modal = .findings(FindingsList(kind: action == .lintFindings ? .lint : .run))
            return []
        case .previousAttempt, .nextAttempt:
            showAttempt(by: action == .previousAttempt ? -1 : 1, &state)
            return []
        case .maximize:
            state.maximized.toggle()
            return []
        case .sequenceDiagram, .allRequests:
            toggleSequence(action, &state)
            return []
        case .mark, .compareMarked, .compareAttempts, .compareHop, .compareRequests:
            performCompare(action, &state)
            return []
        case .zoomIn, .zoomOut:
            state.waterfallZoom = max(0, min(maximumZoom, state.waterfallZoom + (action == .zoomIn ? 1 : -1)))
            return []
        case .fold:
            state.detailFolded.toggle()
            return []
        case .search:
            state.modal = .search(TextInput(text: state.detailSearch))
            return []
        case .preFlight, .postFlight:
            state.followsToEnd = false
            state.selectedSide = action == .preFlight ? .pre : .post
            state.detailScroll = 0
            return []
        case .nextPane, .previousPane:
            // Only the panes on screen take the focus: a small terminal leaves some out.
            let shown = shownPanes(state)
            let index = shown.firstIndex(of: state.focus) ?? 0
            state.focus = shown[(index + (action == .nextPane ? 1 : shown.count - 1)) % shown.count]
            return []
        case .up, .down, .pageUp, .pageDown, .home, .end:
            move(action, &state)
            return []
        case .open:
            switch state.focus {
            case .requests, .timeline: state.focus = .chain
            case .chain, .detail: state.focus = .detail
            }
            return []
        case .back:
            if state.focus == .detail { state.focus = .chain } else if state.focus == .chain { state.focus = .requests } else { clearFilter(&state) }
            return []
        case .help:
            state.modal = .help(scroll: 0)
            return []
        case .quit:
            if state.lab.hasUnfinishedRequests {
                state.modal = .confirmQuit
                return []
            }
            return [.quit]
        }
    }

    static func toggleBreakpoint(_ state: inout InspectorState) -> [InspectorEffect] {
        let hop = state.selectedHop
        let pre = Breakpoint(hop: hop, position: .pre), post = Breakpoint(hop: hop, position: .post)
        let hasPre = state.lab.breakpoints.contains(pre), hasPost = state.lab.breakpoints.contains(post)
        // none → pre → post → both → none
        let (nextPre, nextPost, label): (Bool, Bool, String) = switch (hasPre, hasPost) {
        case (false, false): (true, false, "pre-flight")
        case (true, false): (false, true, "post-flight")
        case (false, true): (true, true, "pre- and post-flight")
        case (true, true): (false, false, "none")
        }
        state.lab.breakpoints = state.lab.breakpoints.filter { $0 != pre && $0 != post }
        if nextPre { state.lab.breakpoints.insert(pre) }
        if nextPost { state.lab.breakpoints.insert(post) }
        state.notice = .init(text: "breakpoint on \(state.hops[hop].name): \(label)", isError: false)
        return [.setBreakpoint(pre, enabled: nextPre), .setBreakpoint(post, enabled: nextPost)]
    }

    static func move(_ action: Action, _ state: inout InspectorState) {
        let page = max(1, state.size.height / 3)
        func step(_ index: Int, count: Int) -> Int {
            guard count > 0 else { return 0 }
            let next: Int = switch action {
            case .up: index - 1
            case .down: index + 1
            case .pageUp: index - page
            case .pageDown: index + page
            case .home: 0
            default: count - 1
            }
            return min(max(0, next), count - 1)
        }
        switch state.focus {
        case .requests, .timeline:
            let rows = state.visibleRequests
            let index = state.selectedVisibleIndex ?? 0
            select(request: rows.isEmpty ? nil : rows[step(index, count: rows.count)].id, &state)
        case .chain where state.chainView != .hops:
            moveInSequence(action, &state)
        case .chain:
            state.followsToEnd = false
            state.selectedHop = step(state.selectedHop, count: state.chainRowCount)
            state.detailScroll = 0
        case .detail:
            state.detailScroll = step(state.detailScroll, count: detailScrollLimit(state) + 1)
        }
    }

    /// Selects `request` and shows where it is: its stop, or where it ended.
    static func select(request: Int?, _ state: inout InspectorState) {
        if request != state.selectedRequest { state.selectedLane = .cache }
        state.selectedRequest = request
        state.selectedAttempt = nil
        switch state.selectedStop?.place {
        case .hop(let hop, let position):
            state.selectedHop = hop
            state.selectedSide = position
        case .refresh: state.selectedHop = state.hops.count
        default:
            state.selectedHop = 0
            state.selectedSide = .pre
            if let row = state.selectedRow, row.isFinished { selectEnd(&state) }
        }
        state.followedPlace = state.selectedStop?.place
        state.followsToEnd = false
        state.detailScroll = 0
    }

    static func showCurl(_ state: inout InspectorState) {
        guard let request = state.selectedRequest else { return }
        let masking: SecretMasking = state.revealSecrets ? .revealed : .masked
        let attempt = state.shownAttempt
        let events = state.lab.timeline.events(request: request).filter { $0.attempt == attempt }
        let hop = state.selectedHop
        // The request as the selected hop handed it on; for hops that see only the GraphQL
        // request, the first full HTTP request below them.
        let atHop = events.last { $0.hop == hop && ($0.phase == .preflight || $0.phase == .send) && ($0.kind == .http || $0.kind == .transport || $0.kind == .middleware) }
        let below = events.first { $0.hop >= hop && ($0.kind == .http || $0.kind == .middleware || $0.kind == .transport) && ($0.phase == .preflight || $0.phase == .send) }
        guard let event = atHop ?? below, let command = CurlExport.command(for: event, masking: masking, preview: true) else {
            state.notice = .init(text: "request #\(request) has not reached the HTTP layer yet at this attempt", isError: true)
            return
        }
        let title = "curl · #\(request) attempt \(attempt) · as \(event.name) \(event.phase == .send ? "sent it" : "handed it on")"
        state.modal = .curl(title: title, command: VisibleEscapes.escape(command).replacingOccurrences(of: "\\n", with: "\n"))
    }

    // MARK: - Overlays

    /// The open overlay's payload that `extract` finds, taken out of the state, so that the
    /// caller holds its only copy and edits its text field in place: switching over
    /// `state.modal` keeps a second copy alive, and every character would copy the field.
    private static func takeOverlay<Payload>(_ state: inout InspectorState, _ extract: (Overlay) -> Payload?) -> Payload? {
        guard let payload = state.modal.flatMap(extract) else { return nil }
        state.modal = nil
        return payload
    }

    /// Types `text` into the open overlay's text field at once, where every character is an
    /// edit; false when no overlay with a text field is open. A field that fills up keeps
    /// what fits and says so.
    static func paste(_ text: String, _ state: inout InspectorState) -> Bool {
        guard state.modal?.takesText == true else { return false }
        let fitted: Bool
        if var prompt = takeOverlay(&state, { if case .filter(let prompt) = $0 { prompt } else { nil } }) {
            fitted = prompt.input.insert(contentsOf: text)
            state.modal = .filter(prompt)
        } else if var editor = takeOverlay(&state, { if case .breakRules(let editor) = $0 { editor } else { nil } }) {
            fitted = editor.input.insert(contentsOf: text)
            state.modal = .breakRules(editor)
        } else if var input = takeOverlay(&state, { if case .search(let input) = $0 { input } else { nil } }) {
            fitted = input.insert(contentsOf: text)
            state.detailSearch = input.text
            state.detailMatch = 0
            state.modal = .search(input)
        } else if var prompt = takeOverlay(&state, { if case .export(let prompt) = $0 { prompt } else { nil } }) {
            fitted = prompt.path.insert(contentsOf: text)
            state.modal = .export(prompt)
        } else if var editor = takeOverlay(&state, { if case .editor(let editor) = $0 { editor } else { nil } }) {
            fitted = editor.type(text)
            state.modal = .editor(editor)
        } else {
            return false
        }
        if !fitted {
            state.notice = .init(text: "a text field holds at most \(TextInput.maximumLength) characters; the rest was dropped", isError: true)
        }
        return true
    }

    /// Why `key` left the open overlay as it was: a list or a text at its end, or a key the
    /// overlay does not use.
    static func overlayRefusal(_ key: Key, in overlay: OverlayKeymap.Overlay) -> InspectorState.Notice {
        let text: String = switch OverlayKeymap.action(for: key, in: overlay) {
        case .scrollUp, .selectUp, .previous, .pageUp, .moveUp: "already at the top"
        case .scrollDown, .selectDown, .next, .pageDown, .moveDown: "already at the end"
        default: "\(key.name) does nothing here"
        }
        return .init(text: text, isError: false)
    }

    static func handleModal(_ modal: Overlay, _ key: Key, _ state: inout InspectorState) -> [InspectorEffect] {
        switch modal {
        case .findings(let list):
            return handleFindingsKey(list, key, &state)
        case .compare(let comparison):
            handleCompareKey(comparison, key, &state)
            return []
        case .help(let scroll):
            switch OverlayKeymap.action(for: key, in: .help) {
            case .scrollDown: state.modal = .help(scroll: min(scroll + 1, helpScrollLimit(state)))
            case .scrollUp: state.modal = .help(scroll: max(0, scroll - 1))
            case .pageDown: state.modal = .help(scroll: min(scroll + 10, helpScrollLimit(state)))
            case .pageUp: state.modal = .help(scroll: max(0, scroll - 10))
            default: state.modal = nil
            }
            return []
        case .scenarioInfo, .curl:
            state.modal = nil
            return []
        case .confirmQuit:
            state.modal = nil
            return OverlayKeymap.action(for: key, in: .confirmQuit) == .confirm ? [.quit] : []
        case .failPicker(let request):
            state.modal = nil
            let fault: LabFault? = switch OverlayKeymap.action(for: key, in: .failPicker) {
            case .timeout: .timeout
            case .cancellation: .cancellation
            case .transportError: .transportError
            default: nil
            }
            guard let fault else { return [] }
            if let stop = state.heldStop, stop.request == request { noteByPerson(stop, &state) }
            return [.command(.fail(request: request, fault: fault, lane: state.commandLane))]
        case .search(var input):
            switch OverlayKeymap.action(for: key, in: .search) {
            case .clear:
                state.detailSearch = ""
                state.modal = nil
            case .next:
                // With nothing found, the next match is nowhere: say so rather than count on.
                let found = detailContent(state).map { searchMatches(in: $0.lines, for: state.detailSearch).count } ?? 0
                if found == 0 {
                    state.notice = .init(text: state.detailSearch.isEmpty ? "type what to search Detail for" : "no match in Detail", isError: false)
                } else {
                    state.detailMatch += 1
                }
            case .previous:
                state.detailMatch = max(0, state.detailMatch - 1)
            default:
                _ = input.handle(key)
                state.detailSearch = input.text
                state.detailMatch = 0
                state.modal = .search(input)
            }
            return []
        case .filter(let prompt):
            handleFilterKey(prompt, key, &state)
            return []
        case .breakRules(let editor):
            return handleBreakRulesKey(editor, key, &state)
        case .reorder(var reorder):
            switch OverlayKeymap.action(for: key, in: .reorder) {
            case .cancel: state.modal = nil
            case .apply:
                state.modal = nil
                state.lab.chain = reorder.chain
                state.lab.chainHops = reorder.chain.hops(parser: state.lab.chainHops.last { $0.kind == .parser }?.name ?? HopLayout.labParser)
                state.notice = .init(text: "new chain for new operations: \(reorder.names.joined(separator: " → "))", isError: false)
                return [.setChain(reorder.chain)]
            case .selectUp: reorder.selected = max(0, reorder.selected - 1)
            case .selectDown: reorder.selected = min(reorder.names.count - 1, reorder.selected + 1)
            case .moveUp, .moveDown:
                if let refusal = reorder.move(by: OverlayKeymap.action(for: key, in: .reorder) == .moveUp ? -1 : 1) { state.notice = .init(text: refusal, isError: true) }
            default: break
            }
            if state.modal != nil { state.modal = .reorder(reorder) }
            return []
        case .export(var prompt):
            switch OverlayKeymap.action(for: key, in: .export) {
            case .cancel: state.modal = nil
            case .switchFormat:
                let previous = prompt.format
                prompt.format = previous.nextInInspector
                let path = prompt.path.text
                if path.hasSuffix("." + previous.fileExtension) {
                    prompt.path = TextInput(text: String(path.dropLast(previous.fileExtension.count)) + prompt.format.fileExtension)
                }
                state.modal = .export(prompt)
            case .toggle:
                prompt.onlyShown = prompt.onlyShown.map { !$0 }
                state.modal = .export(prompt)
            case .apply:
                guard !prompt.path.text.isEmpty else { return [] }
                state.modal = nil
                // The requests shown as the file is written, running ones the filter has just let through included.
                return [.export(format: prompt.format, path: prompt.path.text, requests: prompt.onlyShown == true ? state.filterMatches : nil)]
            default:
                _ = prompt.path.handle(key)
                state.modal = .export(prompt)
            }
            return []
        case .editor(var editor):
            switch editor.handle(key) {
            case .editing: state.modal = .editor(editor)
            case .cancelled: state.modal = nil
            case .confirmed(let command):
                state.modal = nil
                if let stop = state.heldStop, stop.request == editor.request { noteByPerson(stop, &state) }
                return [.command(command.inLane(state.commandLane))]
            }
            return []
        }
    }
}
