import ChainKit
import Synchronization
public import Timeline

/// One hop of the flattened chain, as the timeline and the screen name it.
public struct HopInfo: Sendable, Hashable {
    /// Position from the top, 0 being the outermost hop.
    public var index: Int { didSet { site = HopSiteKey(name: name, kind: kind, hop: index) } }
    /// The interceptor's type name (`MaxRetryInterceptor`), or `cache`/`transport` roles.
    public var name: String { didSet { site = HopSiteKey(name: name, kind: kind, hop: index) } }
    public var kind: HopKind { didSet { site = HopSiteKey(name: name, kind: kind, hop: index) } }
    /// The timeline's number for this hop's name, kind and index, worked out once here: a
    /// store then finds the hop's site for each event without reading the name.
    public private(set) var site: HopSiteKey

    public init(index: Int, name: String, kind: HopKind) {
        self.index = index
        self.name = name
        self.kind = kind
        self.site = HopSiteKey(name: name, kind: kind, hop: index)
    }
}

/// The layers of a chain by name, in order: what numbering its hops needs.
///
/// ``hops`` is the one place hops are numbered — for the instrumentation of every operation
/// (``HopLayouts``), for the chain a session shows before anything runs (Lab's
/// `LabSession.chainHops`), and for a reordered chain (Lab's `Scenario.Chain.hops(parser:)`).
public enum HopLayout: Sendable, Hashable {
    /// A GraphQL chain (Apollo iOS 2.x): its GraphQL interceptors, the cache step, its HTTP
    /// interceptors, the transport and the parser.
    case graphQL(graphQL: [String], http: [String], parser: String)
    /// A middleware stack (swift-openapi-runtime): its middlewares, then the transport.
    case middleware([String])

    /// The parser of the lab's own chains.
    public static let labParser = String(describing: JSONResponseParsingInterceptor.self)

    /// The hops from the top, numbered from 0.
    public var hops: [HopInfo] {
        var hops: [HopInfo] = []
        func next(_ name: String, _ kind: HopKind) {
            hops.append(HopInfo(index: hops.count, name: name, kind: kind))
        }
        switch self {
        case .graphQL(let graphQL, let http, let parser):
            hops.reserveCapacity(graphQL.count + http.count + 3)
            for name in graphQL { next(name, .graphql) }
            next("cache", .cache)
            for name in http { next(name, .http) }
            next("transport", .transport)
            next(parser, .parser)
        case .middleware(let middlewares):
            hops.reserveCapacity(middlewares.count + 1)
            for name in middlewares { next(name, .middleware) }
            next("transport", .transport)
        }
        return hops
    }
}

/// The hop layouts of one session's chains, worked out once per layout rather than once per
/// operation.
///
/// Every operation wraps fresh interceptors (or middlewares), nearly always of the same types
/// as the one before, and a hop's name costs a `String(describing:)` of its type — more than
/// the rest of wrapping the hop. Each chain kind keeps its last layout, keyed by the layers'
/// types, so operations on the same types share its hops (and the hops' name strings); type
/// names are kept too. Owned by a session (or a benchmark rig), never by the process: two
/// sessions never see each other's layouts.
public final class HopLayouts: Sendable {
    private let state = Mutex(State())

    public init() {}

    private struct State: Sendable {
        var graphQL: Layout?
        var middleware: Layout?
        /// Type names spelled out, and whether the type stands in for another layer (a
        /// ``WrappingMiddleware``, or an app's Apollo-shaped interceptor), whose name is then
        /// asked of each instance.
        var names: [ObjectIdentifier: (name: String, wraps: Bool)] = [:]

        mutating func entry(of value: Any) -> (name: String, wraps: Bool) {
            let type = Swift.type(of: value)
            if let entry = names[ObjectIdentifier(type)] { return entry }
            let entry = (name: String(describing: type), wraps: value is any WrappingMiddleware || value is any ApolloLayer)
            names[ObjectIdentifier(type)] = entry
            return entry
        }

        mutating func name(of value: Any) -> String {
            let entry = entry(of: value)
            guard entry.wraps, let layer = value as? any ApolloLayer else { return entry.name }
            return layer.wrappedLayerName
        }

        /// A middleware's hop name: its type's, or for a wrapper the wrapped middleware's.
        mutating func name(of middleware: any ClientMiddleware) -> String {
            guard entry(of: middleware).wraps, let wrapper = middleware as? any WrappingMiddleware else { return entry(of: middleware).name }
            return wrapper.wrappedMiddlewareName
        }
    }

    /// A layout kept: the layers' types in order, and the hops made for them.
    private struct Layout: Sendable {
        var types: [LayerType]
        var hops: [HopInfo]
        /// For a middleware stack with wrappers, the names they gave (a wrapper's name is its
        /// instance's, so the layout fits only while they name the same middlewares).
        var wrapperNames: [String]?

