@testable import Inspector
import Testing

@Suite("JSON bodies laid out in Detail")
struct JSONIndentTests {
    @Test func membersOnTheirOwnLinesInTheServersOrder() {
        let text = #"{"zeta":1, "data":{"me":{"id":"1","tags":["a,b","c\"]"],"none":{},"list":[]}},"errors":null}"#
        #expect(JSONIndent.pretty(text) == """
            {
              "zeta": 1,
              "data": {
                "me": {
                  "id": "1",
                  "tags": [
                    "a,b",
                    "c\\"]"
                  ],
                  "none": {},
                  "list": []
                }
              },
              "errors": null
            }
            """)
    }

    @Test(arguments: ["plain words, not JSON", #"{"cut":"#, "[1]]", "42"])
    func whatIsNotAWholeObjectOrArrayIsLeftAlone(text: String) {
        #expect(JSONIndent.pretty(text) == nil)
    }
}
