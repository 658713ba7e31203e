/// Extension or app → host: replaces the app's terms of one vocabulary type, SiriKit's
/// `INVocabulary.setVocabularyStrings(_:of:)` ("the new set replaces the previous one"); an empty list removes the
/// type. See docs/PROTOCOL.md, "Requests to the host: donations and vocabulary".
public struct SetVocabularyRequest: RequestMessage, Equatable {
  public static let method = "host/setVocabulary"
  public typealias Response = SetVocabularyResult

  /// An `INVocabularyStringType` case name (`VocabularyStringType`).
  public var type: String
  /// The terms, most important first: at most `DonationLimits.maximumVocabularyStrings`, each 1 to
  /// `maximumVocabularyStringLength` Unicode scalars, not blank, no control characters.
  public var strings: [String]

  public init(type: String, strings: [String]) {
    self.type = type
    self.strings = strings
  }

  public init(type: VocabularyStringType, strings: [String]) { self.init(type: type.rawValue, strings: strings) }
}

/// SiriKit's `INVocabularyStringType`, by case name.
public enum VocabularyStringType: String, Codable, Sendable, CaseIterable {
  case contactName, contactGroupName, photoTag, photoAlbumName, workoutActivityName, carProfileName, carName
  case paymentsOrganizationName, paymentsAccountNickname, notebookItemTitle, notebookItemGroupName
  case mediaPlaylistTitle, mediaMusicArtistName, mediaAudiobookTitle, mediaAudiobookAuthorName, mediaShowTitle
}

/// The host's answer to `host/setVocabulary`: how many terms it kept (exact duplicates are dropped).
public struct SetVocabularyResult: Codable, Sendable, Equatable {
  public var count: Int

  public init(count: Int) { self.count = count }
}
