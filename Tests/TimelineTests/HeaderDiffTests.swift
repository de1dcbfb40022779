import ChainKit
import Testing
import Timeline

@Suite struct HeaderDiffTests {
    @Test func addedChangedAndRemovedInOrder() throws {
        let before = try HTTPFields(["Accept": "application/json", "X-Trace": "1", "Cookie": "a=1"])
        let after = try HTTPFields(["accept": "application/json", "Authorization": "Bearer abc", "x-trace": "2", "X-New": "y"])
        #expect(HeaderDiff(from: before, to: after) == HeaderDiff(added: ["Authorization", "X-New"], changed: ["x-trace"], removed: ["Cookie"]))
    }

    @Test func caseOnlyRenameIsNoChange() throws {
        let diff = HeaderDiff(from: try HTTPFields(["Content-Type": "text/plain"]), to: try HTTPFields(["content-type": "text/plain"]))
        #expect(diff.isEmpty)
        #expect(diff == .none)
    }

    @Test func repeatedNamesCompareAllValuesInOrder() throws {
        let before = try HTTPFields(pairs: [("Accept", "a"), ("Accept", "b")])
        let reordered = try HTTPFields(pairs: [("Accept", "b"), ("Accept", "a")])
        let fewer = try HTTPFields(pairs: [("Accept", "a")])
        #expect(HeaderDiff(from: before, to: reordered).changed == ["Accept"])
        #expect(HeaderDiff(from: before, to: fewer).changed == ["Accept"])
        #expect(HeaderDiff(from: before, to: before).isEmpty)
    }

    @Test func emptyToSomeAndBack() throws {
        let some = try HTTPFields(["Authorization": "Bearer x", "Accept": "*/*"])
        #expect(HeaderDiff(from: HTTPFields(), to: some) == HeaderDiff(added: ["Authorization", "Accept"]))
        #expect(HeaderDiff(from: some, to: HTTPFields()) == HeaderDiff(removed: ["Authorization", "Accept"]))
    }
}
