import AppGroupStore
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization

/// One kept donation.
package struct StoredDonation: Codable, Sendable, Equatable {
  /// The donation's name: the sender's `identifier`, else the host's (`d` and a number).
  package var identifier: String
  /// Whether `identifier` is the sender's (it then counts in the de-duplication key).
  package var identifierGiven: Bool
  package var groupIdentifier: String?
  /// What was donated. An App Intent's donation (`isAppIntent`) keeps the intent's identifier as `intent.name`, its
  /// values as `intent.parameters`, and no response.
  package var interaction: DonatedInteraction
  /// When it was donated, seconds since 1970 (the host's clock).
  package var donatedAt: Double
  /// True for an App Intent's donation (`host/donate` with `appIntent`); absent (nil) for a SiriKit interaction's, as
  /// in the documents written before App Intents.
  package var appIntent: Bool?

  /// Whether it donates an App Intent.
  package var isAppIntent: Bool { appIntent == true }

  /// Two donations with the same key are the same donation: the kind and name of the intent, its values, and the
  /// given identifier. The intent's own per-request identifier does not count.
  struct Key: Hashable {
    var intent: String
    var isAppIntent: Bool
    var parameters: [String: ParameterValue]
    var identifier: String?
  }
  var key: Key {
    Key(
      intent: interaction.intent.name, isAppIntent: isAppIntent, parameters: interaction.intent.parameters,
      identifier: identifierGiven ? identifier : nil)
  }
}

/// An app's donations as the host keeps them, `State/donations/<app bundle id>.json` (a `Document`), schema 1,
/// oldest first, at most `DonationLimits.donationsPerApp`.
///
/// ```json
/// {"content": {"donations": [{"donatedAt": 1790000000, "identifier": "d1", "identifierGiven": false,
///   "interaction": {"intent": {…}, "response": {…}}}], "nextNumber": 2}, "schemaVersion": 1, "sequence": 1}
/// ```
package struct DonationsRecord: DocumentContent, Equatable {
  package static let schemaVersion = 1

  package var donations: [StoredDonation] = []
  /// The number of the next identifier the host makes.
  package var nextNumber = 1

  package init() {}

  /// Keeps `donation` as the newest: an equal one (same key), or one kept under the identifier given, is removed
  /// first, and past the bound the oldest go.
  /// A donation without an identifier of its own gets the host's: the one of the equal donation it replaces, else a
  /// new one.
  /// - Parameter isAppIntent: whether `interaction` is an App Intent's (its identifier and values, no response).
  /// - Returns: the donation's identifier.
  @discardableResult
  package mutating func add(
    _ interaction: DonatedInteraction, identifier: String?, groupIdentifier: String?, at now: Double,
    isAppIntent: Bool = false
  ) -> String {
    // The same donation again keeps the name it has (what a shortcut made from it refers to).
    let key = StoredDonation.Key(
      intent: interaction.intent.name, isAppIntent: isAppIntent, parameters: interaction.intent.parameters,
      identifier: identifier)
    var name = identifier ?? donations.first { $0.key == key }?.identifier ?? ""
    while name.isEmpty || (identifier == nil && donations.contains { $0.identifier == name && $0.key != key }) {
      // Never one a kept donation already has (a sender may have given "d3" itself).
      name = "d\(nextNumber)"
      nextNumber += 1
    }
    var interaction = interaction
    interaction.response?.userActivity = nil  // what a later launch would continue is not the donation's
    let donation = StoredDonation(
      identifier: name, identifierGiven: identifier != nil, groupIdentifier: groupIdentifier,
      interaction: interaction, donatedAt: now, appIntent: isAppIntent ? true : nil)
    // An identifier names one donation: a given one replaces whatever is kept under it, whatever its values.
    donations.removeAll { $0.key == donation.key || (identifier != nil && $0.identifier == name) }
    donations.append(donation)
    if donations.count > DonationLimits.donationsPerApp {
      donations.removeFirst(donations.count - DonationLimits.donationsPerApp)
    }
    return name
  }

  /// Deletes the donations `selection` names.
  /// - Returns: how many were deleted.
  @discardableResult
  package mutating func delete(_ selection: DonationSelection) -> Int {
    let before = donations.count
    switch selection {
    case .identifiers(let identifiers):
      let names = Set(identifiers)
      donations.removeAll { names.contains($0.identifier) }
    case .group(let group):
      donations.removeAll { $0.groupIdentifier == group }
    case .intentType(let name):
      donations.removeAll { $0.interaction.intent.name == name }
    case .all:
      donations.removeAll()
    }
    return before - donations.count
  }
}

