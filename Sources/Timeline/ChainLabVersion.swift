/// ChainLab's version, as exports name their creator (HAR's `creator.version`, OTLP's
/// `service.version` and instrumentation scope).
public enum ChainLabVersion {
    public static let current = "1.0"
}
