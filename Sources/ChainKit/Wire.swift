/// The value types ChainKit's API is made of (HTTP fields, requests, responses and bodies,
/// `JSONValue`, `PullStream`) live in `Wire`, beneath both the runtime and the lab's store;
/// `import ChainKit` still brings them.
@_exported public import Wire
