extension FixedWidthInteger {
    /// `value` rounded to the nearest whole number (halves away from zero) and clamped to
    /// the type's range; NaN gives 0.
    ///
    /// `Int(_:)` traps on a `Double` that is out of range, infinite or NaN. Any number that
    /// came from outside (a file, a server, a clock advanced by one) is converted with this
    /// instead, so no input can stop the process:
    ///
    /// ```swift
    /// Int64(saturating: 1e300 * 1000) // Int64.max
    /// Int(saturating: 2.5)            // 3
    /// ```
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
            return
        }
        let rounded = value.rounded()
        if rounded <= Double(Self.min) {
            self = .min
        } else if rounded >= Double(Self.max) {
            // Double(Self.max) rounds up to a power of two for 64-bit types, so every
            // value below it converts exactly.
            self = .max
        } else {
            self = Self(rounded)
        }
    }
}
