// How `assistant defaults` spells values on its command line (`write GROUP KEY -int 3`) and prints them (`read`,
// `watch`, `list`). The store operations are AssistantHost's `AppGroupDefaults`, which holds JSON values and knows
// nothing of either.
import AppGroupStore
import AssistantHost
import Foundation
import UntrustedText

/// The syntax and the rendering of `assistant defaults`' values.
enum DefaultsText {
  /// A value type of `defaults write`, given as a flag (`-int 3`); `string` when none is.
  enum ValueType: CaseIterable, Sendable {
    case string, integer, float, boolean, json

    /// Its flag, with every spelling.
    var option: Option {
      switch self {
      case .string: Self.stringOption
      case .integer: Self.integerOption
      case .float: Self.floatOption
      case .boolean: Self.booleanOption
      case .json: Self.jsonOption
      }
    }

    private static let stringOption = Option.flag("-string", help: "VALUE is a string (the default).")
    private static let integerOption = Option.flag("-int", "-integer", help: "VALUE is a whole number.")
    private static let floatOption = Option.flag("-float", "-double", help: "VALUE is a number.")
    private static let booleanOption = Option.flag(
      "-bool", "-boolean", help: "VALUE is true, false, yes, no, 1 or 0.")
    private static let jsonOption = Option.flag("-json", help: "VALUE is JSON (an object, array or any value).")

    /// The type one of whose flags `spelling` is (`-int`, `-integer`), or nil.
    init?(spelling: String) {
      guard let type = Self.allCases.first(where: { $0.option.names.contains(spelling) }) else { return nil }
      self = type
    }

    /// `text` as a value of this type: `string`, the text as it is; `integer`, a whole number; `float`, a finite
    /// number; `boolean`, true, false, yes, no, 1 or 0 (any case); `json`, any JSON value.
    /// - Throws: `HostError(.usage)` naming the type and the text when `text` is not such a value.
    func value(_ text: String) throws -> JSONValue {
      switch self {
      case .string: return .string(text)
      case .integer:
        guard let value = Int(text) else { throw HostError(.usage, "-int needs a whole number, not \"\(text)\"") }
        return .integer(value)
      case .float:
        guard let value = Double(text), value.isFinite else {
          throw HostError(.usage, "-float needs a finite number, not \"\(text)\"")
        }
        return .double(value)
      case .boolean:
        switch text.lowercased() {
        case "true", "yes", "1": return .bool(true)
        case "false", "no", "0": return .bool(false)
        default: throw HostError(.usage, "-bool needs true, false, yes, no, 1 or 0, not \"\(text)\"")
        }
      case .json:
        do {
          return try JSONValue(parsing: text)
        } catch {
          throw HostError(.usage, "-json needs JSON, and \(text) is not: \(DefaultsText.describeDecoding(error))")
        }
      }
    }
  }

  /// A typed value from `defaults write`'s arguments: `type` is one of the type flags' spellings (`ValueType`).
  /// - Throws: `HostError(.usage)` naming the type and the text when `text` is not such a value, or the type is
  ///   unknown.
  static func value(type: String, text: String) throws -> JSONValue {
    guard let valueType = ValueType(spelling: type) else {
      throw HostError(.usage, "unknown value type \(type); use -string, -int, -float, -bool or -json")
    }
    return try valueType.value(text)
  }

  /// A value as `defaults read` prints it (without `--json`), safe for a terminal:
  ///
  /// - A string is printed as it is (newlines and tabs kept, other controls escaped by `Untrusted.shown`), as macOS
  ///   `defaults read` prints one, unless it could be taken for something else; then it is printed as a JSON string,
  ///   in double quotes. It could be when it is empty, begins or ends with white space, is `true`, `false` or
  ///   `null`, reads as a number (`42`, `-1.5e3`, `inf`), or begins with `"`, `[` or `{`. So the string `true`
  ///   prints `"true"` and the boolean prints `true`; the string `12` prints `"12"`, the number `12`.
  /// - Anything else is printed as JSON (objects and arrays pretty-printed with sorted keys), with JSON's own
  ///   escapes for control and bidirectional characters (`Untrusted.shown(json:)`).
  ///
  /// Without a final newline. For the type spelt out, use `json(of:)`.
  static func text(of value: JSONValue) -> String {
    if case .string(let string) = value, !isAmbiguous(string) {
      return Untrusted.shown(string, multiline: true)
    }
    return Untrusted.shown(json: value.jsonText(pretty: true))
  }

