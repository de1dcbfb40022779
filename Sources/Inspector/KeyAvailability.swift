import Lab
import Timeline

extension KeyBindings {
    /// Why `action` does nothing in `state`, or nil when it applies: the one answer the
    /// update, the status line's hints and the help overlay all use (a key the status line
    /// hides is one this refuses). The notice names the keys in force.
    public func disabledReason(_ action: Action, in state: InspectorState) -> InspectorState.Notice? {
        func refused(_ text: String) -> InspectorState.Notice { .init(text: text, isError: true) }
        let held = state.heldStop
        let notHeld = refused("\(state.selectedRequest.map { "request #\($0) is not held at a stop" } ?? "no request is selected"); press \(keyName(.newOperation)) to start one, \(keyName(.toggleBreakpoint)) to set a breakpoint, \(keyName(.toggleStepMode)) for step mode")
        switch action {
        case .step, .continueRequest:
            // A request between two stops will be held again in a moment: the command
            // waits for it, so keys typed quickly are not lost.
            return held != nil || Inspector.inFlightRequest(state) != nil ? nil : notHeld
        case .fail:
            return held == nil ? notHeld : nil
        case .switchLane:
            guard let request = state.selectedRequest else { return refused("no request is selected") }
            return state.hasTwoLanes ? nil : .init(text: "request #\(request) has one lane: two only while a CacheAndNetwork fetch overlaps the cached result's way up", isError: false)
        case .editHeaders:
            guard let held else { return notHeld }
            return held.capabilities.canEditRequest || held.capabilities.canEditResponse ? nil : refused("no headers can be edited at \(held.place) of \(held.hopName)")
        case .force401 where held?.lane == .cache, .forceRetry where held?.lane == .cache:
            // The scheduler refuses it too: either would drop the network fetch still under way.
            return refused("request #\(held!.request)'s cached result cannot retry or answer 401 while its network fetch overlaps; step the network lane (\(keyName(.switchLane))) to its end first")
        case .force401:
            guard let held else { return notHeld }
            return held.capabilities.canForce401 ? nil : refused("a 401 cannot be forced at \(held.place) of \(held.hopName): force it at the transport or at a post-flight stop")
        case .forceRetry:
            guard let held else { return notHeld }
            return held.capabilities.retryRefusal.map(refused)
        case .continueAll:
            return state.lab.parked.values.contains(where: \.held) ? nil : .init(text: "no request is held", isError: false)
        case .expireTokens:
            return state.lab.hasLabControls ? nil : refused("this server has no lab controls: tokens cannot be expired from here")
        case .showCurl:
            return state.selectedRequest == nil ? refused("no request is selected") : nil
        case .toggleBreakpoint:
            return state.hops.indices.contains(state.selectedHop) ? nil : refused(state.selectedRequest == nil ? "no request is selected" : "select a hop in the Chain pane to set a breakpoint on it")
        case .previousAttempt, .nextAttempt:
            let count = state.attemptCount, shown = state.shownAttempt
            let target = shown + (action == .previousAttempt ? -1 : 1)
            return (1...count).contains(target) ? nil : .init(text: "request #\(state.selectedRequest.map(String.init) ?? "?") made \(count) attempt\(count == 1 ? "" : "s"); this is attempt \(shown)", isError: false)
        default:
            return nil
        }
    }
}
