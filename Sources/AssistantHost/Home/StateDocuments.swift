import AppGroupStore
import BundleManifest
import Foundation

/// Every document the host keeps in `<home>/State`, in one place. Each is the host's own (written only by the host,
/// read back as hostile input all the same: a corrupt or planted one is `stateError`'s). Per-app documents are named
/// by the app's bundle identifier, which the manifest model validated.
extension AssistantHome {
  /// `State/device.json`: the device's lock state (`DeviceRecord`, a `Document`: locked updates, synced).
  package var deviceFile: URL { state.appendingPathComponent("device.json") }

  /// The passcode's file name in `State/` (written beside the record by `DeviceState`, never inside it).
  static let passcodeName = "passcode"

  /// `State/passcode`: the device passcode's salted hash (`PasscodeHash`), mode 0600.
  package var passcodeFile: URL { state.appendingPathComponent(Self.passcodeName) }

  /// `State/owners.json`: which team owns each bundle identifier and app group (`OwnerTable`).
  package var ownersFile: URL { state.appendingPathComponent("owners.json") }

  /// `State/identities.json`: the uid of each app and the gid of each app group, as root (`IdentityTable`).
  var identitiesFile: String { state.appendingPathComponent("identities.json").path }

  /// `State/interpreters.json`: the script interpreter each installed script resolved to (`InterpreterTable`).
  var interpretersFile: String { state.appendingPathComponent("interpreters.json").path }

  /// `State/storage.json`: the storage budget of the home's containers and app groups, and how it is enforced
  /// (`StorageSettings`).
  package var storageFile: URL { state.appendingPathComponent("storage.json") }

  /// `State/shortcuts.json`: the user's shortcuts (`ShortcutsRecord`).
  package var shortcutsFile: URL { state.appendingPathComponent("shortcuts.json") }

  /// `State/donations/<app>.json`: what `app` donated (`DonationsRecord`).
  package func donationsFile(for app: String) -> URL {
    state.appendingPathComponent("donations").appendingPathComponent(app + ".json")
  }

  /// `State/vocabulary/<app>.json`: the terms `app` registered for the user (`VocabularyRecord`).
  package func vocabularyFile(for app: String) -> URL {
    state.appendingPathComponent("vocabulary").appendingPathComponent(app + ".json")
  }

  /// `State/suggestions/<app>.json`: the shortcuts `app` suggested (`SuggestionsRecord`).
  package func suggestionsFile(for app: String) -> URL {
    state.appendingPathComponent("suggestions").appendingPathComponent(app + ".json")
  }
}

/// A failure to use one of the host's own state documents (`State/owners.json`, `State/identities.json`,
/// `State/shortcuts.json`, `State/donations/<app>.json` …), the document at `path`: a corrupt or planted one is invalid
/// data (65) with how to start it again (`stateDocumentAdvice`; `assistant defaults recover` is for app groups, not
/// for the host's own state), a newer schema 65 too; anything else the host's own I/O failing (74); never a refusal
/// nor an extension's fault.
func stateError(_ error: any Error, _ what: String, document path: String) -> HostError {
  switch error as? StoreError {
  case .corrupt(let file, let detail)?:
    return HostError(
      .dataError, "\(what): \(file) is corrupt (\(detail)); \(stateDocumentAdvice(path, also: file))")
  case .unsafeFile(let file, let detail)?:
    return HostError(
      .dataError,
      "\(what): \(file) \(detail), and the host never follows a link or opens anything but a regular file there; "
        + stateDocumentAdvice(path, also: file))
  case .newerSchema?:
    return HostError(.dataError, "\(what): \(error)")
  case .io(let system)? where [EISDIR, ENOTDIR, ELOOP, ENXIO].contains(system.code):
    return HostError(.dataError, "\(what): \(system); \(stateDocumentAdvice(path, also: system.subject))")
  default:
    return HostError(.ioError, "\(what): \(error)")
  }
}

/// How to start the host's state document at `path` again, empty: the files to move aside or remove (the document,
/// its journal and its lock, and `also` when it is something else in the way, such as a folder planted as a link).
/// What the document held is lost; the host makes it again when it next writes.
func stateDocumentAdvice(_ path: String, also: String = "") -> String {
  let url = URL(fileURLWithPath: path)
  let folder = url.deletingLastPathComponent().path
  let name = url.lastPathComponent
  var files = [path, "\(folder)/.\(name).journal", "\(folder)/.\(name).lock"]
  if !also.isEmpty, !files.contains(also) { files.insert(also, at: 0) }
  return "it was left as it is; to start it again empty (losing what it held), move aside or remove "
    + files.joined(separator: ", ")
}

/// `body`, a use of the host's state document at `path`, with the store's failures as `stateError`s.
func usingStateDocument<Result>(_ path: String, _ what: String, _ body: () throws -> Result) throws -> Result {
  do {
    return try body()
  } catch let error as StoreError {
    throw stateError(error, what, document: path)
  }
}
