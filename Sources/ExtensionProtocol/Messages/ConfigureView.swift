/// Draw part of the answer in the Intents UI extension (`INUIHostedViewControlling.configureView(for:of:
/// interactiveBehavior:context:completion:)`). Sent to an Intents UI extension once per parameter set, each to a
/// fresh view controller; the host keeps a ledger of displayed parameters and does not ask for them again.
public struct ConfigureViewRequest: RequestMessage, Equatable {
  public static let method = "ui/configureView"
  public typealias Response = ConfiguredView

  public var interaction: Interaction
  /// The parameters to show in this view, in order (often one).
  public var parameters: [String]
  /// `siriSnippet` (the only context IntentHost draws).
  public var context: String
  /// `hostedViewMinimumAllowedSize` and `hostedViewMaximumAllowedSize`, in points.
  public var minimumSize: ViewSize
  public var maximumSize: ViewSize

  public init(
    interaction: Interaction, parameters: [String], context: String = "siriSnippet",
    minimumSize: ViewSize, maximumSize: ViewSize
  ) {
    self.interaction = interaction
    self.parameters = parameters
    self.context = context
    self.minimumSize = minimumSize
    self.maximumSize = maximumSize
  }
}

/// A size in points.
public struct ViewSize: Codable, Sendable, Hashable {
  public var width: Double
  public var height: Double

  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  public static let zero = ViewSize(width: 0, height: 0)
}

/// What the view controller drew: the `completion(success, displayedParameters, desiredSize)` of configureView, and
/// the view itself as a snippet tree (the terminal's stand-in for UIKit views).
public struct ConfiguredView: Codable, Sendable, Hashable {
  /// False: the extension drew nothing for this set (Siri shows its default UI for it).
  public var success: Bool
  /// The parameters the view shows (may be more or fewer than asked).
  public var parameters: [String]
  /// The size the view wants; `.zero` hides it.
  public var size: ViewSize
  public var snippet: SnippetNode?

  public init(success: Bool, parameters: [String], size: ViewSize, snippet: SnippetNode?) {
    self.success = success
    self.parameters = parameters
    self.size = size
    self.snippet = snippet
  }
}

/// A view as a tree the host can print and tests can compare: text, label–value rows, and vertical stacks.
/// On the wire: `{"text":"…"}`, `{"row":{"label":"…","value":"…"}}`, `{"stack":[…]}`.
public indirect enum SnippetNode: Codable, Sendable, Hashable {
  case text(String)
  case row(label: String, value: String)
  case stack([SnippetNode])

  private enum CodingKeys: String, CodingKey { case text, row, stack }
  private struct Row: Codable { var label: String; var value: String }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    if let text = try container.decodeIfPresent(String.self, forKey: .text) {
      self = .text(text)
    } else if let row = try container.decodeIfPresent(Row.self, forKey: .row) {
      self = .row(label: row.label, value: row.value)
    } else if let stack = try container.decodeIfPresent([SnippetNode].self, forKey: .stack) {
      self = .stack(stack)
    } else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath, debugDescription: "a snippet node is {\"text\"}, {\"row\"} or {\"stack\"}"))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    switch self {
    case .text(let text): try container.encode(text, forKey: .text)
    case .row(let label, let value): try container.encode(Row(label: label, value: value), forKey: .row)
    case .stack(let children): try container.encode(children, forKey: .stack)
    }
  }

  /// The tree as lines of text, for a terminal.
  public var lines: [String] {
    switch self {
    case .text(let text): return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    case .row(let label, let value): return ["\(label): \(value)"]
    case .stack(let children): return children.flatMap(\.lines)
    }
  }
}
