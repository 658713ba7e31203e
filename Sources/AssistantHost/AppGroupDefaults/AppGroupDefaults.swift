import AppGroupStore
import Foundation
import IntentHostSystem

/// What a `defaults` operation acts on: an app group's shared defaults (`SharedDefaults`,
/// `Library/Preferences/GROUP.json`), or with `document` the top-level keys of another document in the group, such
/// as Rooms' `bookings.json`.
package struct DefaultsTarget: Sendable, Equatable {
  /// The app group's identifier, `group.` followed by a reverse-DNS name (checked by each operation: usage, 64).
  package var group: String
  /// A document's file name in the group's folder (`--document NAME`); nil for the group's shared defaults.
  package var document: String?

  package init(group: String, document: String? = nil) {
    self.group = group
    self.document = document
  }
}

/// One app group as `defaults list` shows it. Every string but `path` comes from names in the group's folder, which
/// every member may write: print them through `Untrusted` (as the command line does).
package struct GroupListing: Sendable, Encodable, Equatable {
  /// The group's identifier (its folder's name).
  package var identifier: String
  /// The group's folder.
  package var path: String
  /// `Library/Preferences/<group>.json`, relative to `path`, when the group's shared defaults exist; nil otherwise.
  package var defaults: String?
  /// The other documents in the group's folder, sorted (`AppGroupContainer.documentNames()`).
  package var documents: [String]
  /// What could not be listed and why: a link or file planted in place of a folder or a document's file (refused,
  /// never followed; the message names `assistant defaults recover`), or a folder whose name is not a valid group
  /// identifier (never used by the host).
  package var problems: [String]

  package init(identifier: String, path: String, defaults: String?, documents: [String], problems: [String]) {
    self.identifier = identifier
    self.path = path
    self.defaults = defaults
    self.documents = documents
    self.problems = problems
  }
}

