/// The inspector app: ``update(_:_:)`` (module `Inspector`) and ``render(_:into:)`` (module
/// `InspectorView`) over an ``InspectorState``.
public enum Inspector {}
