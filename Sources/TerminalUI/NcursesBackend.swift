import CNcursesw
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real terminal, driven through ncurses. The only file that talks to curses.
///
/// Opening it takes over the screen: the user's locale (for UTF-8 and wide characters),
/// cbreak mode without echo, a 25 ms Esc delay, a hidden cursor, and the terminal's own
/// default colours. Box drawing is Unicode when the locale's codeset is UTF-8 and ASCII
/// otherwise (`symbols`), when ASCII is not asked for; then every symbol outside ASCII is
/// replaced too (`Display`). Colours go through the display's palette; a palette with its
/// own background paints the whole screen, as every cell of a frame is written in it
/// (`assume_default_colors` would not do: it tells curses what the terminal's defaults
/// are, and curses then writes "default" for those colours). Each `draw` writes only the cells that changed
/// since the last frame; after a resize the next frame is written whole.
///
/// With `mouse`, the terminal reports clicks, drags and the wheel (xterm modes 1000, 1002
/// and 1006, SGR coordinates) and `readKey` returns them as `.mouse`; the terminal's own
/// text selection then needs Shift held, so leave it off when a person wants to select.
///
/// The terminal is given back by `restore()`, by `deinit`, when the process exits
/// normally (`exit`, returning from `main`), and on SIGINT, SIGTERM, SIGHUP and SIGQUIT
/// (Ctrl-\\), which then end the process with status 128 + the signal number. A crash
/// (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) gives it back too, before the signal
/// goes on to the handler that was there before (the Swift runtime's crash report) or ends
/// the process: the terminal is never left raw, in the alternate screen, without a cursor.
///
/// curses keeps global, unsynchronised state, so only one backend can be open per process,
/// and it must be used from one thread; the class is deliberately not `Sendable`.
///
/// ```swift
/// let terminal = try NcursesBackend(colors: environment["NO_COLOR", default: ""].isEmpty)
/// defer { terminal.restore() }
/// terminal.draw { buffer in Block(title: "ChainLab", symbols: terminal.symbols).render(in: buffer.area, into: &buffer) }
/// _ = terminal.readKey(timeout: nil)
/// ```
public final class NcursesBackend: Terminal {
    public private(set) var size: Size
    public let symbols: Symbols
    public let display: Display

    private let screen: OpaquePointer
    private let window: UnsafeMutablePointer<WINDOW>
    private var isOpen = true
    private var previousFrame: Buffer?
    /// Colour pairs allocated so far, by palette numbers; nil when colours are off.
    private var colorPairs: [ColorPairKey: Int16]?
    /// The palette number for `.default`: -1 where the terminal supports default colours.
    private var defaultForeground: Int16 = -1
    private var defaultBackground: Int16 = -1
    private let reportsMouse: Bool
    private var input = InputAssembler()
    /// Keys decoded ahead of the one returned, when a held-back Esc turned out not to start
    /// a mouse report.
    private var queued: [Key] = []

    private struct ColorPairKey: Hashable {
        var foreground: Int16
        var background: Int16
    }

    /// Whether a screen is open and not yet given back. Shared with the signal and exit
    /// handlers, which may run at any moment, hence an atomic.
    private static let screenActive = Atomic<Bool>(false)
    private static let exitHookInstalled = Atomic<Bool>(false)

