package import TerminalUI
package import InspectorModel

/// The panes of the last frame drawn with an overlay open, kept while the state's
/// ``InspectorState/panesRevision`` and the screen's size stay: a frame is then the kept
/// panes with the status line and the overlay drawn over them, and only the rows those
/// write are compared with the previous frame (``TerminalUI/Buffer/markAsBase()``). A character typed into the `/` line changes
/// only the overlay, so its frame draws two rows, not the four panes.
///
/// Serves `input.type.char` (in a debug build most of all, where drawing the panes was
/// nine tenths of a typed character). Each frame equals what ``Inspector/render(_:into:)``
/// draws into a blank buffer, with the same map; `PaneCacheTests` check it.
package struct PaneCache {
    private var kept: (revision: PanesRevision, size: Size, panes: Buffer, map: ScreenMap)?

    package init() {}

    /// The frame of `state` on a screen of `size`, and where it put what a click can reach.
    package mutating func frame(_ state: InspectorState, size: Size) -> (buffer: Buffer, map: ScreenMap) {
        // Only a key that changes nothing but an open overlay leaves the panes as they were
        // (a typed character); keeping them costs a copy of the frame whenever they change,
        // so without an overlay the frame is drawn whole, as it was.
        guard Inspector.fitsPanes(size), state.modal != nil else {
            kept = nil
            var buffer = Buffer(size: size)
            let map = Inspector.render(state, into: &buffer)
            return (buffer, map)
        }
        let panes: (panes: Buffer, map: ScreenMap)
        if let kept, kept.revision == state.panesRevision, kept.size == size {
            panes = (kept.panes, kept.map)
        } else {
            var buffer = Buffer(size: size)
            var map = ScreenMap()
            Inspector.renderPanes(state, into: &buffer, map: &map)
            buffer.markAsBase()
            kept = (state.panesRevision, size, buffer, map)
            panes = (buffer, map)
        }
        var buffer = panes.panes
        var map = panes.map
        Inspector.renderOverPanes(state, into: &buffer, map: &map)
        return (buffer, map)
    }
}
