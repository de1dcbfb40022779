extension LabBackend {
    /// A backend whose time is real time: seconds on a monotonic clock since it was
    /// created, so token TTLs pass as they would on a real server and are not thrown off
    /// when the system clock is set. `serve` uses it; in-process runs use the lab clock.
    ///
    /// ```swift
    /// var settings = LabBackend.Settings()
    /// settings.tokenTTL = 60   // a token issued now is refused a minute from now
    /// let backend = LabBackend.onWallClock(settings: settings)
    /// ```
    public static func onWallClock(settings: Settings = Settings()) -> LabBackend {
        let start = ContinuousClock.now
        return LabBackend(settings: settings) {
            let (seconds, attoseconds) = (ContinuousClock.now - start).components
            return Double(seconds) + Double(attoseconds) / 1e18
        }
    }
}
