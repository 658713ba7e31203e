import BundleManifest
import ExtensionProtocol
import Foundation
import Understanding

extension DonationStore {
  /// The terms each of `apps` registered, by bundle identifier (apps without any left out), and for each app whose
  /// vocabulary document cannot be read, a line saying so: that app is matched without its terms.
  package func userVocabularies(of apps: [AppBundle]) -> (vocabularies: [String: UserVocabulary], problems: [String]) {
    var vocabularies: [String: UserVocabulary] = [:]
    var problems: [String] = []
    for app in apps {
      let identifier = app.identifier.rawValue
      guard vocabularies[identifier] == nil else { continue }
      do {
        let vocabulary = UserVocabulary(record: try vocabulary(of: identifier))
        if !vocabulary.isEmpty { vocabularies[identifier] = vocabulary }
      } catch {
        problems.append("the terms \(identifier) registered cannot be read, so they are not used: \(error)")
      }
    }
    return (vocabularies, problems)
  }
}
