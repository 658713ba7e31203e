import Testing

extension SiriResult {
  /// Checks one property of the result; when it differs, records an issue in the current test that names the
  /// property, both values and the run's status, with the transcript in the message and attached
  /// (`transcript.txt`, and `transcript.jsonl` in `assistant --record`'s format).
  ///
  /// ```swift
  /// result.expect(\.dialog, ["Room 12 is now booked by Ada."])
  /// result.expect(\.status, .refused)
  /// ```
  /// - Parameters:
  ///   - property: what to check, e.g. `\.dialog`.
  ///   - expected: its expected value.
  /// - Returns: whether it held.
  @discardableResult
  public func expect<Value: Equatable>(
    _ property: KeyPath<SiriResult, Value>, _ expected: Value, sourceLocation: SourceLocation = #_sourceLocation
  ) -> Bool {
    let actual = self[keyPath: property]
    guard actual != expected else { return true }
    recordFailure(
      "\(property) is \(String(reflecting: actual)), expected \(String(reflecting: expected))",
      sourceLocation: sourceLocation)
    return false
  }

  /// Checks that the intent ran and answered with a success code; otherwise records an issue with the transcript,
  /// as `expect(_:_:sourceLocation:)` does.
  /// - Returns: whether it succeeded.
  @discardableResult
  public func expectSuccess(sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    guard !isSuccess else { return true }
    recordFailure("the run did not succeed", sourceLocation: sourceLocation)
    return false
  }

  /// Records an issue saying `problem` in the current test, with this run's status, error and transcript, the
  /// transcript attached. Use it for a check of your own:
  ///
  /// ```swift
  /// if !result.dialog.contains(where: { $0.hasPrefix("Sorry") }) { result.recordFailure("no apology") }
  /// ```
  public func recordFailure(_ problem: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let error = errorMessage.map { ", error: \($0)" } ?? ""
    Attachment.record(transcript.description, named: "transcript.txt", sourceLocation: sourceLocation)
    Attachment.record(transcript.recordedText, named: "transcript.jsonl", sourceLocation: sourceLocation)
    Issue.record(
      "\(problem) (exit \(status)\(error))\n--- transcript\n\(transcript)", sourceLocation: sourceLocation)
  }
}
