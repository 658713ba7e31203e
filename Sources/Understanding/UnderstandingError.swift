/// Why what the user said or typed was not understood: an utterance, an app's, extension's or intent's name, or a
/// `name=value` argument. The message names what was given and, where there is one, the fix ("did you mean", the
/// installed apps, the parameters the intent has).
///
/// The engine reports it as it reports its own errors, with the same message and the exit status of its kind
/// (`UnderstandingError.init(_:)` in AssistantHost).
package struct UnderstandingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure it is: one kind for each exit status the assistant gives it.
  package enum Kind: Sendable, Equatable {
    /// What was given has the wrong form: an empty or too long utterance, an argument that is not `name=value`, a
    /// parameter the intent does not have or gives twice, a value its type does not read. (Exit status 64.)
    case usage
    /// The app's manifests cannot type what was given: the intent has no definition. (Exit status 65.)
    case dataError
    /// Nothing installed answers to what was given (app, extension, intent, phrase), or several do. (Exit status 69.)
    case noMatch
  }

  /// What kind of failure it is.
  package var kind: Kind
  /// The sentence a user reads, as written (bundle text in it is not yet sanitized: the engine prints it through
  /// the one sanitizer).
  package var message: String

  /// An error of `kind` saying `message`.
  package init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  /// The message.
  package var description: String { message }
}
