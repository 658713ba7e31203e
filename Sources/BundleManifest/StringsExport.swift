import Foundation

/// One text of a definition that a `<lang>.lproj/Intents.strings` table translates: its generated key (the `…ID`),
/// its source text, and what it is, as Xcode's "Export for Localization" comments it.
public struct LocalizableString: Sendable, Equatable {
  /// The `…ID` value, e.g. "0xCtgS".
  public var key: String
  /// The definition's own text.
  public var source: String
  /// What the text is: "Title of intent BookRoom", "Primary prompt of parameter bookedBy of BookRoom", ...
  public var comment: String

  public init(key: String, source: String, comment: String) {
    self.key = key
    self.source = source
    self.comment = comment
  }
}

extension IntentDefinition {
  /// Every text the definition lets a translation replace, in the definition's order, one per key: an ID used
  /// twice (SoupChef gives three combination titles one ID) is listed once, with its first text. An ID without a
  /// text has nothing to translate and is left out.
  public var localizableStrings: [LocalizableString] {
    var result: [LocalizableString] = []
    var seen = Set<String>()
    func add(_ id: String?, _ text: String?, _ comment: String) {
      guard let id, !id.isEmpty, let text, seen.insert(id).inserted else { return }
      result.append(LocalizableString(key: id, source: text, comment: comment))
    }
    for intent in intents {
      let name = intent.name
      add(intent.titleID, intent.title, "Title of intent \(name)")
      add(intent.descriptionID, intent.description, "Description of intent \(name)")
      for combination in intent.combinations {
        let which =
          combination.key.isEmpty ? "with no parameters" : "with \(combination.parameters.joined(separator: ", "))"
        add(combination.titleID, combination.title, "Shortcut title of \(name) \(which)")
        add(combination.subtitleID, combination.subtitle, "Shortcut subtitle of \(name) \(which)")
      }
      for parameter in intent.parameters {
        let of = "parameter \(parameter.name) of \(name)"
        add(parameter.displayNameID, parameter.displayName, "Display name of \(of)")
        add(parameter.trueDisplayNameID, parameter.trueDisplayName, "Display name of the true value of \(of)")
        add(parameter.falseDisplayNameID, parameter.falseDisplayName, "Display name of the false value of \(of)")
        for prompt in parameter.promptDialogs {
          add(prompt.textID, prompt.text, "\(prompt.type) prompt of \(of)")
        }
        for reason in parameter.unsupportedReasonSpecs {
          add(reason.textID, reason.text, "Unsupported reason \(reason.code) of \(of)")
        }
      }
      for code in intent.response?.codes ?? [] {
        add(code.templateID, code.template, "Response template of code \(code.name) of \(name)")
        add(code.conciseTemplateID, code.conciseTemplate, "Concise response template of code \(code.name) of \(name)")
      }
      for parameter in intent.response?.parameters ?? [] {
        add(
          parameter.displayNameID, parameter.displayName,
          "Display name of response parameter \(parameter.name) of \(name)")
      }
    }
    for enumeration in enums {
      add(enumeration.displayNameID, enumeration.displayName, "Display name of enum \(enumeration.name)")
      for value in enumeration.values {
        add(value.displayNameID, value.displayName, "Display name of value \(value.name) of enum \(enumeration.name)")
      }
    }
    for type in types {
      add(type.displayNameID, type.displayName, "Display name of type \(type.name)")
      for property in type.properties {
        add(
          property.displayNameID, property.displayName, "Display name of property \(property.name) of type \(type.name)"
        )
      }
    }
    return result
  }
}

/// A strings table brought up to date with a definition: what `assistant strings export` writes.
public struct StringsExport: Sendable, Equatable {
  public enum State: String, Sendable, Equatable {
    /// The table had the key: its text is kept.
    case translated
    /// The table lacked it: the source text is written, marked NEW.
    case new
    /// The table has it, the definition no longer does: kept at the end, marked stale.
    case stale
  }

  public struct Entry: Sendable, Equatable {
    public var key: String
    /// The definition's text (nil for a stale key).
    public var source: String?
    /// What the table says: the kept translation, or the source text for a new key.
    public var text: String
    public var comment: String
    public var state: State
  }

  /// Definition order first (a variant `ID-valueID` the table has follows its ID), then stale keys, sorted.
  public var entries: [Entry]
  /// The definition's file name, for the header and the XLIFF's `original`.
  public var definitionName: String
  public var locale: String

  public var newCount: Int { entries.count { $0.state == .new } }
  public var staleCount: Int { entries.count { $0.state == .stale } }
  public var translatedCount: Int { entries.count { $0.state == .translated } }
  /// The definition's keys (not stale ones).
  public var keyCount: Int { entries.count { $0.state != .stale } }