/// An app's own terms per vocabulary type (SiriKit's `INVocabulary`), `State/vocabulary/<app bundle id>.json` (a
/// `Document`), schema 1: `{"types": {"contactName": ["Ada Lovelace"]}}`.
package struct VocabularyRecord: DocumentContent, Equatable {
  package static let schemaVersion = 1

  /// Terms by `VocabularyStringType` raw value, most important first.
  package var types: [String: [String]] = [:]

  package init() {}

  /// Replaces the terms of `type` with `strings` without exact duplicates (the first kept); `[]` removes the type.
  /// - Returns: how many terms were kept.
  @discardableResult
  package mutating func set(_ strings: [String], of type: VocabularyStringType) -> Int {
    var seen = Set<String>()
    let kept = strings.filter { seen.insert($0).inserted }
    types[type.rawValue] = kept.isEmpty ? nil : kept
    return kept.count
  }
}

/// A kept suggested shortcut: the host's name for it (`s` and a number) and what the app published.
package struct StoredSuggestion: Codable, Sendable, Equatable {
  package var identifier: String
  package var suggestion: ShortcutSuggestion
  /// When it was first published, seconds since 1970 (the host's clock).
  package var publishedAt: Double
}

/// An app's suggested shortcuts, `State/suggestions/<app bundle id>.json` (a `Document`), schema 1, in the app's
/// order, at most `DonationLimits.maximumSuggestions`.
package struct SuggestionsRecord: DocumentContent, Equatable {
  package static let schemaVersion = 1

  package var suggestions: [StoredSuggestion] = []
  /// The number of the next identifier the host makes.
  package var nextNumber = 1

  package init() {}

  /// Replaces the suggestions with `list` (exact duplicates dropped, the first kept; past
  /// `DonationLimits.maximumSuggestions` the rest is ignored, which `DonationRules` refuses before). A suggestion
  /// equal to a kept one (same intent class, values and phrase) keeps its identifier and first publication time.
  /// - Returns: the identifier of each suggestion kept of `list`, in order.
  @discardableResult
  package mutating func publish(_ list: [ShortcutSuggestion], at now: Double) -> [String] {
    func key(_ suggestion: ShortcutSuggestion) -> [AnyHashable] {
      [suggestion.intent.name, suggestion.intent.parameters, suggestion.phrase]
    }
    var kept: [StoredSuggestion] = []
    var names: [String] = []
    for suggestion in list.prefix(DonationLimits.maximumSuggestions) {
      if let same = kept.first(where: { key($0.suggestion) == key(suggestion) }) {
        names.append(same.identifier)
        continue
      }
      if let old = suggestions.first(where: { key($0.suggestion) == key(suggestion) }) {
        kept.append(old)
      } else {
        kept.append(StoredSuggestion(identifier: "s\(nextNumber)", suggestion: suggestion, publishedAt: now))
        nextNumber += 1
      }
      names.append(kept[kept.count - 1].identifier)
    }
    suggestions = kept
    return names
  }
}