    /// Opens the terminal on the process's stdin and stdout.
    /// - Parameter colors: whether to use colours; pass false when `NO_COLOR` is set to a
    ///   non-empty value (the library does not read the environment itself).
    /// - Throws: `TerminalError.alreadyOpen` if another backend is open,
    ///   `TerminalError.cannotInitialize` if curses cannot set up the terminal.
    /// - Parameter mouse: whether to ask the terminal for mouse reports.
    /// - Parameter display: the palette, and whether to draw ASCII only.
    public init(colors: Bool, mouse: Bool = false, display: Display = .plain) throws(TerminalError) {
        guard NcursesBackend.screenActive.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else {
            throw .alreadyOpen
        }
        cn_use_environment_locale()
        FatalRestore.saveModes()
        guard let screen = cn_newterm(), let window = cn_stdscr() else {
            NcursesBackend.screenActive.store(false, ordering: .sequentiallyConsistent)
            throw .cannotInitialize
        }
        self.screen = screen
        self.window = window
        cbreak()
        noecho()
        nonl()
        intrflush(window, false)
        keypad(window, true)
        set_escdelay(25)
        curs_set(0)
        let codeset = String(cString: cn_locale_codeset()).uppercased()
        let asciiOnly = display.asciiOnly || !(codeset == "UTF-8" || codeset == "UTF8")
        symbols = asciiOnly ? .ascii : .unicode
        var shown = Display(palette: display.palette, asciiOnly: asciiOnly)
        if colors, has_colors() {
            start_color()
            if use_default_colors() != OK {
                defaultForeground = Int16(COLOR_WHITE)
                defaultBackground = Int16(COLOR_BLACK)
            }
            colorPairs = [:]
        } else {
            shown.palette = .terminal
        }
        self.display = shown
        reportsMouse = mouse
        if mouse {
            // Mouse reports come as SGR sequences read by `InputAssembler`, not as curses'
            // KEY_MOUSE (whose terminfo entry would swallow the report's introducer).
            keyok(cn_key_mouse(), false)
            FatalRestore.writeString(FatalRestore.mouseOn)
        }
        size = Size(width: Int(cn_getmaxx(window)), height: Int(cn_getmaxy(window)))
        FatalRestore.saveSequence(mouse: mouse)
        NcursesBackend.installHandlers()
    }

    deinit {
        restore()
    }

    public func draw(_ buffer: Buffer) {
        guard isOpen else { return }
        let buffer = buffer.displayed(in: display)
        let changes: [CellChange]
        if let previousFrame, previousFrame.width == buffer.width, previousFrame.height == buffer.height {
            changes = buffer.diff(from: previousFrame)
        } else {
            werase(window)
            changes = buffer.allCells
        }
        for change in changes where change.x < size.width && change.y < size.height {
            write(change.cell, x: change.x, y: change.y)
        }
        wrefresh(window)
        previousFrame = buffer
    }

    public func readKey(timeout: Duration?) -> Key? {
        guard isOpen else { return nil }
        if !queued.isEmpty { return queued.removeFirst() }
        var wait = timeout
        while true {
            wtimeout(window, wait.map(NcursesBackend.milliseconds) ?? -1)
            var value: wint_t = 0
            let raw: RawKey
            switch wget_wch(window, &value) {
            case OK: raw = .character(UInt32(value))
            case KEY_CODE_YES: raw = .keyCode(Int32(value))
            default:
                // Nothing more came: an Esc held back was only an Esc.
                queued = input.flush()
                return queued.isEmpty ? nil : queued.removeFirst()
            }
            var keys = reportsMouse ? input.feed(raw, at: ContinuousClock.now - NcursesBackend.start) : [KeyDecoder.decode(raw)]
            if keys.isEmpty {
                // Inside a mouse report: the rest is already on its way.
                wait = .milliseconds(50)
                continue
            }
            if keys.contains(.resize) {
                size = Size(width: Int(cn_getmaxx(window)), height: Int(cn_getmaxy(window)))
                previousFrame = nil
            }
            let first = keys.removeFirst()
            queued = keys
            return first
        }
    }

    /// The origin of the times mouse clicks are counted by.
    private static let start = ContinuousClock.now

    public func restore() {
        guard isOpen else { return }
        isOpen = false
        if reportsMouse { FatalRestore.writeString(FatalRestore.mouseOff) }
        for signalNumber in NcursesBackend.handledSignals {
            signal(signalNumber, SIG_DFL)
        }
        FatalRestore.uninstall()
        if NcursesBackend.screenActive.exchange(false, ordering: .sequentiallyConsistent) {
            endwin()
        }
        delscreen(screen)
    }

    private func write(_ cell: Cell, x: Int, y: Int) {
        var characters = cell.symbol.unicodeScalars.prefix(Int(CCHARW_MAX)).map { wchar_t(bitPattern: $0.value) }
        var wide = cchar_t()
        if setcchar(&wide, characters + [0], attributes(cell.style.attributes), colorPair(for: cell.style), nil) != OK {
            // curses accepts only combining marks after the first scalar; an emoji sequence
            // joined by ZWJ is drawn as its first scalar, which has the same width.
            characters = Array(characters.prefix(1))
            setcchar(&wide, characters + [0], attributes(cell.style.attributes), colorPair(for: cell.style), nil)
        }
        mvwadd_wch(window, Int32(y), Int32(x), &wide)
    }

