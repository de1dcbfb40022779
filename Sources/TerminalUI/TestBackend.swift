/// An in-memory `Terminal` for tests: it records every frame and every cell write, and
/// keeps the screen a real terminal would show after those writes.
///
/// ```swift
/// let terminal = TestBackend(width: 20, height: 3, keys: [.char("n"), .char("q")])
/// terminal.draw { buffer in StatusLine([.init("q", "quit")]).render(in: buffer.area, into: &buffer) }
/// terminal.screen.lines[0]    // "q quit              "
/// terminal.writes.last?.count // 20: a first frame writes every cell
/// ```
public final class TestBackend: Terminal {
    public private(set) var size: Size
    public let symbols: Symbols
    /// The palette and ASCII choice frames are shown with, as on a real terminal.
    public let display: Display
    /// The last buffer passed to `draw`.
    public private(set) var lastFrame: Buffer?
    /// The cells written by each `draw`, in order.
    public private(set) var writes: [[CellChange]] = []
    /// What the terminal shows: starts blank, then every write applied in order. After
    /// each draw it equals `lastFrame` if and only if the diff was complete.
    public private(set) var screen: Buffer
    /// Keys `readKey` will return, first one first; when empty, `readKey` times out.
    public var pendingKeys: [Key]
    /// How many times `restore()` was called.
    public private(set) var restoreCount = 0

    private var isRestored: Bool { restoreCount > 0 }
    /// The frame the screen was last brought up to date with; nil when its content is unknown.
    private var previousFrame: Buffer?

    public init(width: Int, height: Int, symbols: Symbols = .unicode, keys: [Key] = [], display: Display = .plain) {
        size = Size(width: width, height: height)
        self.symbols = display.asciiOnly ? .ascii : symbols
        self.display = display
        screen = Buffer(size: size)
        pendingKeys = keys
    }

    public func draw(_ buffer: Buffer) {
        guard !isRestored else { return }
        let buffer = buffer.displayed(in: display)
        let changes = previousFrame.map { buffer.diff(from: $0) } ?? buffer.allCells
        for change in changes where screen.area.contains(Position(x: change.x, y: change.y)) {
            let width = TextWidth.columns(of: Character(change.cell.symbol))
            guard change.x + width <= screen.width else { continue }
            screen.put(change.cell.symbol, width: width, x: change.x, y: change.y, style: change.cell.style)
        }
        writes.append(changes)
        lastFrame = buffer
        previousFrame = buffer
    }

    public func readKey(timeout: Duration?) -> Key? {
        guard !isRestored, !pendingKeys.isEmpty else { return nil }
        return pendingKeys.removeFirst()
    }

    public func restore() {
        restoreCount += 1
    }

    /// Changes the size the way a terminal window resize does: the screen's content is
    /// lost (the next draw writes every cell) and `readKey` returns `.resize` next.
    public func resize(width: Int, height: Int) {
        size = Size(width: width, height: height)
        screen = Buffer(size: size)
        previousFrame = nil
        pendingKeys.insert(.resize, at: 0)
    }
}
