import AppIntents
import FuelOrderKit

#if canImport(Glibc)
  import Glibc
#endif

/// An error the user hears as its reason (the seed's `SiriIntentError`): "Couldn't find your selected vehicle".
struct SiriIntentError: Error, CustomLocalizedStringResourceConvertible {
  let reason: String

  var localizedStringResource: LocalizedStringResource { "\(reason)" }

  /// Writes the reason to the extension's log (its stderr, which the host keeps in the extension's log file), and
  /// returns the error.
  func whileLogging() -> SiriIntentError {
    let line = Array("FuelOrderIntents: \(reason)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    return self
  }

  /// A use case's failure as the error the user hears, logged: `.mapError(SiriIntentError.logging).get()` is the
  /// seed's `.mapError { SiriIntentError(reason: $0.errorMessage).whileLogging() }.get()`.
  static func logging(_ error: BusinessError) -> SiriIntentError {
    SiriIntentError(reason: error.errorMessage).whileLogging()
  }
}
