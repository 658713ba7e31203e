import Foundation
import IntentHostSystem
import UntrustedText

/// What `assistant new intent` changed: the definition it added the intent to, and the extensions' Info.plists whose
/// `IntentsSupported` now lists it.
package struct IntentAddition: Sendable, Encodable {
  package var definition: String
  package var intent: String
  package var parameters: [String]
  package var infoPlists: [String]
  /// The vocabulary beside the definition that got the intent's example phrase, if any.
  package var vocabulary: String?
  package var phrase: String?
}

extension NewIntent {
  /// Adds this intent to the one intent definition at or below `path` (a `.intentdefinition` file, or a folder
  /// searched for one), with its enums, and to `IntentsSupported` of each Intents or Intents UI extension of the
  /// package that supports an intent of that definition. Each file is rewritten whole, atomically.
  /// - Throws: `HostError(.noInput)` when no definition is found; `.usage` when several are (naming them);
  ///   `.dataError` when the definition already has the intent or one of its enums, or does not parse.
  package func add(to path: URL) throws -> IntentAddition {
    let file = try Self.definition(at: path.standardizedFileURL)
    var definition = try PlistValue.read(file)
    let intents = definition["INIntents"]?.items ?? []
    let names = intents.compactMap { $0["INIntentName"]?.text }
    if names.contains(name) {
      throw HostError(
        .dataError, "\(file.path) already has an intent \(Untrusted.shown(name)); give the intent another name")
    }
    let enums = definition["INEnums"]?.items ?? []
    let enumNames = Set(enums.compactMap { $0["INEnumName"]?.text })
    for entry in enumEntries {
      if let enumName = entry["INEnumName"]?.text, enumNames.contains(enumName) {
        throw HostError(
          .dataError,
          "\(file.path) already has an enum \(enumName); name the parameter otherwise (its enum is named after it)")
      }
    }
    definition["INIntents"] = .array(intents + [definitionEntry])
    definition["INEnums"] = .array(enums + enumEntries)
    try Self.replace(file, with: definition.xmlDocument)

    // The extensions that support this definition's intents support the new one too.
    let classes = Set(names.map { $0 + "Intent" })
    var updated: [String] = []
    let root = BundleSources.packageFolder(at: file.deletingLastPathComponent()) ?? file.deletingLastPathComponent()
    if let sources = try? BundleSources.find(in: root) {
      for source in sources.apps.flatMap(\.extensions) where source.kind == .plugIn {
        let infoFile = source.folder.appendingPathComponent("Info.plist")
        guard var info = try? PlistValue.read(infoFile),
          var attributes = info["NSExtension"]?["NSExtensionAttributes"],
          let supported = attributes["IntentsSupported"]?.items,
          supported.contains(where: { $0.text.map(classes.contains) ?? false })
        else { continue }
        attributes["IntentsSupported"] = .array(supported + [.string(name + "Intent")])
        var nsExtension = info["NSExtension"]!
        nsExtension["NSExtensionAttributes"] = attributes
        info["NSExtension"] = nsExtension
        try Self.replace(infoFile, with: info.xmlDocument)
        updated.append(infoFile.path)
      }
    }
    // The vocabulary beside the definition gets the intent's phrase, said with the app's name.
    var phrase: String? = nil
    let vocabularyFile = file.deletingLastPathComponent().appendingPathComponent("AppIntentVocabulary.plist")
    let bundleInfo = file.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Info.plist")
    if var vocabulary = try? PlistValue.read(vocabularyFile), let info = try? PlistValue.read(bundleInfo),
      let app = info["CFBundleDisplayName"]?.text ?? info["CFBundleName"]?.text
    {
      phrase = samplePhrase(app: app)
      let entry = PlistValue.dictionary([
        "IntentExamples": .array([.string(phrase!)]), "IntentName": .string(name + "Intent"),
      ])
      vocabulary["IntentPhrases"] = .array((vocabulary["IntentPhrases"]?.items ?? []) + [entry])
      try Self.replace(vocabularyFile, with: vocabulary.xmlDocument)
    }
    return IntentAddition(
      definition: file.path, intent: name + "Intent", parameters: parameters.map(\.name), infoPlists: updated,
      vocabulary: phrase == nil ? nil : vocabularyFile.path, phrase: phrase)
  }

  /// The definition at `path`: the file itself, or the only `.intentdefinition` below the folder.
  static func definition(at path: URL) throws -> URL {
    var status = stat()
    guard stat(path.path, &status) == 0 else {
      throw HostError(.noInput, "cannot add an intent to \(path.path): \(SystemError.current("stat"))")
    }
    if FileKind(mode: status.st_mode) == .regular { return path }
    var found: [URL] = []
    func search(_ folder: URL, depth: Int) {
      guard depth <= 6, found.count < 100 else { return }
      let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
      for name in names.sorted() where !name.hasPrefix(".") {
        let child = folder.appendingPathComponent(name)
        var status = stat()
        guard lstat(child.path, &status) == 0 else { continue }
        let kind = FileKind(mode: status.st_mode)
        if kind == .regular && name.hasSuffix(".intentdefinition") { found.append(child) }
        if kind == .directory && !name.hasSuffix(".app") && !name.hasSuffix(".appex") {
          search(child, depth: depth + 1)
        }
      }
    }
    search(path, depth: 0)
    guard let first = found.first else {
      throw HostError(
        .noInput,
        "\(path.path) holds no .intentdefinition; give the definition's path (`assistant new app` writes one). An App "
          + "Intents package declares its intents in Swift: add an AppIntent struct to its extension's `intents`")
    }
    guard found.count == 1 else {
      throw HostError(
        .usage,
        "\(path.path) holds \(found.count) definitions (\(Untrusted.shown(found.map(\.path).joined(separator: ", "))));"
          + " give the one to add the intent to")
    }
    return first
  }

  /// Replaces `file` with `text` atomically (a new file beside it, synced, renamed over it).
  static func replace(_ file: URL, with text: String) throws {
    let temporary = file.deletingLastPathComponent().appendingPathComponent(
      ".\(file.lastPathComponent).tmp-\(getpid())")
    do {
      let output = try FileDescriptor.open(
        temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode: 0o644)
      defer { output.close() }
      try output.writeAll(Array(text.utf8), timeoutMilliseconds: -1)
      guard fsync(output.rawValue) == 0 else { throw SystemError.current("fsync", temporary.path) }
      guard rename(temporary.path, file.path) == 0 else { throw SystemError.current("rename", file.path) }
    } catch {
      unlink(temporary.path)
      throw HostError(.ioError, "cannot write \(file.path): \(error)")
    }
  }
}
