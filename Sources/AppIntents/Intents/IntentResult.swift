// What perform() returns: a dialog, a value, a snippet view, composed in the return type as Apple composes them.
import ExtensionProtocol

/// What `perform()` returns. Build one with `.result(...)`; the return type says what it has:
/// `some IntentResult & ProvidesDialog & ShowsSnippetView`.
public protocol IntentResult: Sendable {
  /// What the assistant says.
  var dialog: IntentDialog? { get }
  /// The value returned (for a shortcut's next action), on the wire.
  var value: ParameterValue? { get }
  /// The snippet the assistant draws.
  var snippet: SnippetNode? { get }
}

/// A result with a dialog.
public protocol ProvidesDialog: IntentResult {}
/// A result with a snippet view.
public protocol ShowsSnippetView: IntentResult {}
/// A result that returns a value.
public protocol ReturnsValue<ValueType>: IntentResult {
  associatedtype ValueType
}

/// The one result type: its generic arguments say what it carries (`Never` for what it does not), so that the
/// conditional conformances below match Apple's return types.
public struct IntentResultContainer<Value: Sendable, Content: Sendable, Dialog: Sendable>: IntentResult {
  public let dialog: IntentDialog?
  public let value: ParameterValue?
  public let snippet: SnippetNode?
}

extension IntentResultContainer: ProvidesDialog where Dialog == IntentDialog {}
extension IntentResultContainer: ShowsSnippetView where Content: View {}
extension IntentResultContainer: ReturnsValue where Value: _IntentValue {
  public typealias ValueType = Value
}

extension IntentResult {
  /// A result with nothing to say or show.
  public static func result() -> Self where Self == IntentResultContainer<Never, Never, Never> {
    IntentResultContainer(dialog: nil, value: nil, snippet: nil)
  }

  public static func result(dialog: IntentDialog) -> Self
  where Self == IntentResultContainer<Never, Never, IntentDialog> {
    IntentResultContainer(dialog: dialog, value: nil, snippet: nil)
  }

  public static func result<Content: View>(view: Content) -> Self
  where Self == IntentResultContainer<Never, Content, Never> {
    IntentResultContainer(dialog: nil, value: nil, snippet: snippetTree(of: view))
  }

  public static func result<Content: View>(dialog: IntentDialog, view: Content) -> Self
  where Self == IntentResultContainer<Never, Content, IntentDialog> {
    IntentResultContainer(dialog: dialog, value: nil, snippet: snippetTree(of: view))
  }

  public static func result<Value: _IntentValue>(value: Value) -> Self
  where Self == IntentResultContainer<Value, Never, Never> {
    IntentResultContainer(dialog: nil, value: value.intentValue, snippet: nil)
  }

  public static func result<Value: _IntentValue>(value: Value, dialog: IntentDialog) -> Self
  where Self == IntentResultContainer<Value, Never, IntentDialog> {
    IntentResultContainer(dialog: dialog, value: value.intentValue, snippet: nil)
  }

  public static func result<Value: _IntentValue, Content: View>(value: Value, dialog: IntentDialog, view: Content)
    -> Self
  where Self == IntentResultContainer<Value, Content, IntentDialog> {
    IntentResultContainer(dialog: dialog, value: value.intentValue, snippet: snippetTree(of: view))
  }
}