        // The types are compared in place: listing them for each operation would allocate.

        /// Whether a GraphQL chain has layers of these types, in this order.
        func fits(_ interceptors: ChainRunner.Interceptors) -> Bool {
            let graphQLCount = interceptors.graphQL.count
            guard types.count == graphQLCount + interceptors.http.count + 1, interceptors.parser.isOf(types[types.count - 1]) else { return false }
            for index in 0..<graphQLCount where !interceptors.graphQL[index].isOf(types[index]) {
                return false
            }
            for index in interceptors.http.indices where !interceptors.http[index].isOf(types[graphQLCount + index]) {
                return false
            }
            return true
        }

        /// Whether a middleware stack has layers of these types, in this order.
        func fits(_ middlewares: [any ClientMiddleware]) -> Bool {
            guard types.count == middlewares.count else { return false }
            for index in middlewares.indices where !middlewares[index].isOf(types[index]) {
                return false
            }
            return true
        }
    }

    /// The hops of a GraphQL chain of these interceptors.
    func hops(of interceptors: ChainRunner.Interceptors) -> [HopInfo] {
        state.withLock { state in
            // Read in place: binding the layout would retain each of its arrays.
            if state.graphQL?.fits(interceptors) == true { return state.graphQL!.hops }
            let hops = HopLayout.graphQL(
                graphQL: interceptors.graphQL.map { state.name(of: $0) }, http: interceptors.http.map { state.name(of: $0) },
                parser: state.name(of: interceptors.parser)
            ).hops
            let types = interceptors.graphQL.map(\.layerType) + interceptors.http.map(\.layerType)
            state.graphQL = Layout(types: types + [interceptors.parser.layerType], hops: hops)
            return hops
        }
    }

    /// The hops of a middleware stack of these middlewares.
    func hops(of middlewares: [any ClientMiddleware]) -> [HopInfo] {
        state.withLock { state in
            // Read in place, as for GraphQL chains.
            if state.middleware?.fits(middlewares) == true {
                if state.middleware!.wrapperNames == nil { return state.middleware!.hops }
                let names = middlewares.map { state.name(of: $0) }
                if names == state.middleware!.wrapperNames { return state.middleware!.hops }
            }
            let names = middlewares.map { state.name(of: $0) }
            let wraps = middlewares.contains { state.entry(of: $0).wraps }
            state.middleware = Layout(
                types: middlewares.map(\.layerType), hops: HopLayout.middleware(names).hops,
                wrapperNames: wraps ? names : nil)
            return state.middleware!.hops
        }
    }
}

/// A layer's type as a layout matches it: the type its existential holds it as and, when that
/// is a class (whose instance may be of a subclass), the instance's own type.
///
/// `type(of:)` on an existential copies it out and asks the runtime for the dynamic type, for
/// every layer of every operation. A layer that is not a class is of exactly the type its
/// existential names, which opening the existential reads in place.
struct LayerType: Hashable, Sendable {
    private let boxed: ObjectIdentifier
    /// The instance's type, when ``boxed`` is a class.
    private let instance: ObjectIdentifier?

    /// The type of `layer`, opened from its existential (`Layer` is the type it held).
    init<Layer>(of layer: borrowing Layer) {
        boxed = ObjectIdentifier(Layer.self)
        instance = Layer.self is AnyObject.Type ? ObjectIdentifier(type(of: layer)) : nil
    }

    /// Whether `layer`, opened from its existential, is of this type.
    func matches<Layer>(_ layer: borrowing Layer) -> Bool {
        guard boxed == ObjectIdentifier(Layer.self) else { return false }
        guard let instance else { return true }
        return instance == ObjectIdentifier(type(of: layer))
    }
}

// Protocol methods, so that asked of an existential they run on the opened value: a generic
// function handed the existential itself would see the existential's type.

extension ClientMiddleware {
    var layerType: LayerType { LayerType(of: self) }
    func isOf(_ type: LayerType) -> Bool { type.matches(self) }
}

extension ChainInterceptor {
    var layerType: LayerType { LayerType(of: self) }
    func isOf(_ type: LayerType) -> Bool { type.matches(self) }
}

extension ChainHTTPInterceptor {
    var layerType: LayerType { LayerType(of: self) }
    func isOf(_ type: LayerType) -> Bool { type.matches(self) }
}

extension ChainResponseParser {
    var layerType: LayerType { LayerType(of: self) }
    func isOf(_ type: LayerType) -> Bool { type.matches(self) }
}

/// The type name of a value, as hop names and lint use it.
package func typeName(_ value: Any) -> String {
    (value as? any ApolloLayer)?.wrappedLayerName ?? String(describing: type(of: value))
}
