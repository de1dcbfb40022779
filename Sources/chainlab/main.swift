import Foundation

let usage = """
    chainlab — step through Swift interceptor chains (Apollo iOS RequestChain, \
    swift-openapi-runtime middleware) hop by hop.

    USAGE: chainlab [--help]

    The interactive inspector and `chainlab trace` are being built; this build ships the
    chain runtime (the ChainKit library). Run `swift test` to exercise it.
    """

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments {
case [], ["--help"], ["-h"], ["help"]:
    print(usage)
default:
    FileHandle.standardError.write(Data("chainlab: unknown argument '\(arguments[0])'\n\n\(usage)\n".utf8))
    exit(2)
}
