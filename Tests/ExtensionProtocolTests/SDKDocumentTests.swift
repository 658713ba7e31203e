import Foundation
import TestSupport
import Testing

/// docs/SDK.md is the SDK's reference: it names every public declaration of `Sources/ExtensionSDK` (and of the files
/// of the modules the SDK re-exports that an author touches), each inside a code span of its prose or tables, and its
/// handler test is the tested code, character for character.
@Suite(.tags(.unit))
struct SDKDocumentTests {
  /// The SDK's own sources, and the re-exported files an extension or app author uses: every public declaration in
  /// them must be on the page.
  static let sources: [String] =
    files(in: "Sources/ExtensionSDK") + [
      "Sources/ExtensionProtocol/Intent.swift", "Sources/ExtensionProtocol/Resolution.swift",
      "Sources/ExtensionProtocol/SessionKind.swift", "Sources/ExtensionProtocol/Donating.swift",
      "Sources/AppGroupStore/AppGroupContainer.swift", "Sources/AppGroupStore/SharedDefaults.swift",
      "Sources/AppGroupStore/StoreError.swift", "Sources/AppGroupStore/JSONValue.swift",
    ]

  static func files(in folder: String) -> [String] {
    let url = PackagePaths.root.appendingPathComponent(folder)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    return names.filter { $0.hasSuffix(".swift") }.sorted().map { folder + "/" + $0 }
  }

  static func text(_ path: String) throws -> String {
    try String(contentsOf: PackagePaths.root.appendingPathComponent(path), encoding: .utf8)
  }

  @Test func namesEveryPublicDeclarationOfTheSDK() throws {
    let page = try Self.text("docs/SDK.md")
    let sdk = try Self.files(in: "Sources/ExtensionSDK").flatMap { try PublicDeclarations.scan(Self.text($0)) }
    // The scan sees the SDK: its types, a requirement, a member of an extension, a function's full selector.
    #expect(sdk.count > 50)
    for name in [
      "IntentHandler", "IntentHandler.handle(_:in:)", "ExtensionContext.requestAuthentication(reason:)",
      "AppContext.Missing", "AppContext.Missing.variable", "InAppIntentHandling.serve(_:)",
      "ExtensionContext.init(bundleIdentifier:extensionPoint:bundlePath:containerPath:locale:appGroups:)",
      "ExtensionContext.setVocabularyStrings(_:of:)", "IntentViewController.init()", "sdkImplementation",
    ] {
      #expect(sdk.contains { $0.description == name }, "the scan misses \(name)")
    }
    let all = try Self.sources.flatMap { try PublicDeclarations.scan(Self.text($0)) }
    let missing = PublicDeclarations.missing(all, from: page)
    #expect(missing.isEmpty, "docs/SDK.md does not name \(missing.map(\.description).joined(separator: ", "))")
  }

  /// The control: a name taken off the page is reported.
  @Test func aNameTakenOffThePageIsMissing() throws {
    let page = try Self.text("docs/SDK.md")
    let all = try Self.sources.flatMap { try PublicDeclarations.scan(Self.text($0)) }
    #expect(PublicDeclarations.missing(all, from: page).isEmpty)
    let without = page.replacing("requestAuthentication(reason:)", with: "requestAuthentication")
    #expect(
      PublicDeclarations.missing(all, from: without).map(\.description) == [
        "ExtensionContext.requestAuthentication(reason:)"
      ])
    // A name in a Swift example only is not named: the reference explains each in prose or a table.
    let tableless = page.replacing("`donationsPerApp`", with: "donationsPerApp")
    #expect(PublicDeclarations.missing(all, from: tableless).map(\.description) == ["DonationLimits.donationsPerApp"])
  }

  /// The page's handler tests are the tested code between the markers of their files: the untyped handler's in
  /// Tests/AppIntentsTests, the typed handler's (of types generated from a definition) in Tests/IntentCodegenTests.
  @Test(arguments: [
    ("Tests/AppIntentsTests/HandlerInProcessTests.swift", "handler test"),
    ("Tests/IntentCodegenTests/TypedHandlerInProcessTests.swift", "typed handler test"),
  ])
  func theHandlerTestOnThePageIsTheTestedCode(file: String, marker: String) throws {
    let page = try Self.text("docs/SDK.md")
    let lines = try Self.text(file).split(separator: "\n", omittingEmptySubsequences: false)
    let begin = try #require(lines.firstIndex(of: Substring("// docs/SDK.md: begin \(marker)")))
    let end = try #require(lines.firstIndex(of: Substring("// docs/SDK.md: end \(marker)")))
    let tested = lines[(begin + 1)..<end].joined(separator: "\n")
    #expect(tested.contains("ExtensionContext("))
    #expect(page.contains("```swift\n" + tested + "\n```\n"))
  }
}

