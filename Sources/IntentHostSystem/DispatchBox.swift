import Dispatch

/// A dispatch source held across threads.
///
/// `@unchecked Sendable`: Dispatch documents its objects as thread-safe (resume, cancel and handlers may be called
/// from any thread); only the Swift overlay on Linux lacks the `Sendable` conformance.
public struct SendableSource: @unchecked Sendable {
  public let source: any DispatchSourceProtocol

  public init(_ source: any DispatchSourceProtocol) { self.source = source }

  /// The file descriptor or signal it watches.
  public var handle: UInt { source.handle }
  public func cancel() { source.cancel() }
  public func resume() { source.resume() }
}
