import NameSuggestions
import Understanding

/// The phases of an extension's life that have a deadline.
package enum Phase: String, Sendable, CaseIterable {
  case handshake, resolve, confirm, handle, perform, ui, shutdown
}

/// Per-phase deadlines. Apple publishes none; reported figures are about 10 s for handling (see
/// shared/reference/apple-semantics.md A5), so handle gets 10 s and the shorter phases less.
package struct Deadlines: Sendable, Equatable {
  package var handshake: Duration = .seconds(5)
  package var resolve: Duration = .seconds(5)
  package var confirm: Duration = .seconds(5)
  package var handle: Duration = .seconds(10)
  /// Each `appIntent/perform` of an App Intents extension: 30 s, Apple's figure for an intent's `perform()`.
  package var perform: Duration = .seconds(30)
  /// Each `configureView` of an Intents UI extension.
  package var ui: Duration = .seconds(3)
  package var shutdown: Duration = .seconds(2)

  package init() {}

  package subscript(phase: Phase) -> Duration {
    get {
      switch phase {
      case .handshake: return handshake
      case .resolve: return resolve
      case .confirm: return confirm
      case .handle: return handle
      case .perform: return perform
      case .ui: return ui
      case .shutdown: return shutdown
      }
    }
    set {
      switch phase {
      case .handshake: handshake = newValue
      case .resolve: resolve = newValue
      case .confirm: confirm = newValue
      case .handle: handle = newValue
      case .perform: perform = newValue
      case .ui: ui = newValue
      case .shutdown: shutdown = newValue
      }
    }
  }

  /// Parses `PHASE=SECONDS` (e.g. "handle=2.5"), or `all=SECONDS`.
  package mutating func set(_ assignment: String) throws {
    let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
    guard parts.count == 2, let seconds = Double(parts[1]), seconds > 0, seconds <= 3600 else {
      throw HostError(.usage, "--deadline takes PHASE=SECONDS with SECONDS in (0, 3600], e.g. handle=10")
    }
    let duration = Duration.milliseconds(Int64(seconds * 1000))
    if parts[0] == "all" {
      for phase in Phase.allCases { self[phase] = duration }
    } else if let phase = Phase(rawValue: parts[0]) {
      self[phase] = duration
    } else {
      throw HostError(
        .usage,
        "--deadline: unknown phase \"\(parts[0])\""
          + suggestion(parts[0], among: Phase.allCases.map(\.rawValue) + ["all"])
          + "; the phases are \(Phase.allCases.map(\.rawValue).joined(separator: ", ")), or all")
    }
  }
}

extension Duration {
  var shortDescription: String {
    let s = inSeconds
    return s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
  }
}
