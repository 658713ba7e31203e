/// The first request the host sends. The extension answers with its protocol version before any other request.
public struct InitializeRequest: RequestMessage, Equatable {
  public static let method = "initialize"
  public typealias Response = InitializeResult

  /// The protocol version the host speaks.
  public var protocolVersion: Int
  /// The host's name and version, e.g. "IntentHost 0.1.0".
  public var host: String
  /// The extension's `CFBundleIdentifier`.
  public var bundleIdentifier: String
  /// `NSExtensionPointIdentifier`, e.g. "com.apple.intents-service".
  public var extensionPoint: String
  /// The extension bundle's directory (read-only for the extension).
  public var bundlePath: String
  /// The extension's private container (read-write).
  public var containerPath: String
  /// The app groups its entitlements list, with their container paths.
  public var appGroups: [AppGroupLocation]
  /// The user's locale, e.g. "en_US".
  public var locale: String

  public init(
    protocolVersion: Int = ExtensionProtocol.protocolVersion, host: String, bundleIdentifier: String,
    extensionPoint: String, bundlePath: String, containerPath: String, appGroups: [AppGroupLocation], locale: String
  ) {
    self.protocolVersion = protocolVersion
    self.host = host
    self.bundleIdentifier = bundleIdentifier
    self.extensionPoint = extensionPoint
    self.bundlePath = bundlePath
    self.containerPath = containerPath
    self.appGroups = appGroups
    self.locale = locale
  }
}

/// An app group identifier and where its shared container is.
public struct AppGroupLocation: Codable, Sendable, Hashable {
  public var identifier: String
  public var path: String

  public init(identifier: String, path: String) {
    self.identifier = identifier
    self.path = path
  }
}

/// The extension's answer to `initialize`.
public struct InitializeResult: Codable, Sendable, Equatable {
  /// The protocol version the extension speaks.
  public var protocolVersion: Int
  /// The SDK or implementation, e.g. "IntentHostSDK 0.1.0".
  public var implementation: String

  public init(protocolVersion: Int = ExtensionProtocol.protocolVersion, implementation: String) {
    self.protocolVersion = protocolVersion
    self.implementation = implementation
  }
}
