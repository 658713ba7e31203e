// Asking the user to confirm the whole intent before perform() goes on, in both of Apple's spellings.

/// The word on the button that confirms an action (Apple's closed set).
public struct ConfirmationActionName: Sendable, Hashable, CustomStringConvertible {
  public let rawValue: String
  private init(_ rawValue: String) { self.rawValue = rawValue }
  public var description: String { rawValue }

  public static let add = Self("add"), addData = Self("addData"), book = Self("book"), buy = Self("buy")
  public static let call = Self("call"), checkIn = Self("checkIn"), `continue` = Self("continue")
  public static let create = Self("create"), `do` = Self("do"), download = Self("download")
  public static let filter = Self("filter"), get = Self("get"), go = Self("go"), log = Self("log")
  public static let open = Self("open"), order = Self("order"), pay = Self("pay"), play = Self("play")
  public static let playSound = Self("playSound"), post = Self("post"), request = Self("request")
  public static let run = Self("run"), search = Self("search"), send = Self("send"), set = Self("set")
  public static let share = Self("share"), start = Self("start"), toggle = Self("toggle")
}

/// When a confirmation is asked (iOS 18's `conditions:`); a text host asks whenever the call is made.
public struct ConfirmationConditions: OptionSet, Sendable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }
}

extension AppIntent {
  /// iOS 16's spelling (seed 000): shows `result`'s snippet and dialog and asks to confirm with a button named
  /// `confirmationActionName`; `showPrompt: false` asks without saying the prompt. Returns when the user confirms.
  /// - Throws: `AppIntentsError.userCancelled` when they do not (perform should let it propagate).
  public func requestConfirmation(
    result: some IntentResult, confirmationActionName: ConfirmationActionName = .continue, showPrompt: Bool = true
  ) async throws {
    try await PerformContext.current().requestConfirmation(
      actionName: confirmationActionName, dialog: result.dialog, showPrompt: showPrompt, snippet: result.snippet)
  }

  /// iOS 18's spelling: asks to confirm with a button named `actionName`, saying `dialog`.
  /// - Throws: `AppIntentsError.userCancelled` when the user does not confirm.
  public func requestConfirmation(
    conditions: ConfirmationConditions = [], actionName: ConfirmationActionName = .continue,
    dialog: IntentDialog? = nil
  ) async throws {
    try await PerformContext.current().requestConfirmation(
      actionName: actionName, dialog: dialog, showPrompt: true, snippet: nil)
  }

  /// iOS 18's spelling with a snippet view shown while asking.
  public func requestConfirmation<Content: View>(
    conditions: ConfirmationConditions = [], actionName: ConfirmationActionName = .continue,
    dialog: IntentDialog? = nil, @ViewBuilder content: () -> Content
  ) async throws {
    try await PerformContext.current().requestConfirmation(
      actionName: actionName, dialog: dialog, showPrompt: true, snippet: snippetTree(of: content()))
  }
}
