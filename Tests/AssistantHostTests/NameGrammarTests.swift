import AppGroupStore
import BundleManifest
import TestSupport
import Testing

/// The grammar of names (`NameGrammar`, docs/VALIDATION.md): one table per kind of name, every valid shape and
/// every kind of invalid one, with the words the problem must contain. The app-group table also holds the store's
/// own check (`AppGroupContainer.identifierProblem`, which the SDK uses) to the same grammar.
@Suite(.tags(.unit)) struct NameGrammarTests {
  struct Name: Sendable, CustomTestStringConvertible {
    var text: String
    /// nil when valid; else words the problem contains.
    var problem: String?
    var testDescription: String {
      let shown = text.count > 40 ? "\(text.prefix(20))… (\(text.utf8.count) bytes)" : text
      return "\(shown.debugDescription) \(problem == nil ? "valid" : "invalid")"
    }

    init(_ text: String, _ problem: String? = nil) {
      self.text = text
      self.problem = problem
    }
  }

  static let longest = String(repeating: "a", count: 98) + "." + String(repeating: "b", count: 101)

  static let bundleIdentifiersTable: [Name] = [
    Name("com.example.rooms"),
    Name("com.example"),
    Name("com.example.rooms.RoomsIntents"),
    Name("com.Example-Corp.rooms2"),
    Name("0.1"),
    Name("a.b-c.d"),
    Name(longest),  // 200 bytes
    // Empty, `.` and `..` components.
    Name("", "is empty"),
    Name(".", "has an empty component"),
    Name("..", "has an empty component"),
    Name("...", "has an empty component"),
    Name(".com.example", "has an empty component"),
    Name("com.example.", "has an empty component"),
    Name("com..example", "has an empty component"),
    // Path characters and other ASCII.
    Name("../../x", "contains \"/\" (U+002F)"),
    Name("a/b", "contains \"/\" (U+002F)"),
    Name("com.example.rooms/", "contains \"/\""),
    Name("~/x.y", "contains \"~\" (U+007E)"),
    Name("com_example.rooms", "contains \"_\" (U+005F)"),
    Name("com.example.*", "contains \"*\" (U+002A)"),
    Name("$(PRODUCT_BUNDLE_IDENTIFIER)", "contains \"$\" (U+0024)"),
    Name("com.example\\rooms", "contains \"\\\" (U+005C)"),
    // Whitespace and control characters.
    Name("com.example.ro oms", "contains U+0020"),
    Name("com.example.rooms\n", "contains U+000A"),
    Name("com.example\u{0}.rooms", "contains U+0000"),
    Name("com.example.\u{1B}[2Jrooms", "contains U+001B"),
    Name("com.example.rooms\u{7F}", "contains U+007F"),
    // Unicode lookalikes and invisible characters.
    Name("com.ex\u{430}mple.rooms", "contains U+0430"),  // Cyrillic a
    Name("\u{FF43}om.example.rooms", "contains U+FF43"),  // fullwidth c
    Name("com\u{3002}example.rooms", "contains U+3002"),  // ideographic full stop
    Name("com.example.rooms\u{202E}", "contains U+202E"),  // right-to-left override
    Name("com.exa\u{200B}mple.rooms", "contains U+200B"),  // zero-width space
    Name("com.e\u{301}xample.rooms", "contains U+0301"),  // combining accent
    // Components and length.
    Name("rooms", "has 1 component; at least 2 are needed"),
    Name("com.-rf.rooms", "has a component starting with \"-\" (\"-rf\")"),
    Name("-rf.com", "has a component starting with \"-\""),
    Name(longest + "b", "is 201 bytes long; the limit is 200"),
    Name(String(repeating: "a.", count: 50_000) + "b", "is 100001 bytes long; the limit is 200"),
  ]

  @Test(arguments: bundleIdentifiersTable)
  func bundleIdentifiers(_ name: Name) throws {
    let problem = BundleIdentifier.problem(name.text)
    if let expected = name.problem {
      let found = try #require(problem)
      #expect(found.contains(expected), "\(found)")
      #expect(BundleIdentifier(validating: name.text) == nil)
      let error = #expect(throws: InvalidName.self) { try BundleIdentifier(name.text) }
      #expect(error?.kind == "bundle identifier")
      #expect(error?.description.contains("is not a valid bundle identifier: it \(found)") == true)
      // However long the name, a message quotes at most 60 characters of it.
      #expect((error?.description.count ?? 0) < 250, "\(error?.description ?? "")")
    } else {
      #expect(problem == nil, "\(problem ?? "")")
      #expect(try BundleIdentifier(name.text).rawValue == name.text)
    }
  }

  static let groupIdentifiersTable: [Name] = [
    Name("group.com.example.rooms"),
    Name("group.a.b"),
    Name("group.info.kgomes.SoupChef"),
    Name("group." + String(repeating: "a", count: 96) + "." + String(repeating: "b", count: 97)),  // 200 bytes
    Name("com.example.rooms", "does not start with \"group.\""),
    Name("Group.com.example", "does not start with \"group.\""),
    Name("", "does not start with \"group.\""),
    Name("group.", "what follows \"group.\" is empty"),
    Name("group.rooms", "has 1 component; at least 2 are needed"),
    Name("group..", "has an empty component"),
    Name("group...", "has an empty component"),
    Name("group.com..rooms", "has an empty component"),
    Name("group.../x", "contains \"/\""),
    Name("group.com.example.rooms/../../x", "contains \"/\""),
    Name("group.com.example_rooms", "contains \"_\""),
    Name("group.com.\u{435}xample.rooms", "contains U+0435"),
    Name("group.com.example.rooms\u{202E}", "contains U+202E"),
    Name("group.com.-x", "starting with \"-\""),
    Name(
      "group." + String(repeating: "a", count: 96) + "." + String(repeating: "b", count: 98),
      "is 201 bytes long; the limit is 200"),
  ]

  @Test(arguments: groupIdentifiersTable)
  func groupIdentifiers(_ name: Name) throws {
    let problem = AppGroupIdentifier.problem(name.text)
    let store = AppGroupContainer.identifierProblem(name.text)
    if let expected = name.problem {
      let found = try #require(problem)
      #expect(found.contains(expected), "\(found)")
      #expect(AppGroupIdentifier(validating: name.text) == nil)
      // The store refuses what the manifest model refuses.
      #expect(store != nil, "AppGroupContainer.identifierProblem accepts \(name.text.debugDescription)")
    } else {
      #expect(problem == nil, "\(problem ?? "")")
      #expect(store == nil, "\(store ?? "")")
      #expect(try AppGroupIdentifier(name.text).rawValue == name.text)
    }
  }

  static let fileNamesTable: [Name] = [
    Name("rooms"),
    Name("RoomsIntents"),
    Name("Soup Chef"),
    Name("Caf\u{E9}"),
    Name("x-y_z.1"),
    Name(String(repeating: "a", count: 255)),
    Name("", "is empty"),
    Name(".", "which names a folder"),
    Name("..", "which names a folder"),
    Name(".hidden", "starts with \".\""),
    Name("../../bin/sh", "contains \"/\""),
    Name(".rooms", "starts with \".\""),
    Name("a/b", "contains \"/\""),
    Name("/", "contains \"/\""),
    Name("rooms/", "contains \"/\""),
    Name(String(repeating: "a", count: 256), "is 256 bytes long; the limit is 255"),
    Name(String(repeating: "\u{E9}", count: 128), "is 256 bytes long"),
    Name("a\u{0}b", "contains U+0000"),
    Name("a\nb", "contains U+000A"),
    Name("a\tb", "contains U+0009"),
    Name("a\u{1B}[2Jb", "contains U+001B"),
    Name("a\u{7F}", "contains U+007F"),
    Name("a\u{85}", "contains U+0085"),
    Name("a\u{9B}31m", "contains U+009B"),
    Name("Rooms\u{202E}Intents", "contains U+202E"),
    Name("Rooms\u{2066}", "contains U+2066"),
    Name("a\u{200B}b", "contains U+200B"),
    Name("a\u{2028}b", "contains U+2028"),
    Name("a\u{E000}", "contains U+E000"),
  ]

  @Test(arguments: fileNamesTable)
  func fileNames(_ name: Name) throws {
    let problem = NameGrammar.fileNameProblem(name.text)
    if let expected = name.problem {
      let found = try #require(problem)
      #expect(found.contains(expected), "\(found)")
    } else {
      #expect(problem == nil, "\(problem ?? "")")
    }
  }

  static let teamIdentifiersTable: [Name] = [
    Name("A1B2C3D4E5"),
    Name("abc"),
    Name(String(repeating: "A", count: 64)),
    Name("", "is empty"),
    Name("A1B2-C3", "contains \"-\""),
    Name("com.example", "contains \".\""),
    Name("../x", "contains \".\""),
    Name("A1 B2", "contains U+0020"),
    Name("\u{FF21}1", "contains U+FF21"),
    Name(String(repeating: "A", count: 65), "is 65 bytes long; the limit is 64"),
  ]

  @Test(arguments: teamIdentifiersTable)
  func teamIdentifiers(_ name: Name) throws {
    let problem = Team.problem(name.text)
    if let expected = name.problem {
      let found = try #require(problem)
      #expect(found.contains(expected), "\(found)")
    } else {
      #expect(problem == nil, "\(problem ?? "")")
    }
  }

  struct Pair: Sendable, CustomTestStringConvertible {
    var identifier: String
    var app: String
    var isExtension: Bool
    var testDescription: String { "\(identifier) of \(app)" }
  }

  /// An extension's identifier is its app's plus exactly one component.
  @Test(arguments: [
    Pair(identifier: "com.example.rooms.RoomsIntents", app: "com.example.rooms", isExtension: true),
    Pair(identifier: "com.example.rooms.UI-2", app: "com.example.rooms", isExtension: true),
    Pair(identifier: "com.example.rooms.RoomsIntents", app: "com.example", isExtension: false),
    Pair(identifier: "com.example.rooms.a.b", app: "com.example.rooms", isExtension: false),
    Pair(identifier: "com.example.roomsIntents", app: "com.example.rooms", isExtension: false),
    Pair(identifier: "com.example.rooms", app: "com.example.rooms", isExtension: false),
    Pair(identifier: "com.other.RoomsIntents", app: "com.example.rooms", isExtension: false),
    Pair(identifier: "com.example", app: "com.example.rooms", isExtension: false),
  ])
  func extensionIdentifiers(_ pair: Pair) throws {
    let identifier = try BundleIdentifier(pair.identifier)
    #expect(identifier.isExtensionIdentifier(of: try BundleIdentifier(pair.app)) == pair.isExtension)
  }

  /// The team: the declared team identifier, else the bundle id without its last component, else (two components)
  /// the whole id, so that com.example and com.other are not both team "com".
  @Test func teams() throws {
    let rooms = try BundleIdentifier("com.example.rooms")
    #expect(Team(app: rooms, declared: nil) == Team(identifier: "com.example", source: .bundleIdentifier))
    #expect(Team(app: rooms, declared: "A1B2C3D4E5") == Team(identifier: "A1B2C3D4E5", source: .teamIdentifier))
    #expect(Team(app: try BundleIdentifier("a.b.c.d"), declared: nil).identifier == "a.b.c")
    #expect(
      Team(app: try BundleIdentifier("com.example"), declared: nil)
        != Team(app: try BundleIdentifier("com.other"), declared: nil))
    // A declared identifier and a derived one are never the same team, even with the same text.
    #expect(
      Team(app: try BundleIdentifier("example.rooms"), declared: nil)
        != Team(app: try BundleIdentifier("com.rooms"), declared: "example.rooms"))
    #expect(Team(app: rooms, declared: nil).description == "team com.example (from the bundle identifier)")
  }
}
