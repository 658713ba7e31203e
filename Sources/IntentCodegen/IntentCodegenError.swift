/// Why an intent definition cannot be made into Swift: the file, the thing in it (an intent, a parameter, an enum
/// value), what is wrong and how to fix it. Names in it are written as Swift string literals, so a hostile name
/// cannot put a control character in the message.
package struct IntentCodegenError: Error, Equatable, CustomStringConvertible {
  /// The definition's path.
  package var file: String
  /// What in the file, e.g. `intent "BookRoom", parameter "room number"`.
  package var subject: String
  package var problem: String
  package var fix: String

  package init(file: String, subject: String, problem: String, fix: String) {
    self.file = file
    self.subject = subject
    self.problem = problem
    self.fix = fix
  }

  /// `FILE: error: SUBJECT: PROBLEM; fix: FIX`, the shape SwiftPM and editors show as the build's error.
  package var description: String { "\(file): error: \(subject): \(problem); fix: \(fix)" }
}