    private func attributes(_ attributes: Attributes) -> attr_t {
        var value: attr_t = 0
        if attributes.contains(.bold) { value |= cn_a_bold() }
        if attributes.contains(.dim) { value |= cn_a_dim() }
        if attributes.contains(.reverse) { value |= cn_a_reverse() }
        if attributes.contains(.underline) { value |= cn_a_underline() }
        return value
    }

    /// The colour pair for a style's colours, allocated on first use; pair 0 (the
    /// terminal's defaults) when colours are off or the terminal has no pairs left.
    private func colorPair(for style: Style) -> Int16 {
        guard colorPairs != nil, style.foreground != .default || style.background != .default else { return 0 }
        let key = ColorPairKey(
            foreground: paletteNumber(style.foreground) ?? defaultForeground,
            background: paletteNumber(style.background) ?? defaultBackground
        )
        if let pair = colorPairs?[key] { return pair }
        let next = (colorPairs?.count ?? 0) + 1
        guard next < Int(cn_color_pairs()), next <= Int(Int16.max) else { return 0 }
        init_pair(Int16(next), key.foreground, key.background)
        colorPairs?[key] = Int16(next)
        return Int16(next)
    }

    /// The terminal's number for `color`; bright colours fall back to basic ones on
    /// 8-colour terminals, and anything else the terminal lacks to the default.
    private func paletteNumber(_ color: Color) -> Int16? {
        guard let index = color.paletteIndex else { return nil }
        let available = Int(cn_colors())
        if index < available { return Int16(index) }
        if index < 16, index - 8 < available { return Int16(index - 8) }
        return nil
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds.multipliedReportingOverflow(by: 1000)
        guard !total.overflow else { return seconds < 0 ? 0 : Int32.max }
        return Int32(clamping: max(0, total.partialValue + attoseconds / 1_000_000_000_000_000))
    }

    /// Signals that end the inspector as a request to quit. SIGQUIT is one: left to the
    /// Swift runtime, Ctrl-\\ would draw a crash report over the screen.
    private static let handledSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Gives the terminal back from a signal handler, if it is still taken, without calling
    /// into curses (whose state may be what broke).
    fileprivate static func restoreFromSignalHandler() {
        if screenActive.exchange(false, ordering: .sequentiallyConsistent) { FatalRestore.write() }
    }

    /// Restores the terminal on SIGINT, SIGTERM, SIGHUP and SIGQUIT (then exits with 128 +
    /// signal), on a crash, and at normal process exit.
    private static func installHandlers() {
        FatalRestore.install()
        for signalNumber in handledSignals {
            signal(signalNumber) { received in
                if NcursesBackend.screenActive.exchange(false, ordering: .sequentiallyConsistent) {
                    FatalRestore.writeMouseOff()
                    endwin()
                }
                _exit(128 + received)
            }
        }
        if !exitHookInstalled.exchange(true, ordering: .sequentiallyConsistent) {
            atexit {
                if NcursesBackend.screenActive.exchange(false, ordering: .sequentiallyConsistent) {
                    endwin()
                }
            }
        }
    }
}

/// What a crash's signal handler needs to give the terminal back, and the handlers it
/// replaced. Written when a screen opens, before the handlers are installed, and only read
/// by them; only one screen is open at a time (`screenActive`), which is what makes the
/// unchecked access safe. The buffers are allocated once and never freed, so a handler
/// never sees one go away.
private enum FatalRestore {
    /// Crashes, as opposed to requests to quit.
    static let signals: [Int32] = [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP]

