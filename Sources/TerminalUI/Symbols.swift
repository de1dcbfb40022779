/// The line-drawing characters borders are made of: Unicode box drawing, or plain ASCII
/// for terminals whose locale is not UTF-8.
///
/// A `Terminal` reports the set that works on it (`terminal.symbols`); pass that to the
/// widgets that draw borders. The tees and the cross let an app join panes, as in `├──┴──┤`.
public struct Symbols: Hashable, Sendable {
    public var horizontal: Character
    public var vertical: Character
    public var topLeft: Character
    public var topRight: Character
    public var bottomLeft: Character
    public var bottomRight: Character
    /// `├`: a vertical line with a branch to the right.
    public var teeRight: Character
    /// `┤`: a vertical line with a branch to the left.
    public var teeLeft: Character
    /// `┬`: a horizontal line with a branch down.
    public var teeDown: Character
    /// `┴`: a horizontal line with a branch up.
    public var teeUp: Character
    public var cross: Character

    public init(
        horizontal: Character, vertical: Character,
        topLeft: Character, topRight: Character, bottomLeft: Character, bottomRight: Character,
        teeRight: Character, teeLeft: Character, teeDown: Character, teeUp: Character, cross: Character
    ) {
        self.horizontal = horizontal
        self.vertical = vertical
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomLeft = bottomLeft
        self.bottomRight = bottomRight
        self.teeRight = teeRight
        self.teeLeft = teeLeft
        self.teeDown = teeDown
        self.teeUp = teeUp
        self.cross = cross
    }

    /// `┌─┐│└┘├┤┬┴┼`
    public static let unicode = Symbols(
        horizontal: "─", vertical: "│", topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘",
        teeRight: "├", teeLeft: "┤", teeDown: "┬", teeUp: "┴", cross: "┼"
    )

    /// `+-|`: every corner, tee and cross is `+`.
    public static let ascii = Symbols(
        horizontal: "-", vertical: "|", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        teeRight: "+", teeLeft: "+", teeDown: "+", teeUp: "+", cross: "+"
    )
}
