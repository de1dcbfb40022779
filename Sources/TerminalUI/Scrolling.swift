/// Keeps a selected row on screen in a scrolling view (`List`, `Table`).
public enum Scrolling {
    /// The first row to show so that `selected` is visible, moving `offset` as little as
    /// possible and never past the end. Store the result in the app's state and pass it
    /// back next frame, so the view scrolls only when the selection leaves it.
    ///
    /// ```swift
    /// Scrolling.offset(selected: 12, offset: 0, visibleRows: 5, itemCount: 20)   // 8
    /// Scrolling.offset(selected: 9, offset: 8, visibleRows: 5, itemCount: 20)    // 8
    /// ```
    public static func offset(selected: Int?, offset: Int, visibleRows: Int, itemCount: Int) -> Int {
        guard visibleRows > 0, itemCount > 0 else { return 0 }
        var first = min(max(0, offset), max(0, itemCount - visibleRows))
        if let selected {
            let selected = min(max(0, selected), itemCount - 1)
            if selected < first { first = selected }
            if selected >= first + visibleRows { first = selected - visibleRows + 1 }
        }
        return first
    }
}
