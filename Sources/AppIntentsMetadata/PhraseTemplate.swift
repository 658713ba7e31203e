/// An App Shortcut phrase as the metadata writes it: text with `${applicationName}` (the app-name slot, Swift's
/// `\(.applicationName)`) and `${name}` (a parameter slot, Swift's `\(\.$name)`).
///
/// ```swift
/// let phrase = PhraseTemplate(parsing: "Fuel my car at ${location} with ${applicationName}")
/// phrase.segments            // [.text("Fuel my car at "), .parameter("location"), .text(" with "), .applicationName]
/// phrase.parameterNames      // ["location"]
/// phrase.applicationNameSlot // 3
/// ```
///
/// Parsing never fails: a `${` without its `}` is text, `${}` a parameter with an empty name (which no intent has).
public struct PhraseTemplate: Sendable, Hashable, CustomStringConvertible {
  /// The name of the app-name slot.
  public static let applicationName = "applicationName"

  public enum Segment: Sendable, Hashable {
    /// Words said as written.
    case text(String)
    /// `${applicationName}`: one of the app's names.
    case applicationName
    /// `${name}`: a value of the intent's parameter `name`.
    case parameter(String)
  }

  public var segments: [Segment]

  public init(segments: [Segment]) { self.segments = segments }

  /// Parses a phrase template.
  public init(parsing template: String) {
    var segments: [Segment] = []
    var rest = Substring(template)
    var text = ""
    while let start = rest.firstRange(of: "${") {
      guard let end = rest[start.upperBound...].firstIndex(of: "}") else { break }
      text += rest[..<start.lowerBound]
      if !text.isEmpty { segments.append(.text(text)) }
      text = ""
      let name = String(rest[start.upperBound..<end])
      segments.append(name == Self.applicationName ? .applicationName : .parameter(name))
      rest = rest[rest.index(after: end)...]
    }
    text += rest
    if !text.isEmpty { segments.append(.text(text)) }
    self.segments = segments
  }

  /// How many `${applicationName}` slots it has (Apple requires exactly one).
  public var applicationNameCount: Int { segments.filter { $0 == .applicationName }.count }

  /// The index in `segments` of its one `${applicationName}`; nil when it has none or more than one.
  public var applicationNameSlot: Int? {
    applicationNameCount == 1 ? segments.firstIndex(of: .applicationName) : nil
  }

  /// The parameters its slots name, in order, each once.
  public var parameterNames: [String] {
    var names: [String] = []
    for case .parameter(let name) in segments where !names.contains(name) { names.append(name) }
    return names
  }

  /// The template as written: text, `${applicationName}` and `${name}`.
  public var description: String {
    segments.map { segment in
      switch segment {
      case .text(let text): return text
      case .applicationName: return "${\(Self.applicationName)}"
      case .parameter(let name): return "${\(name)}"
      }
    }.joined()
  }
}
