import CIntentHostSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A POSIX error number with the operation and the thing it was applied to.
public struct SystemError: Error, Sendable, CustomStringConvertible, Equatable {
  /// The errno value.
  public var code: Int32
  /// What we were doing, e.g. "open".
  public var operation: String
  /// What we were doing it to, e.g. a path; empty when there is none.
  public var subject: String
  /// Why, when `strerror`'s text would not say it (for example "is a FIFO, not a regular file"); nil otherwise.
  public var detail: String?

  public init(code: Int32, operation: String, subject: String = "", detail: String? = nil) {
    self.code = code
    self.operation = operation
    self.subject = subject
    self.detail = detail
  }

  /// The current thread's errno, captured right after a failed call.
  public static func current(_ operation: String, _ subject: String = "") -> SystemError {
    SystemError(code: ih_errno(), operation: operation, subject: subject)
  }

  /// `detail`, else the `strerror` text, e.g. "No such file or directory".
  public var reason: String { detail ?? String(cString: strerror(code)) }

  public var description: String {
    subject.isEmpty ? "\(operation): \(reason)" : "\(operation) \(subject): \(reason)"
  }
}
