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
  /// An App Intents extension (or app): the digest of the App Intents metadata its code registers, in lowercase hex,
  /// which the host compares with the digest of the installed `Metadata.appintents` to name a file that has drifted
  /// from the code. Absent for a SiriKit extension, and from an extension that does not know it.
  public var appIntentsMetadataDigest: String?

  public init(
    protocolVersion: Int = ExtensionProtocol.protocolVersion, implementation: String,
    appIntentsMetadataDigest: String? = nil
  ) {
    self.protocolVersion = protocolVersion
    self.implementation = implementation
    self.appIntentsMetadataDigest = appIntentsMetadataDigest
  }

  private enum CodingKeys: String, CodingKey { case protocolVersion, implementation, appIntentsMetadataDigest }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    protocolVersion = try container.decode(Int.self, forKey: .protocolVersion)
    implementation = try container.decode(String.self, forKey: .implementation)
    appIntentsMetadataDigest = try container.decodeIfPresent(String.self, forKey: .appIntentsMetadataDigest)
    try container.refuse(appIntentsMetadataDigest.flatMap(Self.digestProblem))
  }

  /// What is wrong with a metadata digest, or nil: it is 16 to 128 lowercase hexadecimal digits, an even number of
  /// them (the bytes of a hash, whichever the metadata's writer uses), so that equal digests are equal strings.
  public static func digestProblem(_ digest: String) -> String? {
    let digits = digest.unicodeScalars
    guard digits.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else {
      return "appIntentsMetadataDigest is not lowercase hexadecimal: \(AppIntentLimits.quoted(digest))"
    }
    guard (16...128).contains(digits.count), digits.count.isMultiple(of: 2) else {
      return "appIntentsMetadataDigest has \(digits.count) digits; a digest has an even number from 16 to 128"
    }
    return nil
  }
}
