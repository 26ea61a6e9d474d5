import Foundation
import Testing

@testable import Formwork

@Suite("JSON key-path reader")
struct JSONKeyPathTests {
    private func value(_ path: String, in json: String) throws -> String {
        let keyPath = try #require(JSONKeyPath(path))
        return String(decoding: try keyPath.value(in: Data(json.utf8)), as: UTF8.self)
    }

    @Test(
        "Finds the value's exact bytes",
        arguments: [
            ("data", #"{"data": {"a": 1}}"#, #"{"a": 1}"#),
            ("data.list", #"{"code":0,"data":{"list":[1, 2],"page":1}}"#, "[1, 2]"),
            ("data.code", #"{"data":{"code":"200"}}"#, #""200""#),
            ("a.b.c", #" { "a" : { "b" : { "c" : -1.5e3 } } } "#, "-1.5e3"),
            ("items.1.name", #"{"items":[{"name":"x"},{"name":"y"}]}"#, #""y""#),
            ("n", #"{"n":null}"#, "null"),
            ("big", #"{"big":12345678901234567890.123456789}"#, "12345678901234567890.123456789"),
            ("dup", #"{"dup":1,"dup":2}"#, "2"),
            ("esc\"aped", #"{"esc\"aped":true}"#, "true"),
            ("上海", #"{"\u4e0a\u6d77":"ok"}"#, #""ok""#),
            ("上海.x", #"{"上海":{"x":[]},"x":0}"#, "[]"),
            // Names compare as Swift strings do, by canonical equivalence: é (one scalar) is e + ◌́.
            ("caf\u{E9}", "{\"cafe\u{301}\":7}", "7"),
            // A plain ASCII name still equals a component that is not ASCII but canonically the same
            // (the Kelvin sign is K).
            ("\u{212A}ey", #"{"Key":8}"#, "8"),
            ("a.b", #"{"a":{"c":1,"b":2,"bb":3},"b":4}"#, "2"),
        ])
    func finds(path: String, json: String, expected: String) throws {
        #expect(try value(path, in: json) == expected)
        // Measured without being checked, the value is the same bytes.
        let keyPath = try #require(JSONKeyPath(path))
        let measured = try keyPath.value(in: Data(json.utf8), checksValue: false)
        #expect(String(decoding: measured, as: UTF8.self) == expected)
    }

    @Test(
        "Unchecked, the value is measured to its end; the rest of the document is still checked",
        arguments: [
            (#"{"data": tru}"#, "tru"),
            (#"{"data": {"a" 1}, "b": 2}"#, #"{"a" 1}"#),
            (#"{"data": "a \" quote, a } and a ]", "b": 1}"#, #""a \" quote, a } and a ]""#),
            (#"{"data": [{"x": "]"}, [1]]}"#, #"[{"x": "]"}, [1]]"#),
            (#"{"data":-1.5e3,"b":0}"#, "-1.5e3"),
            (#"{"data": {"a": [1, {}]}, "data": 2}"#, "2"),
        ])
    func measured(json: String, expected: String) throws {
        let keyPath = try #require(JSONKeyPath("data"))
        let value = try keyPath.value(in: Data(json.utf8), checksValue: false)
        #expect(String(decoding: value, as: UTF8.self) == expected)
    }

    @Test(
        "Unchecked, a document damaged outside the value, or whose value has no end, is still refused",
        arguments: [
            #"{"data": 1} trailing"#, #"{"data": "unterminated}"#, #"{"data": [1, 2"#, #"{"data": }"#,
            #"{"data": 1,}"#, #"{"a": tru, "data": 1}"#, #"{"data": [1]]}"#, #"{"data": "\"#,
            // A value measured, then replaced by a later member of the same name, is checked.
            #"{"data": tru, "data": 1}"#, #"{"data": [1,], "data": 1}"#,
        ])
    func measuredButMalformed(json: String) throws {
        let keyPath = try #require(JSONKeyPath("data"))
        #expect {
            try keyPath.value(in: Data(json.utf8), checksValue: false)
        } throws: { error in
            guard case .malformed(let offset, _) = error as? JSONKeyPath.Failure else { return false }
            return offset <= json.utf8.count
        }
    }

    @Test(
        "Reports the first missing component",
        arguments: [
            ("data.list", #"{"data":{"page":1}}"#, "list"),
            ("data.list", #"{"code":0}"#, "data"),
            ("data.list", #"{"data":"text"}"#, "list"),
            ("items.5", #"{"items":[1,2]}"#, "5"),
            ("data", "[1,2]", "data"),
            ("items.01", #"{"items":[1,2]}"#, "01"),
            ("data.Data", #"{"data":{"DATA":1,"data":2}}"#, "Data"),
        ])
    func missing(path: String, json: String, component: String) throws {
        let keyPath = try #require(JSONKeyPath(path))
        #expect(throws: JSONKeyPath.Failure.notFound(component: component)) {
            try keyPath.value(in: Data(json.utf8))
        }
    }

    @Test(
        "Refuses malformed documents, even when the path was found before the damage",
        arguments: [
            #"{"data": not json"#, #"{"data": 1"#, #"{"data": 1} trailing"#, "", "   ",
            #"{"data": "unterminated}"#,
            #"{"data": 01}"#, #"{"data": 1.}"#, #"{"data": "bad \x escape"}"#, "{\"data\": \"tab\there\"}",
            #"{"data": tru}"#, #"{data: 1}"#, #"{"a":1,}"#, "[1,2,]", String(repeating: "[", count: 600),
        ])
    func malformed(json: String) throws {
        let keyPath = try #require(JSONKeyPath("data"))
        #expect {
            try keyPath.value(in: Data(json.utf8))
        } throws: { error in
            guard case .malformed = error as? JSONKeyPath.Failure else { return false }
            return true
        }
    }

    @Test("Refuses invalid paths", arguments: ["", ".", "a..b", "a.", ".a"])
    func invalidPaths(path: String) {
        #expect(JSONKeyPath(path) == nil)
    }

    @Test("Reads a path's components: one without dots, one per part with dots")
    func components() throws {
        #expect(try #require(JSONKeyPath("data")).components == ["data"])
        #expect(try #require(JSONKeyPath("data.list.0")).components == ["data", "list", "0"])
        #expect(try #require(JSONKeyPath(" spaced name ")).components == [" spaced name "])
    }
}
