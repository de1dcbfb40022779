/// A mouse report: which button, what it did, and where (columns and rows from 0).
///
/// Terminals report the mouse once an app asks for it (`NcursesBackend(mouse: true)`);
/// `MouseDecoder` reads the xterm SGR form (mode 1006), `ESC [ < b ; x ; y M`, with `m`
/// for a release.
public struct MouseEvent: Hashable, Sendable {
    public enum Button: Hashable, Sendable {
        case left, middle, right
        case wheelUp, wheelDown, wheelLeft, wheelRight
        /// Movement with no button down.
        case none
    }

    public enum Kind: Hashable, Sendable {
        case press, release, drag
    }

    public var button: Button
    public var kind: Kind
    public var position: Position
    /// 2 for the second press of a double click at the same cell.
    public var clickCount: Int
    public var shift: Bool
    public var alt: Bool
    public var control: Bool

    public init(
        _ button: Button, _ kind: Kind = .press, at position: Position, clickCount: Int = 1,
        shift: Bool = false, alt: Bool = false, control: Bool = false
    ) {
        self.button = button
        self.kind = kind
        self.position = position
        self.clickCount = clickCount
        self.shift = shift
        self.alt = alt
        self.control = control
    }

    /// Whether this turns the wheel up or down.
    public var isWheel: Bool { button == .wheelUp || button == .wheelDown || button == .wheelLeft || button == .wheelRight }
}

/// Reads xterm's SGR mouse reports (mode 1006): `ESC [ < Cb ; Cx ; Cy M` for a press or
/// movement, `m` for a release. Cb's low two bits are the button (0 left, 1 middle,
/// 2 right, 3 none), 4 adds Shift, 8 Alt, 16 Ctrl, 32 means movement, 64 the wheel (then
/// the low bits are up, down, left, right); Cx and Cy count from 1.
///
/// ```swift
/// MouseDecoder.decode("\u{1B}[<0;12;5M")   // left press at column 11, row 4
/// MouseDecoder.decode("\u{1B}[<65;3;2M")   // wheel down at column 2, row 1
/// ```
public enum MouseDecoder {
    /// The event `sequence` reports, or nil when it is not a whole SGR mouse report.
    public static func decode(_ sequence: String) -> MouseEvent? {
        guard case .complete(let event) = scan(Array(sequence.unicodeScalars)) else { return nil }
        return event
    }

    /// How far a run of input scalars got towards an SGR mouse report.
    enum Progress: Equatable {
        /// Could still become one.
        case prefix
        case complete(MouseEvent)
        /// Cannot become one.
        case invalid
    }

    /// The longest report that can be sent: `ESC [ < 255 ; 9999 ; 9999 M` and some slack.
    static let longest = 24

    static func scan(_ scalars: [Unicode.Scalar]) -> Progress {
        let introducer: [Unicode.Scalar] = ["\u{1B}", "[", "<"]
        for (index, scalar) in scalars.prefix(3).enumerated() where scalar != introducer[index] { return .invalid }
        guard scalars.count > 3 else { return .prefix }
        guard scalars.count <= longest else { return .invalid }
        var numbers: [Int] = [0]
        var digits = 0
        for (index, scalar) in scalars.dropFirst(3).enumerated() {
            switch scalar {
            case "0"..."9":
                guard digits < 4 else { return .invalid }
                numbers[numbers.count - 1] = numbers[numbers.count - 1] * 10 + Int(scalar.value - 0x30)
                digits += 1
            case ";":
                guard digits > 0, numbers.count < 3 else { return .invalid }
                numbers.append(0)
                digits = 0
            case "M", "m":
                guard digits > 0, numbers.count == 3, index == scalars.count - 4 else { return .invalid }
                return event(code: numbers[0], x: numbers[1], y: numbers[2], released: scalar == "m").map(Progress.complete) ?? .invalid
            default:
                return .invalid
            }
        }
        return .prefix
    }

    private static func event(code: Int, x: Int, y: Int, released: Bool) -> MouseEvent? {
        guard x >= 1, y >= 1, code <= 255 else { return nil }
        let low = code & 3
        let button: MouseEvent.Button
        if code & 64 != 0 {
            button = [.wheelUp, .wheelDown, .wheelLeft, .wheelRight][low]
        } else if code & 128 != 0 {
            return nil
        } else {
            button = [.left, .middle, .right, .none][low]
        }
        let kind: MouseEvent.Kind = released ? .release : code & 32 != 0 ? .drag : .press
        return MouseEvent(button, kind, at: Position(x: x - 1, y: y - 1), shift: code & 4 != 0, alt: code & 8 != 0, control: code & 16 != 0)
    }
}
