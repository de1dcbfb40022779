import Wire
import Testing

@Suite("Integer conversion of outside numbers")
struct SaturatingConversionTests {
    @Test("whole numbers and halves round to the nearest, halves away from zero")
    func rounding() {
        #expect([0.0, 2.4, 2.5, -2.5, 1e15].map { Int(saturating: $0) } == [0, 2, 3, -3, 1_000_000_000_000_000])
    }

    @Test("out of range, infinite and NaN values clamp instead of trapping")
    func clamping() {
        #expect(Int64(saturating: 1e16 * 1000) == Int64.max)
        #expect(Int64(saturating: 1e300) == Int64.max)
        #expect(Int64(saturating: -1e300) == Int64.min)
        #expect(Int(saturating: .infinity) == Int.max)
        #expect(Int(saturating: -.infinity) == Int.min)
        #expect(Int(saturating: .nan) == 0)
        #expect(Int32(saturating: 3e9) == Int32.max)
        #expect(UInt8(saturating: -4) == 0)
        // 2^63 is the first Double that Int64 cannot hold.
        #expect(Int64(saturating: 9_223_372_036_854_775_808.0) == Int64.max)
        #expect(Int64(saturating: 9_223_372_036_854_774_784.0) == 9_223_372_036_854_774_784)
    }
}