/// A simple scanner of Swift sources for their public declarations: enough for our own sources, not a parser.
enum PublicDeclarations {
  /// A public declaration: a type (its qualified name), or a member of `owner`: a property, an enum case (by name),
  /// a function, initializer or subscript (by selector, `appGroup(_:)`).
  struct Declaration: Hashable, CustomStringConvertible {
    /// The enclosing type's qualified name; nil at file scope.
    var owner: String?
    /// What the page must name: `AppContext.Missing`, `locale`, `requestAuthentication(reason:)`.
    var token: String
    var isType: Bool
    var description: String { isType ? token : (owner.map { $0 + "." } ?? "") + token }
  }

  /// The `declarations` that no code span of `page` (outside its fenced code blocks) names. A token counts
  /// as named when a span holds it with no identifier character just before or after it.
  static func missing(_ declarations: [Declaration], from page: String) -> [Declaration] {
    var spans: [Substring] = []
    var inBlock = false
    for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
        inBlock.toggle()
        continue
      }
      if inBlock { continue }
      spans += line.split(separator: "`", omittingEmptySubsequences: false).enumerated()
        .filter { $0.offset % 2 == 1 }.map(\.element)
    }
    var seen = Set<String>()
    return declarations.filter { declaration in
      guard seen.insert(declaration.description).inserted else { return false }
      return !spans.contains { names($0, declaration.token) }
    }
  }

  static func names(_ span: Substring, _ token: String) -> Bool {
    var from = span.startIndex
    while let range = span[from...].range(of: token) {
      let before = range.lowerBound == span.startIndex ? nil : span[span.index(before: range.lowerBound)]
      let after = range.upperBound == span.endIndex ? nil : span[range.upperBound]
      if !(before.map(isIdentifier) ?? false) && !(after.map(isIdentifier) ?? false) { return true }
      from = range.upperBound
    }
    return false
  }

  static func isIdentifier(_ character: Character) -> Bool {
    character.isLetter || character.isNumber || character == "_"
  }

  /// What a scope opened by `{` is.
  struct Scope {
    /// The qualified name of a type or an extension's type; nil for a function body, an accessor, a closure.
    var type: String?
    /// A public protocol, whose requirements are public.
    var isPublicProtocol = false
    /// A public enum, whose cases are public.
    var isPublicEnum = false
  }

  /// The public declarations of one Swift file: those marked `public`, the requirements of a public protocol and the
  /// cases of a public enum, outside function bodies. Codable's `init(from:)` and `encode(to:)` are left out.
  static func scan(_ source: String) throws -> [Declaration] {
    // A declaration's line: attributes, modifiers, the keyword, the rest.
    let declaration =
      /^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?<modifiers>(?:(?:public|package|internal|private|fileprivate|open|static|final|indirect|mutating|nonisolated|override|required|convenience|[a-z]+\(set\))\s+)*)(?<kind>struct|enum|protocol|class|actor|extension|func|init|subscript|var|let|case|associatedtype|typealias)\b(?<rest>[^\n]*)/
    let code = Array(blankingCommentsAndStrings(source))
    var scopes: [Scope] = []
    var pendingType: Scope? = nil
    var found: [Declaration] = []
    var lineStart = 0
    for (index, character) in code.enumerated() {
      if index == lineStart {
        let line = String(code[index..<(code[index...].firstIndex(of: "\n") ?? code.count)])
        if let match = try declaration.firstMatch(in: line), scopes.isEmpty || scopes.last?.type != nil {
          let owner = scopes.last?.type
          let kind = String(match.output.kind)
          let rest = String(match.output.rest)
          let isPublic =
            match.output.modifiers.split(separator: " ").contains("public")
            || (scopes.last?.isPublicProtocol == true) || (kind == "case" && scopes.last?.isPublicEnum == true)
          let name = String(rest.drop { $0 == " " }.prefix { isIdentifier($0) })
          switch kind {
          case "struct", "enum", "protocol", "class", "actor":
            let qualified = owner.map { $0 + "." + name } ?? name
            if isPublic { found.append(Declaration(owner: owner, token: qualified, isType: true)) }
            pendingType = Scope(
              type: qualified, isPublicProtocol: isPublic && kind == "protocol",
              isPublicEnum: isPublic && kind == "enum")
          case "extension":
            pendingType = Scope(type: name)
          case "func", "init", "subscript":
            let keyword = line.distance(from: line.startIndex, to: match.output.kind.startIndex)
            if isPublic, let selector = selector(code[(index + keyword)...]),
              selector != "init(from:)", selector != "encode(to:)"
            {
              found.append(Declaration(owner: owner, token: selector, isType: false))
            }
          case "case":
            if isPublic {
              for element in splitTopLevel(rest[...]) {
                let caseName = element.drop { $0 == " " }.prefix { isIdentifier($0) }
                if !caseName.isEmpty { found.append(Declaration(owner: owner, token: String(caseName), isType: false)) }
              }
            }
          default:  // var, let, associatedtype, typealias
            if isPublic && !name.isEmpty {
              found.append(Declaration(owner: owner, token: name, isType: kind == "typealias"))
            }
          }
        }
      }
      switch character {
      case "{":
        scopes.append(pendingType ?? Scope())
        pendingType = nil
      case "}":
        if !scopes.isEmpty { scopes.removeLast() }
      case "\n":
        lineStart = index + 1
      default: break
      }
    }
    return found
  }

  /// `name(label:label:)` of the function, initializer or subscript whose keyword starts `code`.
  static func selector(_ code: ArraySlice<Character>) -> String? {
    guard let open = code.firstIndex(of: "(") else { return nil }
    let head = String(code[code.startIndex..<open])
    // `func name<T>`, `init?`, `subscript`: the name is the second word, or the keyword itself.
    let words = head.split { !isIdentifier($0) }
    guard let keyword = words.first else { return nil }
    let name = keyword == "func" ? words.dropFirst().first.map(String.init) ?? "" : String(keyword)
    var depth = 0
    var close = open
    for index in code[open...].indices {
      switch code[index] {
      case "(": depth += 1
      case ")": depth -= 1
      default: break
      }
      if depth == 0 {
        close = index
        break
      }
    }
    let parameters = splitTopLevel(code[(open + 1)..<close])
    let labels = parameters.compactMap { parameter -> String? in
      let beforeColon = parameter.prefix { $0 != ":" }.split { $0 == " " || $0 == "\n" }
      guard let first = beforeColon.first else { return nil }
      // A subscript's single name is no argument label.
      return keyword == "subscript" && beforeColon.count == 1 ? "_" : String(first)
    }
    return name + "(" + labels.map { $0 + ":" }.joined() + ")"
  }

  /// `text` split at the commas outside parentheses, brackets and angle brackets (an arrow's `>` is no bracket).
  static func splitTopLevel<Text: Collection<Character>>(_ text: Text) -> [String] {
    var parts: [String] = []
    var current = ""
    var depth = 0
    var previous: Character = " "
    for character in text {
      switch character {
      case "(", "[", "<": depth += 1
      case ")", "]": depth -= 1
      case ">" where previous != "-": depth -= 1
      case "," where depth == 0:
        parts.append(current)
        current = ""
        previous = character
        continue
      default: break
      }
      current.append(character)
      previous = character
    }
    if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { parts.append(current) }
    return parts
  }

  /// `source` with its comments and the contents of its string literals turned into spaces (line breaks kept), so
  /// that their braces, quotes and words are not taken for code. Handles `//`, `/* */`, `"…"` with escapes and
  /// interpolations, `"""…"""` and `#"…"#`.
  static func blankingCommentsAndStrings(_ source: String) -> String {
    let characters = Array(source)
    var output = characters
    var index = 0
    func blank(_ range: Range<Int>) {
      for position in range where characters[position] != "\n" { output[position] = " " }
    }
    func starts(_ text: String, at position: Int) -> Bool {
      let pattern = Array(text)
      return position + pattern.count <= characters.count
        && Array(characters[position..<(position + pattern.count)]) == pattern
    }
    /// The index just past the string literal whose opening delimiter (`#`s and quotes) starts at `position`.
    func endOfString(at position: Int) -> Int {
      var hashes = 0
      var cursor = position
      while characters[cursor] == "#" {
        hashes += 1
        cursor += 1
      }
      let isMultiline = starts("\"\"\"", at: cursor)
      let quote = isMultiline ? "\"\"\"" : "\""
      cursor += quote.count
      let closing = quote + String(repeating: "#", count: hashes)
      let escape = "\\" + String(repeating: "#", count: hashes)
      while cursor < characters.count {
        if starts(escape + "(", at: cursor) {
          // An interpolation: code up to its matching parenthesis, which may hold strings of its own.
          cursor += escape.count + 1
          var depth = 1
          while cursor < characters.count && depth > 0 {
            if characters[cursor] == "\"" || (characters[cursor] == "#" && starts("#\"", at: cursor)) {
              cursor = endOfString(at: cursor)
              continue
            }
            if characters[cursor] == "(" { depth += 1 }
            if characters[cursor] == ")" { depth -= 1 }
            cursor += 1
          }
        } else if starts(escape, at: cursor) {
          cursor += escape.count + 1
        } else if starts(closing, at: cursor) {
          return cursor + closing.count
        } else {
          cursor += 1
        }
      }
      return cursor
    }
    while index < characters.count {
      if starts("//", at: index) {
        let end = characters[index...].firstIndex(of: "\n") ?? characters.count
        blank(index..<end)
        index = end
      } else if starts("/*", at: index) {
        var end = index + 2
        while end < characters.count && !starts("*/", at: end) { end += 1 }
        end = min(end + 2, characters.count)
        blank(index..<end)
        index = end
      } else if characters[index] == "\""
        || (characters[index] == "#" && (starts("#\"", at: index) || starts("##\"", at: index)))
      {
        let end = endOfString(at: index)
        blank(index..<end)
        index = end
      } else {
        index += 1
      }
    }
    return String(output)
  }
}