/// Where the host keeps the donations, the vocabulary and the suggested shortcuts of the apps of a home, in its own
/// state (never in an app group): `State/donations/<app bundle id>.json`, `State/vocabulary/<app bundle id>.json` and
/// `State/suggestions/<app bundle id>.json`. Every change is one locked update of the app's document. Blocking: call
/// it off the cooperative pool.
package struct DonationStore: Sendable {
  package var home: AssistantHome
  package var clock: HostClock

  /// - Parameter clock: by default `HostClock.ofThisProcess`.
  package init(home: AssistantHome, clock: HostClock = .ofThisProcess) {
    self.home = home
    self.clock = clock
  }

  /// The donations document of `app` (a bundle identifier the manifest model validated).
  package func donationsFile(for app: String) -> URL {
    home.donationsFile(for: app)
  }

  package func vocabularyFile(for app: String) -> URL {
    home.vocabularyFile(for: app)
  }

  package func suggestionsFile(for app: String) -> URL {
    home.suggestionsFile(for: app)
  }

  /// The app's suggested shortcuts, in the app's order.
  package func suggestions(of app: String) throws -> [StoredSuggestion] {
    let file = suggestionsFile(for: app).path
    return try usingStateDocument(file, "the suggested shortcuts of \(app) cannot be read") {
      try Document<SuggestionsRecord>(path: file).read().suggestions
    }
  }

  /// Replaces the suggested shortcuts of `app` (already checked).
  /// - Returns: the identifier of each, in order.
  @discardableResult
  package func setSuggestions(_ list: [ShortcutSuggestion], for app: String) throws -> [String] {
    let file = suggestionsFile(for: app)
    try makeFolder(file.deletingLastPathComponent())
    let now = clock.now
    return try usingStateDocument(file.path, "cannot keep the suggested shortcuts of \(app)") {
      try Document<SuggestionsRecord>(path: file.path).update { $0.publish(list, at: now) }
    }
  }

  /// The app's donations, oldest first.
  package func donations(of app: String) throws -> [StoredDonation] {
    let file = donationsFile(for: app).path
    return try usingStateDocument(file, "the donations of \(app) cannot be read") {
      try Document<DonationsRecord>(path: file).read().donations
    }
  }

  /// The app's terms by type.
  package func vocabulary(of app: String) throws -> [String: [String]] {
    let file = vocabularyFile(for: app).path
    return try usingStateDocument(file, "the vocabulary of \(app) cannot be read") {
      try Document<VocabularyRecord>(path: file).read().types
    }
  }

  /// Keeps a donation of `app` (already checked by `DonationRules`).
  /// - Returns: its identifier.
  @discardableResult
  package func donate(_ request: DonateRequest, for app: String) throws -> String {
    let file = donationsFile(for: app)
    try makeFolder(file.deletingLastPathComponent())
    let now = clock.now
    return try usingStateDocument(file.path, "cannot keep a donation of \(app)") {
      try Self.donations(file.path).update { record in
        record.add(
          request.interaction, identifier: request.identifier, groupIdentifier: request.groupIdentifier, at: now)
      }
    }
  }

  /// Keeps an App Intent's donation of `app` (already checked by `DonationRules`).
  /// - Returns: its identifier.
  @discardableResult
  package func donate(_ request: DonateAppIntentRequest, for app: String) throws -> String {
    let file = donationsFile(for: app)
    try makeFolder(file.deletingLastPathComponent())
    let now = clock.now
    let intent = Intent(name: request.appIntent.identifier, identifier: "", parameters: request.appIntent.parameters)
    return try usingStateDocument(file.path, "cannot keep a donation of \(app)") {
      try Self.donations(file.path).update { record in
        record.add(
          DonatedInteraction(intent: intent), identifier: request.identifier,
          groupIdentifier: request.groupIdentifier, at: now, isAppIntent: true)
      }
    }
  }

  /// Deletes donations of `app`.
  /// - Returns: how many.
  @discardableResult
  package func deleteDonations(_ selection: DonationSelection, for app: String) throws -> Int {
    let file = donationsFile(for: app)
    guard FileManager.default.fileExists(atPath: file.deletingLastPathComponent().path) else { return 0 }
    return try usingStateDocument(file.path, "cannot delete donations of \(app)") {
      try Document<DonationsRecord>(path: file.path).update { $0.delete(selection) }
    }
  }

  /// Replaces the terms of `type` of `app`.
  /// - Returns: how many were kept.
  @discardableResult
  package func setVocabulary(_ strings: [String], of type: VocabularyStringType, for app: String) throws -> Int {
    let file = vocabularyFile(for: app)
    try makeFolder(file.deletingLastPathComponent())
    return try usingStateDocument(file.path, "cannot keep the vocabulary of \(app)") {
      try Document<VocabularyRecord>(path: file.path).update { $0.set(strings, of: type) }
    }
  }

  /// The donations document at `path`, one value per path for the process: its files stay open and its last state
  /// is kept between donations (`Document` reads the journal again only when another process committed), so a
  /// long-lived assistant (`shell`, the testing library, `intenthost-bench warm`) does not decode every donation kept
  /// on each new one.
  private static func donations(_ path: String) -> Document<DonationsRecord> {
    openDonations.withLock { documents in
      if let document = documents[path] { return document }
      let document = Document<DonationsRecord>(path: path)
      if documents.count >= 64 { documents.removeAll() }
      documents[path] = document
      return document
    }
  }

  private static let openDonations = Mutex<[String: Document<DonationsRecord>]>([:])

  private func makeFolder(_ folder: URL) throws {
    // The home is made only when the folder cannot be (the usual case, every donation after the first, is one mkdir).
    if mkdir(folder.path, 0o700) == 0 || errno == EEXIST { return }
    try home.prepare()
    if mkdir(folder.path, 0o700) != 0 && errno != EEXIST {
      throw HostError(
        .cannotCreate, "cannot create \(folder.path): \(SystemError.current("mkdir", folder.path))")
    }
  }
}
