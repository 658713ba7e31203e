import ExtensionProtocol
import IntentHostSystem

/// Why a request over a connection did not get its result.
public enum ConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The peer closed its end (end of file) before answering.
  case closed
  /// No answer within the request's deadline.
  case timedOut(method: String, seconds: Double)
  /// The calling task was cancelled; the peer was sent `$/cancelRequest`.
  case cancelled
  /// The peer sent something that is not the protocol: the text says what.
  case protocolViolation(String)
  /// The peer answered with an error.
  case remote(ResponseError)
  /// Reading or writing the file descriptors failed.
  case io(SystemError)

  public var description: String {
    switch self {
    case .closed: return "closed its output before answering"
    case .timedOut(let method, let seconds):
      return "did not answer \(method) within \(formatSeconds(seconds))"
    case .cancelled: return "request cancelled"
    case .protocolViolation(let what): return "broke the protocol: \(what)"
    case .remote(let error): return "answered with an error: \(error.message) (\(error.code.name))"
    case .io(let error): return "I/O failed: \(error)"
    }
  }
}

func formatSeconds(_ seconds: Double) -> String {
  if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
  return "\(seconds) s"
}
