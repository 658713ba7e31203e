/// App Intents extension → host: asks the user to confirm the whole action before perform goes on, the intent-level
/// `requestConfirmation` (iOS 16's `requestConfirmation(result:confirmationActionName:showPrompt:)`, iOS 18's
/// `requestConfirmation(conditions:actionName:dialog:showDialogAsPrompt:content:)`). The host draws `snippet`, says
/// `dialog` (unless `showPrompt` is false) and asks with the button `actionName` names. Yes: `{}`. No, or cancel:
/// `userCancelled`, which Apple's API throws.
///
/// Allowed only while the host's `appIntent/perform` to the sender is pending, one question to the user (or
/// `host/requestAuthentication`) at a time per session; otherwise answered with `notAllowedNow` or `busy`. See
/// docs/PROTOCOL.md, "App Intents".
public struct RequestConfirmationRequest: RequestMessage, Equatable {
  public static let method = "host/requestConfirmation"
  public typealias Response = EmptyObject

  /// What the host says as the prompt; not blank, at most `AppIntentLimits.maximumTextLength`. Without one, the host
  /// asks "Do you want to *action* …?" from `actionName` and the intent's title.
  public var dialog: String?
  /// The confirming button's action; `continue` (Apple's default) when the wire has none.
  public var actionName: ConfirmationActionName
  /// False: the host shows the snippet and the choice without saying the prompt (`showPrompt: false`,
  /// `showDialogAsPrompt: false`).
  public var showPrompt: Bool
  /// What to show, the tree `ui/configureView` answers with (`.result(view:)`).
  public var snippet: SnippetNode?

  public init(
    dialog: String? = nil, actionName: ConfirmationActionName = .continue, showPrompt: Bool = true,
    snippet: SnippetNode? = nil
  ) {
    self.dialog = dialog
    self.actionName = actionName
    self.showPrompt = showPrompt
    self.snippet = snippet
  }

  private enum CodingKeys: String, CodingKey { case dialog, actionName, showPrompt, snippet }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    dialog = try container.decodeTextIfPresent(forKey: .dialog)
    actionName = try container.decodeIfPresent(ConfirmationActionName.self, forKey: .actionName) ?? .continue
    showPrompt = try container.decode(Bool.self, forKey: .showPrompt)
    snippet = try container.decodeSnippetIfPresent(forKey: .snippet)
  }
}

/// Apple's `ConfirmationActionName`, a closed set: the verb "the system puts … in the button that confirms the
/// action". An unknown name is refused, listing the set.
public enum ConfirmationActionName: String, Codable, Sendable, CaseIterable {
  case add, addData, book, buy, call, checkIn, `continue`, create, `do`, download, filter, get, go, log, open, order
  case pay, play, playSound, post, request, run, search, send, set, share, start, toggle

  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let raw = try container.decode(String.self)
    guard let name = Self(rawValue: raw) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: unknownName(raw, of: Self.self, as: "a confirmation action name"))
    }
    self = name
  }
}
