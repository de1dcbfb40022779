/// Something that draws itself into a rectangle of a `Buffer`.
///
/// Widgets are values built fresh for every frame from the app's state; they never touch
/// the terminal and never draw outside `area`.
///
/// ```swift
/// struct Clock: Widget {
///     var text: String
///     func render(in area: Rect, into buffer: inout Buffer) {
///         buffer.set(string: text, at: area.origin, style: .bold, clip: area)
///     }
/// }
/// ```
public protocol Widget {
    func render(in area: Rect, into buffer: inout Buffer)
}