  /// Merges `existing` (the table's current strings, empty when there is none) with `definition`'s texts. A key
  /// whose ID (the part before "-") the definition uses is kept, a variant included; any other is stale. A key of
  /// `untranslated` (marked NEW by an earlier export, see `markedNew(in:)`) whose text is still the source text stays
  /// new; once its text differs, it is translated.
  public init(
    definition: IntentDefinition, definitionName: String, locale: String, existing: [String: String],
    untranslated: Set<String> = []
  ) {
    self.definitionName = definitionName
    self.locale = locale
    var entries: [Entry] = []
    var placed = Set<String>()
    let variants = existing.keys.filter { $0.contains("-") }.sorted()
    for string in definition.localizableStrings {
      if let kept = existing[string.key], !(untranslated.contains(string.key) && kept == string.source) {
        entries.append(
          Entry(key: string.key, source: string.source, text: kept, comment: string.comment, state: .translated))
      } else {
        entries.append(
          Entry(key: string.key, source: string.source, text: string.source, comment: string.comment, state: .new))
      }
      placed.insert(string.key)
      for variant in variants where variant.hasPrefix(string.key + "-") && placed.insert(variant).inserted {
        let value = String(variant.dropFirst(string.key.count + 1))
        entries.append(
          Entry(
            key: variant, source: nil, text: existing[variant]!,
            comment: "\(string.comment), worded for the value whose ID is \(value)", state: .translated))
      }
    }
    // Keys of IDs without a text (nothing to export) are still the definition's: kept as they are.
    let ids = definition.localizationIDs
    for key in existing.keys.sorted() where !placed.contains(key) {
      let id = String(key.split(separator: "-", omittingEmptySubsequences: false).first ?? "")
      if ids.contains(id) {
        entries.append(
          Entry(key: key, source: nil, text: existing[key]!, comment: "Text of ID \(id)", state: .translated))
      } else {
        entries.append(
          Entry(
            key: key, source: nil, text: existing[key]!, comment: "STALE: no longer in \(definitionName)",
            state: .stale))
      }
      placed.insert(key)
    }
    let staleStart = entries.partition { $0.state == .stale }
    entries[staleStart...].sort { $0.key < $1.key }
    self.entries = entries
  }

  /// The keys an earlier export marked NEW in `table` (the text of a `.strings` file): a key line (`"key" = `) right
  /// after a `/* NEW: … */` comment line, as `stringsFile` writes them. Only those lines count; a table written
  /// another way has none.
  public static func markedNew(in table: String) -> Set<String> {
    var result = Set<String>()
    var afterMarker = false
    for line in table.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      defer { afterMarker = line.hasPrefix("/* NEW: ") && line.hasSuffix(" */") }
      guard afterMarker, line.hasPrefix("\""), let key = unquotedKey(line) else { continue }
      result.insert(key)
    }
    return result
  }

  /// The key of a line `"key" = ...` as `quoted` wrote it, or nil.
  static func unquotedKey(_ line: Substring) -> String? {
    var key = ""
    var scalars = line.unicodeScalars.dropFirst().makeIterator()
    while let scalar = scalars.next() {
      switch scalar {
      case "\"":
        return key
      case "\\":
        switch scalars.next() {
        case "\\": key += "\\"
        case "\"": key += "\""
        case "n": key += "\n"
        case "r": key += "\r"
        case "t": key += "\t"
        case "U":
          var hex = ""
          for _ in 0..<4 { if let digit = scalars.next() { hex.unicodeScalars.append(digit) } }
          guard let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value) else { return nil }
          key.unicodeScalars.append(decoded)
        default: return nil
        }
      default:
        key.unicodeScalars.append(scalar)
      }
    }
    return nil
  }

  /// The `.strings` file: a header, then one `/* comment */` and `"key" = "text";` per entry.
  public var stringsFile: String {
    var lines = ["/* \(Self.comment("\(locale) strings of \(definitionName), written by assistant strings export")) */"]
    for entry in entries {
      let marker = entry.state == .new ? "NEW: " : ""
      lines.append("")
      lines.append("/* \(marker)\(Self.comment(entry.comment)) */")
      lines.append("\"\(Self.quoted(entry.key))\" = \"\(Self.quoted(entry.text))\";")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// An XLIFF 1.2 document as Xcode's "Export for Localization" writes one: a `file` per definition, a `trans-unit`
  /// per key with its `source`, a `target` when translated, and a `note`. Stale keys are not exported.
  public func xliff(sourceLanguage: String = "en") -> String {
    var lines = [
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
      "<xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" "
        + "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" version=\"1.2\" "
        + "xsi:schemaLocation=\"urn:oasis:names:tc:xliff:document:1.2 "
        + "http://docs.oasis-open.org/xliff/v1.2/os/xliff-core-1.2-strict.xsd\">",
      "  <file original=\"\(Self.escaped(definitionName))\" source-language=\"\(Self.escaped(sourceLanguage))\" "
        + "target-language=\"\(Self.escaped(locale))\" datatype=\"plaintext\">",
      "    <header>",
      "      <tool tool-id=\"intenthost.assistant\" tool-name=\"assistant\"/>",
      "    </header>",
      "    <body>",
    ]
    for entry in entries where entry.state != .stale {
      lines.append("      <trans-unit id=\"\(Self.escaped(entry.key))\" xml:space=\"preserve\">")
      lines.append("        <source>\(Self.escaped(entry.source ?? entry.text))</source>")
      if entry.state == .translated { lines.append("        <target>\(Self.escaped(entry.text))</target>") }
      lines.append("        <note>\(Self.escaped(entry.comment))</note>")
      lines.append("      </trans-unit>")
    }
    lines += ["    </body>", "  </file>", "</xliff>"]
    return lines.joined(separator: "\n") + "\n"
  }

  /// Text inside a `.strings` quoted string: backslash, quote and control characters escaped.
  static func quoted(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": result += "\\\\"
      case "\"": result += "\\\""
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      default:
        if scalar.value < 0x20 || scalar.value == 0x7F {
          result += String(format: "\\U%04X", scalar.value)
        } else {
          result.unicodeScalars.append(scalar)
        }
      }
    }
    return result
  }

  /// Text inside a `/* */` comment: it cannot end the comment early, nor span lines.
  static func comment(_ text: String) -> String {
    text.replacingOccurrences(of: "*/", with: "* /").split(whereSeparator: \.isNewline).joined(separator: " ")
  }

  /// Text inside XML: the five entities, and control characters XML 1.0 cannot hold dropped (tab, LF, CR kept).
  static func escaped(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&apos;"
      case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
      default:
        if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}
