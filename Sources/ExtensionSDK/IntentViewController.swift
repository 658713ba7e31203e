/// An Intents UI extension's view controller (`INUIHostedViewControlling`). Mark the type `@main`; the SDK serves
/// the protocol and creates a fresh instance for every `configureView` call, as SiriKit does.
///
/// Requirements:
/// - `init()`.
/// - `configureView(for:of:in:)`: draw the given parameters of the interaction (often one) as a snippet tree, and
///   say which parameters the view shows and the size it wants (`.zero` hides it; stay within the context's
///   minimum and maximum sizes). Answer `success: false` to leave those parameters to Siri's default UI. Build the
///   view only from the interaction: the Intents extension runs in another process. Word it in the user's language,
///   `context.extensionContext.locale`.
public protocol IntentViewController: SendableMetatype, Sendable {
  /// Makes a view controller; called once per `configureView` call.
  init()
  /// Draws `parameters` (empty for the interaction's header) of `interaction`.
  /// - Returns: whether it drew them, the parameters the view shows, its size and the view.
  /// - Throws: any error, reported as a failure of the UI extension (the intent's answer stands).
  func configureView(for parameters: [String], of interaction: Interaction, in context: ViewContext) async throws
    -> ConfiguredView
}

extension IntentViewController {
  /// The entry point: serves the protocol and exits.
  public static func main() async {
    await ExtensionRunner.serve(handlerFor: { _ in nil }, makeView: { Self() })
  }
}

/// What a view controller is told besides the interaction: where it is shown and how big it may be.
public struct ViewContext: Sendable {
  /// `siriSnippet`.
  public let kind: String
  /// The smallest size the view may have (`hostedViewMinimumAllowedSize`).
  public let minimumSize: ViewSize
  /// The largest size the view may have (`hostedViewMaximumAllowedSize`); a larger one is clamped.
  public let maximumSize: ViewSize
  /// The extension's bundle, container and app groups.
  public let extensionContext: ExtensionContext
}