    /// The terminal's modes before curses changed them.
    nonisolated(unsafe) static let modes = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    nonisolated(unsafe) static var hasModes = false
    /// Reset attributes, show the cursor, leave the alternate screen: the terminal's own
    /// `sgr0`, `cnorm` and `rmcup` strings.
    nonisolated(unsafe) static let sequence = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256)
    nonisolated(unsafe) static var sequenceLength = 0
    /// The actions in place before ours, by signal number.
    nonisolated(unsafe) static let previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    nonisolated(unsafe) static var installed = false

    static func saveModes() {
        hasModes = tcgetattr(STDIN_FILENO, modes) == 0
    }

    /// Turns on mouse reports: clicks (1000), drags (1002), SGR coordinates (1006).
    static let mouseOn = "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h"
    static let mouseOff = "\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l"
    /// `mouseOff`'s bytes when mouse reports are on, else none; for the signal handlers.
    nonisolated(unsafe) static let mouseOffBytes = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 32)
    nonisolated(unsafe) static var mouseOffLength = 0

    /// Writes `text` straight to the terminal, outside curses' own output.
    static func writeString(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    /// Async-signal-safe: write(2) only.
    static func writeMouseOff() {
        if mouseOffLength > 0 { _ = systemWrite(STDOUT_FILENO, mouseOffBytes.baseAddress!, mouseOffLength) }
    }

    static func saveSequence(mouse: Bool) {
        var bytes: [UInt8] = mouse ? Array(mouseOff.utf8) : []
        mouseOffLength = mouse ? min(mouseOff.utf8.count, mouseOffBytes.count) : 0
        for (index, byte) in mouseOff.utf8.prefix(mouseOffLength).enumerated() { mouseOffBytes[index] = byte }
        for (capability, fallback) in [("sgr0", "\u{1B}[0m"), ("cnorm", "\u{1B}[?25h"), ("rmcup", "\u{1B}[?1049l")] {
            // tigetstr answers nil for an unknown name and -1 for a capability the terminal lacks.
            if let value = tigetstr(capability), Int(bitPattern: value) != -1 {
                bytes += Array(String(cString: value).utf8)
            } else {
                bytes += Array(fallback.utf8)
            }
        }
        bytes += Array("\r\n".utf8)
        sequenceLength = min(bytes.count, sequence.count)
        for index in 0..<sequenceLength { sequence[index] = bytes[index] }
    }

    /// Async-signal-safe: write(2) and tcsetattr(3) only.
    static func write() {
        var offset = 0
        while offset < sequenceLength {
            let written = systemWrite(STDOUT_FILENO, sequence.baseAddress! + offset, sequenceLength - offset)
            if written <= 0 { break }
            offset += written
        }
        if hasModes { _ = tcsetattr(STDIN_FILENO, TCSANOW, modes) }
    }

    static func install() {
        guard !installed else { return }
        installed = true
        for number in signals {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_sigaction = restoreTerminalThenGoOn
            #else
            action.__sigaction_u.__sa_sigaction = restoreTerminalThenGoOn
            #endif
            // On the alternate stack where the thread has one: a stack overflow has none left.
            action.sa_flags = SA_ONSTACK | SA_SIGINFO
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, previous + Int(number))
        }
    }

    static func uninstall() {
        guard installed else { return }
        installed = false
        for number in signals { sigaction(number, previous + Int(number), nil) }
    }
}

/// A crash's handler, ratatui's panic hook in signal form: the terminal first, then the
/// handler that was there before (the Swift runtime's crash report), then the default
/// action. The signal is blocked while this runs, so raising it ends the process on return
/// (and a fault re-executes the faulting instruction, which raises it again).
private func restoreTerminalThenGoOn(_ received: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    NcursesBackend.restoreFromSignalHandler()
    let previous = FatalRestore.previous[Int(received)]
    signal(received, SIG_DFL)
    #if canImport(Glibc)
    let withInfo = previous.__sigaction_handler.sa_sigaction, plain = previous.__sigaction_handler.sa_handler
    #else
    let withInfo = previous.__sigaction_u.__sa_sigaction, plain = previous.__sigaction_u.__sa_handler
    #endif
    if previous.sa_flags & SA_SIGINFO != 0, let withInfo {
        withInfo(received, info, context)
    } else if let plain, unsafeBitCast(plain, to: Int.self) > 1 {
        // Not SIG_DFL (0) or SIG_IGN (1): a function.
        plain(received)
    }
    signal(received, SIG_DFL)
    raise(received)
}

/// `write(2)`, by a name no type here hides.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, bytes, count)
    #else
    Darwin.write(descriptor, bytes, count)
    #endif
}
