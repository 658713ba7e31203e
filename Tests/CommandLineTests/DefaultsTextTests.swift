import AppGroupStore
import AssistantHost
import Foundation
import Testing

@testable import assistant

/// How `assistant defaults` spells values on its command line and prints them (`DefaultsText`): each type's
/// spellings and refusals, and the text, one-line and JSON renderings of values and of `defaults list`.
@Suite struct DefaultsTextTests {
  /// `value(type:text:)`: each type's accepted spellings, and 64 naming the type for a bad value or type.
  @Test func typedValues() throws {
    #expect(try DefaultsText.value(type: "-string", text: "true") == .string("true"))
    #expect(try DefaultsText.value(type: "-int", text: "-12") == .integer(-12))
    #expect(try DefaultsText.value(type: "-integer", text: "7") == .integer(7))
    #expect(try DefaultsText.value(type: "-float", text: "1.5") == .double(1.5))
    #expect(try DefaultsText.value(type: "-double", text: "2") == .double(2))
    for text in ["true", "YES", "1"] { #expect(try DefaultsText.value(type: "-bool", text: text) == .bool(true)) }
    for text in ["false", "no", "0"] {
      #expect(try DefaultsText.value(type: "-boolean", text: text) == .bool(false))
    }
    #expect(
      try DefaultsText.value(type: "-json", text: #"{"a":[1,"b"]}"#)
        == .object(["a": .array([.integer(1), .string("b")])]))
    for (type, text, expected) in [
      ("-int", "1.5", "-int needs a whole number"), ("-int", "99999999999999999999", "-int needs a whole number"),
      ("-float", "x", "-float needs a finite number"), ("-float", "nan", "-float needs a finite number"),
      ("-float", "inf", "-float needs a finite number"), ("-bool", "maybe", "-bool needs true, false"),
      ("-json", "{", "-json needs JSON"), ("-date", "x", "unknown value type -date"),
    ] {
      let error = #expect(throws: HostError.self) { try DefaultsText.value(type: type, text: text) }
      #expect(error?.status == .usage)
      #expect(error?.message.hasPrefix(expected) == true, "\(String(describing: error))")
    }
  }

  /// `text(of:)`: a string as it is unless it could be taken for another value, then quoted; the boolean `true`
  /// and the string "true" print differently. Controls and bidirectional characters never reach the terminal raw.
  @Test(arguments: [
    (JSONValue.string("Ada"), "Ada"), (.string("true"), #""true""#), (.bool(true), "true"),
    (.string("12"), #""12""#), (.integer(12), "12"), (.string("-1.5e3"), #""-1.5e3""#), (.double(1.5), "1.5"),
    (.string("null"), #""null""#), (.null, "null"), (.string(""), #""""#), (.string(" padded"), #"" padded""#),
    (.string("[1]"), #""[1]""#), (.string("{}"), #""{}""#), (.string(#""q""#), #""\"q\"""#),
    (.string("two\nlines"), "two\nlines"), (.string("True"), "True"), (.string("inf"), #""inf""#),
    (.string("a\u{1B}[31mred"), "a\\u{1B}[31mred"), (.array([.integer(1)]), "[\n  1\n]"),
    (.object(["b": .bool(false), "a": .string("x")]), "{\n  \"a\" : \"x\",\n  \"b\" : false\n}"),
  ])
  func textRendering(value: JSONValue, expected: String) {
    #expect(DefaultsText.text(of: value) == expected)
  }

  /// `line(of:)`: `text(of:)` on exactly one line, for `watch`.
  @Test(arguments: [
    (JSONValue.string("Ada"), "Ada"), (.string("true"), #""true""#), (.bool(true), "true"),
    (.string("two\nlines"), #""two\nlines""#), (.string("a\tb"), #""a\tb""#),
    (.string("a\u{1B}b"), "a\\u{1B}b"), (.string("a\u{2028}b"), "a\\u{2028}b"),
    (.object(["b": .array([.integer(1)]), "a": .string("x")]), #"{"a":"x","b":[1]}"#),
  ])
  func lineRendering(value: JSONValue, expected: String) {
    let line = DefaultsText.line(of: value)
    #expect(line == expected)
    #expect(!line.contains("\n"))
  }

  /// `json(of:)`: one line naming the type beside the value, which decodes back exactly; the string "true" and the
  /// boolean are told apart. An escape sequence in a string stays JSON's own escape.
  @Test(arguments: [
    (JSONValue.string("true"), #"{"type":"string","value":"true"}"#),
    (.bool(true), #"{"type":"boolean","value":true}"#),
    (.integer(12), #"{"type":"number","value":12}"#), (.double(1.5), #"{"type":"number","value":1.5}"#),
    (.null, #"{"type":"null","value":null}"#), (.array([.string("a")]), #"{"type":"array","value":["a"]}"#),
    (.object(["k": .integer(1)]), #"{"type":"object","value":{"k":1}}"#),
    (.string("a\u{1B}b\u{202E}"), #"{"type":"string","value":"a\u001bb\u202e"}"#),
  ])
  func jsonRendering(value: JSONValue, expected: String) throws {
    let json = DefaultsText.json(of: value)
    #expect(json == expected)
    #expect(
      try JSONValue(parsing: json) == .object(["type": .string(DefaultsText.typeName(of: value)), "value": value]))
  }

  /// `defaults list`'s text and JSON: each group with its path, shared defaults, documents and refusals; with none, a
  /// line naming the app groups' root.
  @Test func listRendering() throws {
    let root = "/home/u/.local/share/intenthost/AppGroup"
    let group = "group.com.example.rooms"
    let listings = [
      GroupListing(
        identifier: "group.bad_name", path: root + "/group.bad_name", defaults: nil, documents: [],
        problems: ["not a valid app group identifier, so no app uses this folder: ..."]),
      GroupListing(
        identifier: "group.com.example.other", path: root + "/group.com.example.other", defaults: nil,
        documents: ["notes.json"], problems: ["Library is a symbolic link"]),
      GroupListing(
        identifier: group, path: root + "/" + group, defaults: "Library/Preferences/\(group).json",
        documents: ["bookings.json"], problems: []),
    ]
    let text = DefaultsText.text(of: listings, appGroupsRoot: root)
    #expect(text.contains("\(group) (\(root)/\(group))\n  defaults: Library/Preferences/\(group).json"))
    #expect(text.contains("  document: bookings.json"))
    #expect(text.contains("  refused: "))
    #expect(DefaultsText.text(of: [], appGroupsRoot: root) == "No app group has data in \(root) yet.")
    let json = try JSONValue(parsing: DefaultsText.json(of: listings, appGroupsRoot: root))
    #expect(json["appGroupsRoot"] == .string(root))
    guard case .array(let groups)? = json["groups"] else {
      Issue.record("no groups in \(json)")
      return
    }
    #expect(groups.count == 3)
    #expect(groups[2]["defaults"] == .string("Library/Preferences/\(group).json"))
    #expect(groups[1]["defaults"] == nil)
  }
}
