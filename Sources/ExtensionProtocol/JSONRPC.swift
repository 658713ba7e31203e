#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The protocol version this module speaks. The host and the SDK exchange it in `initialize`; a different major
/// version is refused by both sides.
public let protocolVersion = 1

/// A JSON-RPC request id: a number or a string.
public enum RequestID: Hashable, Sendable, Codable, CustomStringConvertible {
  case number(Int)
  case string(String)

  public init(from decoder: Decoder) throws {
    let container = try decoder.singleValueContainer()
    if let number = try? container.decode(Int.self) {
      self = .number(number)
    } else {
      self = .string(try container.decode(String.self))
    }
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .number(let n): try container.encode(n)
    case .string(let s): try container.encode(s)
    }
  }

  public var description: String {
    switch self {
    case .number(let n): return String(n)
    case .string(let s): return "\"\(s)\""
    }
  }
}

/// A request: a type with a method name and the type of its successful result.
public protocol RequestMessage: Codable, Sendable {
  associatedtype Response: Codable & Sendable
  static var method: String { get }
}

/// A notification: a message that gets no response.
public protocol NotificationMessage: Codable, Sendable {
  static var method: String { get }
}

/// An empty params or result object, `{}`.
public struct EmptyObject: Codable, Sendable, Equatable {
  public init() {}
}

/// An error on the wire: `{code, message, data}`.
public struct ResponseError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
  public var code: ErrorCode
  public var message: String
  public var data: String?

  public init(_ code: ErrorCode, _ message: String, data: String? = nil) {
    self.code = code
    self.message = message
    self.data = data
  }

  public var description: String { "\(message) (\(code))" }
}

/// Error codes: JSON-RPC's reserved codes, LSP's cancellation code, and IntentHost's own range -33000...-33099.
public struct ErrorCode: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
  public var rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  public static let parseError = ErrorCode(rawValue: -32700)
  public static let invalidRequest = ErrorCode(rawValue: -32600)
  public static let methodNotFound = ErrorCode(rawValue: -32601)
  public static let invalidParams = ErrorCode(rawValue: -32602)
  public static let internalError = ErrorCode(rawValue: -32603)
  /// The request was cancelled with `$/cancelRequest` (the code LSP uses).
  public static let requestCancelled = ErrorCode(rawValue: -32800)

  /// The extension has no handler for this intent (its `handler(for:)` returned nil).
  public static let noHandler = ErrorCode(rawValue: -33001)
  /// The handler threw an error.
  public static let handlerFailed = ErrorCode(rawValue: -33002)
  /// A request came before `initialize`, or `initialize` came twice.
  public static let notInitialized = ErrorCode(rawValue: -33003)
  /// The protocol versions of host and extension differ.
  public static let unsupportedVersion = ErrorCode(rawValue: -33004)
  /// The request is not allowed at this point of the session: `host/requestAuthentication` while none of the host's
  /// `intent/confirm`, `intent/handle` or `appIntent/perform` requests is pending, or a question to the user
  /// (`host/requestValue`, …) while no `appIntent/perform` is.
  public static let notAllowedNow = ErrorCode(rawValue: -33005)
  /// The receiver is already serving a request of this kind for the session (a second `host/requestAuthentication`,
  /// or question to the user, before the first is answered).
  public static let busy = ErrorCode(rawValue: -33006)
  /// The user cancelled: the answer to `host/requestValue`, `host/requestDisambiguation`, `host/requestConfirmation`
  /// or `host/requestParameterConfirmation` when the user says "cancel" (or nobody can be asked), which App Intents
  /// throws; an `appIntent/perform` that lets it through ends the run as the user's cancel.
  public static let userCancelled = ErrorCode(rawValue: -33007)

  private static let names: [Int: String] = [
    -32700: "parseError", -32600: "invalidRequest", -32601: "methodNotFound", -32602: "invalidParams",
    -32603: "internalError", -32800: "requestCancelled", -33001: "noHandler", -33002: "handlerFailed",
    -33003: "notInitialized", -33004: "unsupportedVersion", -33005: "notAllowedNow", -33006: "busy",
    -33007: "userCancelled",
  ]

  public var name: String { Self.names[rawValue] ?? "code \(rawValue)" }
  public var description: String { "\(name) \(rawValue)" }

  public init(from decoder: Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(Int.self)
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

/// `{"jsonrpc":"2.0","id":…,"method":…,"params":…}`.
public struct RequestEnvelope<Params: Codable & Sendable>: Codable, Sendable {
  public var jsonrpc = "2.0"
  public var id: RequestID
  public var method: String
  public var params: Params

  public init(id: RequestID, method: String, params: Params) {
    self.id = id
    self.method = method
    self.params = params
  }
}

/// `{"jsonrpc":"2.0","method":…,"params":…}`.
public struct NotificationEnvelope<Params: Codable & Sendable>: Codable, Sendable {
  public var jsonrpc = "2.0"
  public var method: String
  public var params: Params

  public init(method: String, params: Params) {
    self.method = method
    self.params = params
  }
}

/// `{"jsonrpc":"2.0","id":…,"result":…}`.
public struct ResultEnvelope<Result: Codable & Sendable>: Codable, Sendable {
  public var jsonrpc = "2.0"
  public var id: RequestID
  public var result: Result

  public init(id: RequestID, result: Result) {
    self.id = id
    self.result = result
  }
}

/// `{"jsonrpc":"2.0","id":…,"error":{…}}`; `id` is null when the request could not be read.
public struct ErrorEnvelope: Codable, Sendable {
  public var jsonrpc = "2.0"
  public var id: RequestID?
  public var error: ResponseError

  public init(id: RequestID?, error: ResponseError) {
    self.id = id
    self.error = error
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(jsonrpc, forKey: .jsonrpc)
    try container.encode(id, forKey: .id)  // explicit null, as JSON-RPC requires
    try container.encode(error, forKey: .error)
  }
}

/// What every message has, decoded first to tell requests, notifications and responses apart.
public struct MessageHeader: Decodable, Sendable {
  public var jsonrpc: String?
  public var id: RequestID?
  public var method: String?
  public var error: ResponseError?
  private var result: Present?

  /// Whether the message carries a `result` member.
  public var hasResult: Bool { result != nil }

  private struct Present: Decodable, Sendable {
    init(from decoder: Decoder) throws {}
  }

  public enum Kind: Sendable, Equatable {
    case request(RequestID, method: String)
    case notification(method: String)
    case response(RequestID)
    case errorResponse(RequestID?, ResponseError)
  }

  /// Classifies the message, or returns nil when it is none of the four JSON-RPC shapes.
  public var kind: Kind? {
    if let method {
      if let id { return .request(id, method: method) }
      return .notification(method: method)
    }
    if let error { return .errorResponse(id, error) }
    if let id, hasResult { return .response(id) }
    return nil
  }
}

/// The JSON coders used on the wire: sorted keys (stable golden files), no escaped slashes, ISO 8601 dates.
public enum WireCoding {
  public static func encoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  public static func decoder() -> JSONDecoder {
    JSONDecoder()
  }
}
