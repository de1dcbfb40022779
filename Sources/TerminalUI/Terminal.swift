/// A screen an app draws whole frames on and reads keys from.
///
/// `NcursesBackend` is the real terminal; `TestBackend` records frames in memory. Both
/// write only the cells that changed since the previous frame. Terminals are used from one
/// thread: keep the value where the app's loop runs.
///
/// ```swift
/// func run(on terminal: any Terminal) {
///     defer { terminal.restore() }
///     var state = AppState()
///     while !state.done {
///         terminal.draw { buffer in render(state, into: &buffer) }
///         if let key = terminal.readKey(timeout: .milliseconds(100)) { update(&state, key) }
///     }
/// }
/// ```
public protocol Terminal: AnyObject {
    /// The current size in cells; it changes after `readKey` returns `.resize`.
    var size: Size { get }
    /// The border characters that display correctly on this terminal.
    var symbols: Symbols { get }
    /// Shows `buffer`, writing only the cells that differ from the last frame shown.
    func draw(_ buffer: Buffer)
    /// The next key, waiting at most `timeout` (nil: until a key arrives); nil on timeout.
    func readKey(timeout: Duration?) -> Key?
    /// Gives the terminal back to the shell. Safe to call more than once; afterwards
    /// `draw` does nothing and `readKey` returns nil.
    func restore()
}

extension Terminal {
    /// Renders a frame of the terminal's current size with `render` and shows it.
    public func draw(_ render: (inout Buffer) -> Void) {
        var buffer = Buffer(size: size)
        render(&buffer)
        draw(buffer)
    }
}

/// Why a terminal could not be opened.
public enum TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Another `NcursesBackend` is open; curses drives one screen per process.
    case alreadyOpen
    /// curses could not set up the terminal, e.g. `TERM` is unset or unknown.
    case cannotInitialize

    public var description: String {
        switch self {
        case .alreadyOpen:
            "a terminal screen is already open in this process"
        case .cannotInitialize:
            "cannot initialise the terminal: is TERM set to a terminal type this system knows?"
        }
    }
}
