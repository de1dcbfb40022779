/// Turns what `get_wch` returns, one value at a time, into keys, putting mouse reports
/// back together: curses hands over an SGR report (`ESC [ < 0 ; 12 ; 5 M`) as separate
/// characters once it is told not to treat it as a key. Also counts clicks: a second left
/// press at the same cell within ``doubleClickInterval`` of the first is a double click.
/// Pure: times are given, so tests feed real byte sequences and state the keys.
///
/// ```swift
/// var input = InputAssembler()
/// for scalar in "\u{1B}[<0;12;5M".unicodeScalars { keys += input.feed(.character(scalar.value), at: .zero) }
/// // keys == [.mouse(MouseEvent(.left, at: Position(x: 11, y: 4)))]
/// ```
public struct InputAssembler: Sendable {
    /// Two presses further apart than this are two single clicks.
    public static let doubleClickInterval: Duration = .milliseconds(400)

    /// Characters read since an Esc that may start a mouse report.
    private var pending: [Unicode.Scalar] = []
    private var lastPress: (position: Position, time: Duration, count: Int)?

    public init() {}

    /// Whether a mouse report has begun but not ended: read again with a short timeout,
    /// and call ``flush()`` if nothing comes.
    public var isWaiting: Bool { !pending.isEmpty }

    /// The keys `raw` completes, read at `time` (any monotonic clock).
    public mutating func feed(_ raw: RawKey, at time: Duration) -> [Key] {
        guard case .character(let value) = raw, let scalar = Unicode.Scalar(value) else {
            return flush() + [KeyDecoder.decode(raw)]
        }
        if pending.isEmpty {
            guard scalar == "\u{1B}" else { return [KeyDecoder.decode(raw)] }
            pending = [scalar]
            return []
        }
        pending.append(scalar)
        switch MouseDecoder.scan(pending) {
        case .prefix:
            return []
        case .complete(let event):
            pending = []
            return [.mouse(counted(event, at: time))]
        case .invalid:
            // Not a report: what was held back are ordinary keys (an Esc, then what followed).
            let scalars = pending
            pending = []
            var keys: [Key] = [.escape]
            for scalar in scalars.dropFirst() { keys += feed(.character(scalar.value), at: time) }
            return keys
        }
    }

    /// The keys held back while waiting for a report that did not come.
    public mutating func flush() -> [Key] {
        guard !pending.isEmpty else { return [] }
        let scalars = pending
        pending = []
        return [.escape] + scalars.dropFirst().map { KeyDecoder.decode(.character($0.value)) }
    }

    private mutating func counted(_ event: MouseEvent, at time: Duration) -> MouseEvent {
        guard event.button == .left, event.kind == .press else { return event }
        var event = event
        if let last = lastPress, last.position == event.position, time - last.time <= Self.doubleClickInterval, time >= last.time {
            event.clickCount = last.count + 1
        }
        lastPress = (event.position, time, event.clickCount)
        return event
    }
}
