import Foundation

/// Xcode build settings, for the `$(NAME)` and `${NAME}` references Xcode leaves in Info.plist and entitlements
/// sources (`$(PRODUCT_BUNDLE_IDENTIFIER)`, `${APP_NAME}`, `$(PRODUCT_NAME:rfc1034identifier)`).
///
/// Values come, in order of precedence, from explicit settings (`assistant validate --setting NAME=VALUE`), the
/// bundle's `BuildSettings.xcconfig` (xcconfig syntax: `NAME = value` lines, `//` comments, values may refer to other
/// settings), and what the bundle itself implies: `PRODUCT_NAME` (the bundle's folder name without `.app`/`.appex`),
/// `EXECUTABLE_NAME` and `TARGET_NAME` (= `PRODUCT_NAME`), `PRODUCT_MODULE_NAME` (`PRODUCT_NAME` as a C99 identifier),
/// `PRODUCT_BUNDLE_PACKAGE_TYPE` (`APPL` or `XPC!`), `DEVELOPMENT_LANGUAGE` (`en`). Anything else is unresolved and
/// reported, never replaced by an empty string.
public struct BuildSettings: Sendable, Equatable {
  public var values: [String: String]
  /// Where the values came from, for messages ("BuildSettings.xcconfig" or "--setting").
  public var sources: [String]

  public init(values: [String: String] = [:], sources: [String] = []) {
    self.values = values
    self.sources = sources
  }

  /// The file a bundle (or a source folder) may hold its settings in.
  public static let fileName = "BuildSettings.xcconfig"

  /// The settings a bundle implies, overlaid with its `BuildSettings.xcconfig` and then `explicit`.
  /// - Throws: `ManifestError` when the xcconfig file cannot be read.
  public static func forBundle(at url: URL, explicit: [String: String] = [:]) throws -> BuildSettings {
    let product = url.deletingPathExtension().lastPathComponent
    var values: [String: String] = [
      "PRODUCT_NAME": product, "TARGET_NAME": product, "EXECUTABLE_NAME": product,
      "PRODUCT_MODULE_NAME": c99Identifier(product),
      "PRODUCT_BUNDLE_PACKAGE_TYPE": url.pathExtension == "appex" ? "XPC!" : "APPL",
      "DEVELOPMENT_LANGUAGE": "en",
    ]
    var sources: [String] = []
    let file = url.appendingPathComponent(fileName)
    if FileManager.default.fileExists(atPath: file.path) {
      for (name, value) in try parseXCConfig(at: file) { values[name] = value }
      sources.append(file.path)
    }
    for (name, value) in explicit { values[name] = value }
    if !explicit.isEmpty { sources.append("--setting") }
    return BuildSettings(values: values, sources: sources)
  }

  /// `NAME = value` lines; `//` comments; `#include` is not supported (reported).
  public static func parseXCConfig(at url: URL) throws -> [(String, String)] {
    let text: String
    do {
      text = try String(contentsOf: url, encoding: .utf8)
    } catch {
      throw ManifestError(file: url.path, problem: "cannot be read as UTF-8 text")
    }
    var result: [(String, String)] = []
    for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var line = Substring(raw)
      if let comment = line.range(of: "//") { line = line[..<comment.lowerBound] }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty { continue }
      if trimmed.hasPrefix("#include") {
        throw ManifestError(
          file: url.path, keyPath: "line \(number + 1)", problem: "uses #include, which IntentHost does not follow",
          fix: "copy the included settings into this file")
      }
      guard let equals = trimmed.firstIndex(of: "=") else {
        throw ManifestError(
          file: url.path, keyPath: "line \(number + 1)", problem: "is not NAME = value: \"\(trimmed)\"")
      }
      let name = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
      let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        throw ManifestError(file: url.path, keyPath: "line \(number + 1)", problem: "\"\(name)\" is not a setting name")
      }
      result.append((name, value))
    }
    return result
  }

  /// The result of expanding one string.
  public struct Expansion: Sendable, Equatable {
    public var value: String
    /// The names that had no value; `value` keeps their references as written.
    public var unresolved: [String]
  }

  /// Expands every `$(NAME)`, `${NAME}` and `$(NAME:modifier)` in `text` (modifiers: `rfc1034identifier`,
  /// `c99extidentifier`, `identifier`, `lower`, `upper`). Values may themselves refer to settings.
  public func expand(_ text: String) -> Expansion {
    var unresolved: [String] = []
    let value = expand(text, depth: 0, unresolved: &unresolved)
    return Expansion(value: value, unresolved: unresolved)
  }

  private func expand(_ text: String, depth: Int, unresolved: inout [String]) -> String {
    guard text.contains("$"), depth < 8 else { return text }
    var result = ""
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      let next = text.index(after: index)
      guard character == "$", next < text.endIndex, text[next] == "(" || text[next] == "{" else {
        result.append(character)
        index = next
        continue
      }
      let close: Character = text[next] == "(" ? ")" : "}"
      guard let end = text[next...].firstIndex(of: close) else {
        result.append(contentsOf: text[index...])
        break
      }
      let reference = String(text[text.index(after: next)..<end])
      let parts = reference.split(separator: ":", maxSplits: 1).map(String.init)
      let name = parts.first ?? ""
      if let raw = values[name] {
        var value = expand(raw, depth: depth + 1, unresolved: &unresolved)
        if parts.count == 2 {
          for modifier in parts[1].split(separator: ",") {
            switch modifier {
            case "rfc1034identifier": value = Self.rfc1034Identifier(value)
            case "c99extidentifier", "identifier": value = Self.c99Identifier(value)
            case "lower": value = value.lowercased()
            case "upper": value = value.uppercased()
            default: break
            }
          }
        }
        result += value
      } else {
        if !unresolved.contains(name) { unresolved.append(name) }
        result += text[index...end]
      }
      index = text.index(after: end)
    }
    return result
  }

  static func c99Identifier(_ text: String) -> String {
    var result = String(text.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    if let first = result.first, first.isNumber { result = "_" + result }
    return result
  }

  static func rfc1034Identifier(_ text: String) -> String {
    String(text.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "-" })
  }
}