/// The store operations behind `assistant defaults`: list, read, write, delete, watch and recover what app groups
/// hold, modelled on macOS `defaults` (the command line parses the arguments, spells the values and prints them;
/// this is the library side).
///
/// Every operation is async, with its blocking work (file locks, syncs, waiting for a change) off the cooperative
/// pool, and throws only `HostError`, with the README's statuses: 64 for an invalid group identifier or document
/// name, 65 for a document that cannot be read (corrupt, newer, or something planted in place of a file: the
/// message names `recoveryCommand(_:)`), 69 for a group, document or key that does not exist, 73 when the home
/// cannot be made (`write`), 74 for an I/O error of the store.
///
/// Only `write`, `delete` and `recover` change anything: `list`, `read` and `watch` make no folder and no file (not
/// the group, its `Library`, the host's home, nor a document's lock file), so a typo in a group's name leaves no
/// trace. `write` makes the group's folder when it does not exist yet (with its owner and mode: `AssistantHome.
/// appGroupContainer`), preparing the host's home first.
package struct AppGroupDefaults: Sendable {
  package var home: AssistantHome

  package init(home: AssistantHome) { self.home = home }

  // MARK: - Operations

  /// The app groups with a folder in the app groups' root (`AssistantHome.appGroupsRoot`), sorted, or only `group`;
  /// each with its shared defaults and documents, looked up through descriptors without following a link. Makes
  /// nothing.
  /// - Parameter group: list only this group; nil for all.
  /// - Returns: the groups; none when the app groups' root does not exist (nothing was ever written).
  /// - Throws: `HostError(.usage)` when `group` is not a valid identifier; `.noMatch` (69) when `group` has no
  ///   folder ("has no data"); `.ioError` when the root cannot be listed.
  package func list(group: String?) async throws -> [GroupListing] {
    if let group { try Self.check(DefaultsTarget(group: group)) }
    let home = self.home
    return try await offloaded { () throws -> [GroupListing] in
      let root = home.appGroupsRoot.path
      let identifiers: [String]
      if let group {
        guard try Self.groupExists(group, home: home) else { throw Self.noData(group) }
        identifiers = [group]
      } else {
        do throws(SystemError) {
          let folder = try DirectoryDescriptor.openTrusted(root)
          defer { folder.close() }
          var directories: [String] = []
          for name in try folder.entries().sorted() where name.hasPrefix("group.") {
            if try folder.status(of: name)?.kind == .directory { directories.append(name) }
          }
          identifiers = directories
        } catch {
          if error.code == ENOENT { return [] }
          throw HostError(.ioError, "cannot list the app groups in \(root): \(error)")
        }
      }
      return try identifiers.map { try Self.listing(of: $0, home: home) }
    }
  }

  /// The value of `key` in `target`, or with no key the whole document (an object of keys). Makes nothing: a group
  /// or document that does not exist is reported, not made.
  /// - Throws: `HostError(.noMatch)` (69) when the group has no folder ("group X has no data (nothing was written
  ///   to it)"), the document does not exist, or it has no `key`; `.usage` for an invalid target; `.dataError` when
  ///   the document cannot be read (or is not an object and a key is asked); `.ioError`.
  package func read(_ target: DefaultsTarget, key: String?) async throws -> JSONValue {
    try Self.check(target)
    let home = self.home
    return try await offloaded { () throws -> JSONValue in
      guard try Self.groupExists(target.group, home: home) else { throw Self.noData(target.group) }
      let document = try Self.document(target, home: home)
      let content = try Self.storing(target) { () throws(StoreError) -> AnyDocumentContent? in
        // Looked up first: reading a document that does not exist takes no lock and makes nothing.
        guard try document.exists() else { return nil }
        return try document.read()
      }
      guard let content else { throw Self.missingDocument(target, home: home) }
      guard let key else { return content.value }
      guard case .object(let object) = content.value else {
        throw HostError(.dataError, "\(document.path) holds \(Self.kind(content.value)), not an object of keys")
      }
      guard let value = object[key] else { throw HostError(.noMatch, "\(Self.label(target)) has no key \"\(key)\"") }
      return value
    }
  }

  /// Sets `key` to `value` in `target` (a locked, durable update), making the group's folder (and the host's home,
  /// `AssistantHome.prepare()`) when they do not exist yet, and for the shared defaults their `Library/Preferences`.
  /// - Throws: `HostError(.usage)` for an invalid target; `.cannotCreate` when the home cannot be made;
  ///   `.dataError` when the document cannot be read or is not an object of keys; `.refused` when the group's
  ///   folder cannot be prepared; `.ioError`.
  package func write(_ target: DefaultsTarget, key: String, value: JSONValue) async throws {
    try Self.check(target)
    let home = self.home
    try await offloaded { () throws in
      let document = try Self.preparedDocument(target, home: home)
      try Self.storing(target) {
        try document.update { content in
          guard case .object(var object) = content.value else {
            throw HostError(.dataError, "\(document.path) holds \(Self.kind(content.value)), not an object of keys")
          }
          object[key] = value
          content.value = .object(object)
        }
      }
    }
  }

  /// Removes `key` from `target`, or with no key every key (the document stays, empty). Nothing is written, and
  /// nothing made, when there is nothing to remove.
  /// - Throws: `HostError(.noMatch)` (69) when there was nothing to delete: no group folder, no document, no such
  ///   key, or no keys at all; `.usage`, `.dataError`, `.ioError` as `write`.
  package func delete(_ target: DefaultsTarget, key: String?) async throws {
    try Self.check(target)
    let home = self.home
    try await offloaded { () throws in
      guard try Self.groupExists(target.group, home: home) else { throw Self.noData(target.group) }
      let existing = try Self.document(target, home: home)
      // Looked up first: nothing is made, and nothing locked, for a document that does not exist.
      guard try Self.storing(target, { () throws(StoreError) in try existing.exists() }) else {
        throw Self.missingDocument(target, home: home)
      }
      let document = try Self.preparedDocument(target, home: home)
      try Self.storing(target) {
        try document.update { content in
          guard case .object(var object) = content.value else {
            throw HostError(.dataError, "\(document.path) holds \(Self.kind(content.value)), not an object of keys")
          }
          // Thrown from inside the update, so that nothing is written.
          guard let key else {
            if object.isEmpty { throw HostError(.noMatch, "\(Self.label(target)) has no keys") }
            content.value = .object([:])
            return
          }
          guard object.removeValue(forKey: key) != nil else {
            throw HostError(.noMatch, "\(Self.label(target)) has no key \"\(key)\"")
          }
          content.value = .object(object)
        }
      }
    }
  }

  /// Makes `target` usable again after it became unreadable (`Document.recover()`): what cannot be read, or was
  /// planted in place of a file or folder, is moved aside (never followed, never deleted) and the newest readable
  /// state kept.
  /// - Returns: the steps taken, one sentence each (a readable document: one step saying there was nothing to
  ///   recover). They name files in the group's folder, whose names members choose: print each through
  ///   `Untrusted.shown`.
  /// - Throws: `HostError(.noMatch)` when the group has no folder or the document was never written (nothing to
  ///   recover, and nothing is made);
  ///   `.usage`; `.ioError` when a file cannot be moved or written.
  package func recover(_ target: DefaultsTarget) async throws -> [String] {
    try Self.check(target)
    let home = self.home
    return try await offloaded { () throws -> [String] in
      guard try Self.groupExists(target.group, home: home) else {
        throw HostError(.noMatch, "group \(target.group) has no data (nothing was written to it); nothing to recover")
      }
      // A document never written has nothing to recover, and no lock file is made for it. Anything in the way of
      // looking (a link planted in place of `Library`) is what `recover` moves aside.
      let present = (try? Self.document(target, home: home).exists()) ?? true
      guard present else {
        throw HostError(.noMatch, "\(Self.label(target)) was never written; nothing to recover")
      }
      // The folder's owner and mode are settled; `recover` makes the document's own folders itself, after moving
      // aside whatever was planted in their place.
      let path = try home.appGroupContainer(target.group).path
      let document = Self.document(target, inGroupAt: path)
      return try Self.storing(target) { () throws(StoreError) in try document.recover().steps }
    }
  }

  /// Calls `emit` with the current value of `key` in `target` (with no key, the whole document), then with each
  /// new value, until `count` changes were emitted, `timeout` passes, or the calling task is cancelled. A missing
  /// key is emitted as `null`, a document not written yet as an empty object. Makes nothing.
  ///
  /// The watch sleeps on inotify for the document's folder (or checks every 200 ms with `polling`), on a thread of
  /// its own. A group that does not exist yet is refused rather than waited for: its folder is what the watch
  /// sleeps on, and making it would be a write (a watch of a misspelt name would leave a group behind). Write to the
  /// group first, or launch an app that uses it; then the watch sees every later change.
  /// - Parameters:
  ///   - polling: check every 200 ms instead of using inotify.
  ///   - count: stop after this many changes (the current value is not counted); nil for no limit.
  ///   - timeout: stop after this long (a normal end, not an error); nil for no limit.
  ///   - emit: called on a dedicated thread, one value at a time, in order; it may block (a slow pipe). When it
  ///     throws (a closed pipe: EPIPE), the watch ends and the error is rethrown as it is.
  /// - Throws: `HostError(.noMatch)` (69) when the group (or, for the shared defaults, its `Library/Preferences`)
  ///   does not exist yet; `.usage`; `.dataError` when the document becomes unreadable; what `emit` throws;
  ///   `CancellationError` is not thrown: cancellation ends the watch normally.
  package func watch(
    _ target: DefaultsTarget, key: String?, polling: Bool, count: Int?, timeout: Duration?,
    emit: @escaping @Sendable (JSONValue) throws -> Void
  ) async throws {
    try Self.check(target)
    let home = self.home
    let document = try await offloaded { () throws -> Document<AnyDocumentContent> in
      guard try Self.groupExists(target.group, home: home) else {
        throw HostError(
          .noMatch,
          "group \(target.group) does not exist yet (nothing was written to it), so there is no folder to watch; "
            + "write to it first (`assistant defaults write \(target.group) KEY VALUE`) or launch an app that uses it")
      }
      let document = try Self.document(target, home: home)
      guard try Self.storing(target, { () throws(StoreError) in try document.folderExists() }) else {
        throw HostError(
          .noMatch,
          "\(Self.label(target)) has no folder to watch yet (\(document.path) was never written); write a value "
            + "first (`assistant defaults write \(target.group) KEY VALUE`), or recover it with "
            + "`\(Self.recoveryCommand(target))`")
      }
      return document
    }
    func shown(_ content: AnyDocumentContent) -> JSONValue {
      key.map { content.value[$0] ?? .null } ?? content.value
    }
    do {
      // Started before the current value is read, so that no change between the two is lost.
      let changes = try await document.changes(polling: polling)
      let first = shown(try await document.read())
      try await offloaded { try emit(first) }
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          var last = first
          var seen = 0
          for try await snapshot in changes {
            let now = shown(snapshot.content)
            if now == last { continue }
            last = now
            seen += 1
            try await offloaded { [now] in try emit(now) }
            if let count, seen >= count { return }
          }
        }
        if let timeout {
          group.addTask { try await Task.sleep(for: timeout) }
        }
        defer { group.cancelAll() }
        do {
          try await group.next()
        } catch is CancellationError {
          // The caller's task was cancelled (Ctrl-C): the watch ends, as `tail -f` does.
        }
      }
    } catch let error as StoreError {
      throw Self.hostError(error, target)
    }
  }

  /// The command that moves aside what keeps `target` from being read: `assistant defaults recover GROUP
  /// [--document NAME]`, with the name quoted for a POSIX shell when it needs it.
  package static func recoveryCommand(_ target: DefaultsTarget) -> String {
    "assistant defaults recover \(target.group)" + (target.document.map { " --document \(shellQuoted($0))" } ?? "")
  }

  // MARK: - Helpers

  /// Checks the group identifier and the document name where they are parsed, before any path is built from them.
  /// - Throws: `HostError(.usage)` with the problem.
  static func check(_ target: DefaultsTarget) throws {
    if let problem = AppGroupContainer.identifierProblem(target.group) {
      throw HostError(.usage, "invalid app group identifier: \(problem)")
    }
    if let name = target.document {
      guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), !name.utf8.contains(0),
        name.utf8.count <= maximumDocumentNameLength
      else {
        throw HostError(
          .usage,
          "--document takes the file name of a document in the group's folder, such as bookings.json: not empty, "
            + "without \"/\", not starting with \".\", at most \(maximumDocumentNameLength) bytes")
      }
    }
  }

  /// The longest document name: with the store's own suffixes (`.NAME.journal.unreadable-TIMESTAMP`), its files'
  /// names stay within NAME_MAX (255).
  static let maximumDocumentNameLength = 200

  /// Whether the group's folder exists, looked up without following a link and without making anything.
  /// - Throws: `HostError(.ioError)` when the app groups' root cannot be searched.
  static func groupExists(_ group: String, home: AssistantHome) throws -> Bool {
    let location = try home.appGroupLocation(group)
    var info = stat()
    if lstat(location.path, &info) == 0 { return true }
    let error = SystemError.current("stat", location.path)
    if error.code == ENOENT || error.code == ENOTDIR { return false }
    throw HostError(.ioError, "cannot look up app group \(group): \(error)")
  }

  /// The document `target` names in its group's folder, which is not made.
  static func document(_ target: DefaultsTarget, home: AssistantHome) throws -> Document<AnyDocumentContent> {
    document(target, inGroupAt: try home.appGroupLocation(target.group).path)
  }

  static func document(_ target: DefaultsTarget, inGroupAt path: String) -> Document<AnyDocumentContent> {
    Document(in: path, at: target.document ?? "Library/Preferences/\(target.group).json")
  }

  /// The document `target` names, its group's folder made (or settled) first (`appGroupContainer`, which prepares
  /// the home), and for the shared defaults their `Library/Preferences`, through the folder's descriptor.
  static func preparedDocument(_ target: DefaultsTarget, home: AssistantHome) throws -> Document<AnyDocumentContent> {
    let path = try home.appGroupContainer(target.group).path
    _ = try storing(target) { () throws(StoreError) in
      try AppGroupContainer(identifier: target.group, path: path, creatingDirectories: target.document == nil)
    }
    return document(target, inGroupAt: path)
  }

  /// `body`, with a `StoreError` turned into a `HostError` for `target`.
  static func storing<Result>(_ target: DefaultsTarget, _ body: () throws -> Result) throws -> Result {
    do {
      return try body()
    } catch let error as StoreError {
      throw hostError(error, target)
    }
  }

  /// A store error as the README's status: 65 for a document that cannot be read (with the recovery command), 64
  /// for an invalid identifier, 74 for I/O.
  static func hostError(_ error: StoreError, _ target: DefaultsTarget) -> HostError {
    let hint = recoveryCommand(target)
    switch error {
    case .corrupt, .newerSchema:
      return HostError(.dataError, "\(error); to move it aside and start again from what is readable: `\(hint)`")
    case .unsafeFile:
      return HostError(.dataError, error.description(recoveryCommand: hint))
    case .invalidGroupIdentifier, .notEntitled:
      return HostError(.usage, "\(error)")
    case .io:
      return HostError(.ioError, "\(error)")
    }
  }

  static func noData(_ group: String) -> HostError {
    HostError(.noMatch, "group \(group) has no data (nothing was written to it)")
  }

  /// 69 for a document that does not exist, with the likely name when the user left out `.json`.
  static func missingDocument(_ target: DefaultsTarget, home: AssistantHome) -> HostError {
    guard let name = target.document else {
      return HostError(.noMatch, "group \(target.group) has no shared defaults (nothing was written to them)")
    }
    var message = "group \(target.group) has no document \(name)"
    // Only for a hint: a lookup that fails just gives none.
    if !name.hasSuffix(".json"),
      (try? document(DefaultsTarget(group: target.group, document: name + ".json"), home: home).exists()) == true
    {
      message += "; did you mean --document \(name).json?"
    }
    return HostError(.noMatch, message)
  }

  /// `GROUP` or `GROUP's NAME`, for messages.
  static func label(_ target: DefaultsTarget) -> String {
    target.document.map { "\(target.group)'s \($0)" } ?? "\(target.group)'s shared defaults"
  }

  /// One group's listing. What a member planted in place of a folder or a file is reported, not followed; the rest
  /// is still listed.
  static func listing(of identifier: String, home: AssistantHome) throws -> GroupListing {
    let path = try home.appGroupLocation(identifier).path
    var listing = GroupListing(identifier: identifier, path: path, defaults: nil, documents: [], problems: [])
    if let problem = AppGroupContainer.identifierProblem(identifier) {
      listing.problems.append("not a valid app group identifier, so no app uses this folder: \(problem)")
      return listing
    }
    let container: AppGroupContainer
    do {
      container = try AppGroupContainer(identifier: identifier, path: path, creatingDirectories: false)
    } catch {
      listing.problems.append("\(error)")
      return listing
    }
    do {
      if try container.defaults.document.exists() {
        listing.defaults = "Library/Preferences/\(identifier).json"
      }
    } catch {
      listing.problems.append(error.description(recoveryCommand: recoveryCommand(DefaultsTarget(group: identifier))))
    }
    do {
      listing.documents = try container.documentNames()
    } catch {
      listing.problems.append("\(error)")
    }
    return listing
  }

  static func kind(_ value: JSONValue) -> String {
    switch value {
    case .object: return "an object"
    case .array: return "an array"
    case .string: return "a string"
    case .integer, .double: return "a number"
    case .bool: return "a boolean"
    case .null: return "null"
    }
  }

  /// `text` as one word for a POSIX shell: as it is when it is made of safe characters only, else in single quotes.
  static func shellQuoted(_ text: String) -> String {
    let safe = text.unicodeScalars.allSatisfy {
      ($0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil))
        || "._-+@%=:,".unicodeScalars
          .contains($0)
    }
    return safe && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
