/// What ncurses' `get_wch` returned, before decoding: a character (`OK`) or a key code
/// (`KEY_CODE_YES`).
public enum RawKey: Hashable, Sendable {
    /// A wide character, as the `wint_t` value `get_wch` stored.
    case character(UInt32)
    /// A curses key code such as `KEY_UP` or `KEY_RESIZE`.
    case keyCode(Int32)
}

/// Turns `get_wch` results into `Key`s. Pure, so the whole table is testable without a
/// terminal.
///
/// ```swift
/// KeyDecoder.decode(.character(0x71))          // .char("q")
/// KeyDecoder.decode(.character(0x03))          // .ctrl("c")
/// KeyDecoder.decode(.keyCode(KeyDecoder.Code.up))  // .up
/// ```
public enum KeyDecoder {
    /// ncurses key codes, as `<curses.h>` defines them (they are part of its ABI).
    public enum Code {
        public static let down: Int32 = 0o402
        public static let up: Int32 = 0o403
        public static let left: Int32 = 0o404
        public static let right: Int32 = 0o405
        public static let home: Int32 = 0o406
        public static let backspace: Int32 = 0o407
        /// `KEY_F0`; function key n is `f0 + n`.
        public static let f0: Int32 = 0o410
        public static let delete: Int32 = 0o512
        public static let pageDown: Int32 = 0o522
        public static let pageUp: Int32 = 0o523
        public static let enter: Int32 = 0o527
        public static let backTab: Int32 = 0o541
        public static let end: Int32 = 0o550
        public static let resize: Int32 = 0o632
    }

    public static func decode(_ raw: RawKey) -> Key {
        switch raw {
        case .character(let value): character(value)
        case .keyCode(let code): keyCode(code)
        }
    }

    private static func character(_ value: UInt32) -> Key {
        switch value {
        case 0x09: return .tab
        case 0x0A, 0x0D: return .enter
        case 0x1B: return .escape
        case 0x08, 0x7F: return .backspace
        case 0x00: return .ctrl("@")
        case 0x01...0x1A: return .ctrl(Character(Unicode.Scalar(UInt8(value) + 0x60)))
        case 0x1C...0x1F: return .ctrl(Character(Unicode.Scalar(UInt8(value) + 0x40)))
        case 0x80...0x9F: return .unknown
        default:
            guard let scalar = Unicode.Scalar(value) else { return .unknown }
            return .char(Character(scalar))
        }
    }

    private static func keyCode(_ code: Int32) -> Key {
        switch code {
        case Code.down: .down
        case Code.up: .up
        case Code.left: .left
        case Code.right: .right
        case Code.home: .home
        case Code.end: .end
        case Code.backspace: .backspace
        case Code.delete: .delete
        case Code.pageDown: .pageDown
        case Code.pageUp: .pageUp
        case Code.enter: .enter
        case Code.backTab: .backTab
        case Code.resize: .resize
        case Code.f0...(Code.f0 + 63): .function(Int(code - Code.f0))
        default: .unknown
        }
    }
}
