import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

/// A session started beside the run (the UI extension's), handed over once: to the step that uses it, or at the
/// end of the run to its cleanup.
final class SessionSlot: Sendable {
  private struct State {
    var result: Result<ExtensionSession, HostError>?
    var waiters: [CheckedContinuation<Result<ExtensionSession, HostError>, Never>] = []
    var taken = false
  }
  private let state = Mutex(State())

  /// Stores the start's result and wakes whoever waits for it.
  func fill(_ result: Result<ExtensionSession, HostError>) {
    let waiters = state.withLock { state in
      state.result = result
      defer { state.waiters.removeAll() }
      return state.waiters
    }
    for waiter in waiters { waiter.resume(returning: result) }
  }

  /// Waits for the start and takes its result; nil when it was already taken. The caller then owns the session.
  func take() async -> Result<ExtensionSession, HostError>? {
    let first = state.withLock { state -> Bool in
      defer { state.taken = true }
      return !state.taken
    }
    guard first else { return nil }
    return await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> Result<ExtensionSession, HostError>? in
        if let result = state.result { return result }
        state.waiters.append(continuation)
        return nil
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }

  /// After the start has ended: the started session, if nobody took it.
  func takeIfUnused() -> ExtensionSession? {
    state.withLock { state in
      guard !state.taken, case .success(let session)? = state.result else { return nil }
      state.taken = true
      return session
    }
  }
}
