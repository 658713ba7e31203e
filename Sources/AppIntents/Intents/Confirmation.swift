import ExtensionProtocol

// Asking the user to confirm the whole intent before perform() goes on, in both of Apple's spellings.

/// The word on the button that confirms an action (Apple's closed set: `.order`, `.book`, `.continue`, …).
public typealias ConfirmationActionName = ExtensionProtocol.ConfirmationActionName

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
