import AssistantHost

/// Why the test host could not do what a test asked (install a bundle, read an app group, set a passcode): the
/// message a user of `assistant` would read, and the exit status the command would end with.
///
/// A run that ends with an error (`say`, `run`, a conversation) is not thrown: its result carries the status and
/// message (`SiriResult.status`, `SiriResult.errorMessage`), as the command line's exit status does.
///
/// ```swift
/// do {
///   try await host.install(URL(fileURLWithPath: "/no/such/App.app"))
/// } catch let error as TestHostError {
///   #expect(error.status == .noInput)
/// }
/// ```
public struct TestHostError: Error, Sendable, CustomStringConvertible {
  /// The exit status the command line would end with.
  public var status: SiriResult.Status
  /// What went wrong, naming the thing and the fix.
  public var message: String

  /// The message.
  public var description: String { message }

  init(_ status: ExitStatus, _ message: String) {
    self.status = SiriResult.Status(status)
    self.message = message
  }

  /// `error`, as the command line reports it (`HostError(reporting:)`).
  init(_ error: any Error) {
    if let error = error as? TestHostError {
      self = error
      return
    }
    let reported = HostError(reporting: error)
    self.init(reported.status, reported.message)
  }
}

/// Runs `body`, reporting what it throws as a `TestHostError` (a cancellation stays a `CancellationError`).
func reportingErrors<T>(_ body: () async throws -> T) async throws -> T {
  do {
    return try await body()
  } catch is CancellationError {
    throw CancellationError()
  } catch {
    throw TestHostError(error)
  }
}
