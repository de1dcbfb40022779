import Foundation

/// What the colours an app draws with look like on screen: a theme.
///
/// Apps draw with the basic colours as roles (green for success, red for failure, yellow
/// for attention, cyan for accents, `dim` for secondary text); a palette says which
/// concrete colour each role gets, and what the terminal's default foreground and
/// background are. `.terminal` leaves everything to the terminal's own theme. Colours
/// 16–255 of the xterm palette have fixed RGB values (``Color/rgb``), so a palette built
/// from them has contrast ratios that can be computed and tested.
///
/// ```swift
/// Palette.light.apply(Style(foreground: .green))   // Style(foreground: .indexed(28))
/// ```
public struct Palette: Hashable, Sendable {
    /// Concrete colours for the colours an app asks for; a colour not listed is kept.
    public var colors: [Color: Color]
    /// The foreground `.default` stands for; `.default` keeps the terminal's.
    public var foreground: Color
    /// The background `.default` stands for; `.default` keeps the terminal's.
    public var background: Color
    /// When set, `dim` text is drawn in this colour instead: dimming is the terminal's
    /// choice and may fall below a contrast the palette promises.
    public var dimForeground: Color?
    /// When set, text on a background of its own (a highlight) is drawn in this colour:
    /// the palette's text colours are chosen for its own background, not for highlights.
    public var foregroundOnHighlight: Color?

    public init(
        colors: [Color: Color] = [:], foreground: Color = .default, background: Color = .default,
        dimForeground: Color? = nil, foregroundOnHighlight: Color? = nil
    ) {
        self.colors = colors
        self.foreground = foreground
        self.background = background
        self.dimForeground = dimForeground
        self.foregroundOnHighlight = foregroundOnHighlight
    }

    /// The terminal's own colours.
    public static let terminal = Palette()

    /// For light backgrounds: the basic colours replaced by darker xterm colours that keep
    /// at least 4.5:1 against white (yellow and cyan wash out on white otherwise).
    public static let light = Palette(colors: [
        .red: .indexed(160), .green: .indexed(28), .yellow: .indexed(130), .blue: .indexed(21),
        .magenta: .indexed(127), .cyan: .indexed(25), .white: .indexed(238),
        .brightRed: .indexed(160), .brightGreen: .indexed(28), .brightYellow: .indexed(130), .brightBlue: .indexed(21),
        .brightMagenta: .indexed(127), .brightCyan: .indexed(25), .brightWhite: .indexed(238), .brightBlack: .indexed(241),
    ])

    /// White on black, every colour bright enough for at least 7:1 (WCAG AAA), dim text
    /// in a light grey instead of the terminal's dimming, highlights in black on their
    /// (bright) colour.
    public static let highContrast = Palette(
        colors: [
            .black: .indexed(250), .red: .indexed(210), .green: .indexed(46), .yellow: .indexed(226), .blue: .indexed(117),
            .magenta: .indexed(213), .cyan: .indexed(51), .white: .indexed(231),
            .brightBlack: .indexed(250), .brightRed: .indexed(210), .brightGreen: .indexed(46), .brightYellow: .indexed(226),
            .brightBlue: .indexed(117), .brightMagenta: .indexed(213), .brightCyan: .indexed(51), .brightWhite: .indexed(231),
        ],
        foreground: .indexed(231), background: .indexed(16), dimForeground: .indexed(250), foregroundOnHighlight: .indexed(16)
    )

    /// Whether the palette changes nothing.
    public var isIdentity: Bool { self == .terminal }

    /// `style` as this palette draws it.
    public func apply(_ style: Style) -> Style {
        var result = style
        if let dimForeground, style.attributes.contains(.dim) {
            result.attributes.remove(.dim)
            if style.foreground == .default { result.foreground = dimForeground }
        }
        if let foregroundOnHighlight, style.background != .default {
            result.foreground = foregroundOnHighlight
        } else {
            result.foreground = result.foreground == .default ? foreground : colors[result.foreground] ?? result.foreground
        }
        result.background = result.background == .default ? background : colors[result.background] ?? result.background
        return result
    }

    /// Every foreground this palette draws text in: the default, the dim colour and each
    /// colour it maps to.
    public var textColors: Set<Color> {
        Set(colors.values).union([foreground]).union(dimForeground.map { [$0] } ?? [])
    }
}

extension Color {
    /// The colour's red, green and blue as xterm draws it (basic colours at xterm's
    /// defaults, which a terminal theme may change; 16–231 the 6×6×6 cube; 232–255 the
    /// grey ramp). Nil for `.default`.
    public var rgb: (red: UInt8, green: UInt8, blue: UInt8)? {
        guard let index = paletteIndex else { return nil }
        switch index {
        case 0..<16:
            let basic: [(UInt8, UInt8, UInt8)] = [
                (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
                (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255),
            ]
            return basic[index]
        case 16..<232:
            let levels: [UInt8] = [0, 95, 135, 175, 215, 255]
            let cube = index - 16
            return (levels[cube / 36], levels[cube / 6 % 6], levels[cube % 6])
        default:
            let grey = UInt8(8 + 10 * (index - 232))
            return (grey, grey, grey)
        }
    }

    /// Relative luminance per WCAG 2.x, from ``rgb``.
    public var relativeLuminance: Double? {
        guard let (red, green, blue) = rgb else { return nil }
        func linear(_ channel: UInt8) -> Double {
            let value = Double(channel) / 255
            return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// The WCAG contrast ratio between this colour and `other`, from 1 to 21.
    public func contrastRatio(with other: Color) -> Double? {
        guard let first = relativeLuminance, let second = other.relativeLuminance else { return nil }
        return (max(first, second) + 0.05) / (min(first, second) + 0.05)
    }
}