  /// A value on one line, as `defaults watch` prints each value (without `--json`): `text(of:)`, except that objects
  /// and arrays are compact JSON and a string holding a line break or a tab is JSON-quoted too, so that every value
  /// is exactly one line (`watch ... | head -1` gets one whole value). Without a final newline.
  static func line(of value: JSONValue) -> String {
    if case .string(let string) = value, !isAmbiguous(string),
      !string.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\t" })
    {
      return Untrusted.shown(string)
    }
    return Untrusted.shown(json: value.jsonText())
  }

  /// A value as `defaults read --json` (and `watch --json`, one per line) prints it: one compact JSON object on one
  /// line that names the type beside the value, `{"type":TYPE,"value":VALUE}`, keys sorted. TYPE is one of
  /// `"string"`, `"number"`, `"boolean"`, `"null"`, `"array"`, `"object"` (JSON's own types: a number written with
  /// `-int` or `-float` is a `"number"`, as JSON keeps no difference between `1` and `1.0`); VALUE is the value
  /// itself. So the string `"true"` is `{"type":"string","value":"true"}` and the boolean is
  /// `{"type":"boolean","value":true}`. Escaped for a terminal (`Untrusted.shown(json:)`), decoded exactly as
  /// written.
  static func json(of value: JSONValue) -> String {
    Untrusted.shown(json: JSONValue.object(["type": .string(typeName(of: value)), "value": value]).jsonText())
  }

  /// The JSON type of `value`, as `json(of:)` names it.
  static func typeName(of value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "boolean"
    case .integer, .double: return "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    }
  }

  /// `defaults list` as text, safe for a terminal: per group `IDENTIFIER (PATH)`, then `  defaults: ...`,
  /// `  document: NAME` and `  refused: PROBLEM` lines; with no group, one line saying `appGroupsRoot` has none.
  /// Without a final newline.
  static func text(of listings: [GroupListing], appGroupsRoot: String) -> String {
    if listings.isEmpty { return Untrusted.shown("No app group has data in \(appGroupsRoot) yet.") }
    var lines: [String] = []
    for listing in listings {
      lines.append("\(Untrusted.shown(listing.identifier)) (\(Untrusted.shown(listing.path)))")
      if let defaults = listing.defaults { lines.append("  defaults: \(Untrusted.shown(defaults))") }
      lines += listing.documents.map { "  document: \(Untrusted.shown($0))" }
      lines += listing.problems.map { "  refused: \(Untrusted.shown($0))" }
    }
    return lines.joined(separator: "\n")
  }

  /// `defaults list --json`: one compact JSON object, `{"appGroupsRoot": PATH, "groups": [GroupListing...]}` (each
  /// listing with `identifier`, `path`, `defaults` (absent when none), `documents` and `problems`), keys sorted,
  /// escaped for a terminal.
  static func json(of listings: [GroupListing], appGroupsRoot: String) -> String {
    struct Report: Encodable {
      var appGroupsRoot: String
      var groups: [GroupListing]
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Strings and arrays of strings only: encoding cannot fail.
    let data = (try? encoder.encode(Report(appGroupsRoot: appGroupsRoot, groups: listings))) ?? Data()
    return Untrusted.shown(json: String(decoding: data, as: UTF8.self))
  }

  /// Whether `text(of:)` prints `string` in quotes (see there).
  static func isAmbiguous(_ string: String) -> Bool {
    guard let first = string.unicodeScalars.first, let last = string.unicodeScalars.last else { return true }
    if first.properties.isWhitespace || last.properties.isWhitespace { return true }
    if ["true", "false", "null"].contains(string) || Double(string) != nil || Int(string) != nil { return true }
    return first == "\"" || first == "[" || first == "{"
  }

  private static func describeDecoding(_ error: any Error) -> String {
    if case DecodingError.dataCorrupted(let context) = error {
      return (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        ?? context.debugDescription
    }
    return "\(error)"
  }
}
