import AppGroupStore
import AppIntentsMetadata
import AssistantHost
import BundleManifest
import ExtensionProtocol
import ExtensionTransport
import Foundation
import IntentCodegen
import UntrustedText

extension FuzzTargets {
  /// The line framer of every pipe: the first byte sets the limit (1-64), the second the size of the pieces the
  /// rest arrives in. Fed in pieces or whole, the events are the same; no message is empty, longer than the limit
  /// or holds a newline; the framer never holds more than the limit and a carriage return.
  static let lineFramer = FuzzTarget(
    name: "line-framer", summary: "the newline framer of every JSON-RPC pipe (ExtensionTransport.LineFramer)",
    maximumLength: 1024
  ) { bytes in
    guard bytes.count >= 2 else { return [] }
    let limit = Int(bytes[0] % 64) + 1
    let piece = Int(bytes[1] % 17) + 1
    let stream = bytes[2...]
    var whole = LineFramer(limit: limit)
    let expected = whole.feed(stream)
    var pieces = LineFramer(limit: limit)
    var events: [LineFramer.Event] = []
    var problems: [String] = []
    var start = stream.startIndex
    while start < stream.endIndex {
      let end = min(start + piece, stream.endIndex)
      events += pieces.feed(stream[start..<end])
      if pieces.bufferedCount > limit + 1 {
        problems.append("holds \(pieces.bufferedCount) bytes with a limit of \(limit)")
      }
      start = end
    }
    if events != expected { problems.append("events differ when fed in pieces of \(piece) bytes") }
    return problems + framedProblems(events, limit: limit)
  }

  /// The properties of a framer's messages: none empty, none longer than `limit`, none holding a newline.
  package static func framedProblems(_ events: [LineFramer.Event], limit: Int) -> [String] {
    var problems: [String] = []
    for case .message(let message) in events {
      if message.isEmpty { problems.append("an empty message") }
      if message.count > limit { problems.append("a message of \(message.count) bytes past the limit \(limit)") }
      if message.contains(0x0A) { problems.append("a message with a newline") }
    }
    return problems
  }

  /// Every JSON-RPC message either side may send: the header, then the parameters of the request or notification
  /// it names, and the result as the response of every request.
  static let jsonRPC = FuzzTarget(
    name: "jsonrpc", summary: "every JSON-RPC message of docs/PROTOCOL.md (ExtensionProtocol)"
  ) { bytes in
    let data = Data(bytes)
    let decoder = WireCoding.decoder()
    guard let header = try? decoder.decode(MessageHeader.self, from: data) else { return [] }
    func params<Message: RequestMessage>(_ type: Message.Type) {
      _ = try? decoder.decode(RequestEnvelope<Message>.self, from: data)
      _ = try? decoder.decode(ResultEnvelope<Message.Response>.self, from: data)
    }
    func params<Message: NotificationMessage>(_ type: Message.Type) {
      _ = try? decoder.decode(NotificationEnvelope<Message>.self, from: data)
    }
    if let method = header.method {
      if let type = MessageRegistry.requestType(for: method) { params(type) }
      if let type = MessageRegistry.notificationType(for: method) { params(type) }
    } else {
      for type in MessageRegistry.requests + MessageRegistry.variants { params(type) }
    }
    return []
  }

  /// The one sanitizer: nothing unsafe survives it, and a stream sanitized in pieces reads as the whole.
  static let sanitizer = FuzzTarget(
    name: "sanitizer", summary: "the one sanitizer of untrusted text (UntrustedText)", maximumLength: 1024
  ) { bytes in
    guard let first = bytes.first else { return [] }
    let multiline = first & 1 == 1
    let piece = Int(first >> 1) % 7 + 1
    let text = bytes.dropFirst()
    let whole = Untrusted.sanitized(bytes: text, multiline: multiline)
    var problems = unsafeProblems(whole, multiline: multiline, by: "the sanitizer")
    var stream = Untrusted.StreamSanitizer(multiline: multiline)
    var streamed = ""
    var start = text.startIndex
    while start < text.endIndex {
      let end = min(start + piece, text.endIndex)
      streamed += stream.text(text[start..<end])
      start = end
    }
    streamed += stream.finish()
    problems += unsafeProblems(streamed, multiline: multiline, by: "the stream sanitizer")
    // Valid UTF-8 split anywhere reads the same as a whole (invalid sequences may split their U+FFFD differently).
    if String(validating: Array(text), as: UTF8.self) != nil, streamed != whole {
      problems.append("valid UTF-8 in pieces of \(piece) bytes is sanitized differently from the whole")
    }
    return problems
  }

  /// The first character of `shown` that a terminal would act on, as a problem of `sanitizer`.
  package static func unsafeProblems(_ shown: String, multiline: Bool, by sanitizer: String) -> [String] {
    guard let unsafe = shown.unicodeScalars.first(where: { Untrusted.isUnsafe($0, multiline: multiline) }) else {
      return []
    }
    return ["U+\(String(unsafe.value, radix: 16, uppercase: true)) passes \(sanitizer)"]
  }

  /// A target for a property list file named `file`, read into its model by `model`.
  static func propertyList(
    _ name: String, _ summary: String, file: String, model: @escaping @Sendable (PlistDictionary) throws -> Void
  ) -> FuzzTarget {
    FuzzTarget(name: name, summary: summary) { bytes in
      guard let dictionary = try? PlistDictionary.parse(Data(bytes), file: file) else { return [] }
      _ = try? model(dictionary)
      return []
    }
  }

  /// An Info.plist, XML or binary, and the model of it.
  static let plist = propertyList(
    "plist", "Info.plist files, XML and binary (BundleManifest.InfoPlist)", file: "Info.plist"
  ) { _ = try InfoPlist($0) }

  /// An entitlements file, and the form of each read-only path it grants.
  static let entitlements = FuzzTarget(
    name: "entitlements", summary: "entitlements files and their read-only paths (BundleManifest.Entitlements)"
  ) { bytes in
    guard let dictionary = try? PlistDictionary.parse(Data(bytes), file: "App.entitlements"),
      let entitlements = try? Entitlements(dictionary)
    else { return [] }
    return entitlements.readOnlyPaths.filter { Entitlements.readOnlyPathProblem($0) == nil }.flatMap(
      acceptedPathProblems)
  }

  /// Why a read-only path that was accepted must not have been: relative, with a `.` or `..` component, or with a
  /// control character.
  package static func acceptedPathProblems(_ path: String) -> [String] {
    var problems: [String] = []
    let components = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    if !path.hasPrefix("/") || components.contains(where: { $0 == "." || $0 == ".." }) {
      problems.append("the read-only path \(Untrusted.sanitized(path)) is accepted")
    }
    if path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
      problems.append("a read-only path with a control character is accepted")
    }
    return problems
  }

  /// An `.intentdefinition` file, the model of its intents, enums, types and responses, and the typed Swift that
  /// IntentCodegen writes of it: refused with an error, or lines of printable ASCII only (every name of the file in
  /// it is an identifier or an escaped literal, so none can end a comment or a literal).
  static let intentDefinition = FuzzTarget(
    name: "intentdefinition",
    summary: "intent definitions (BundleManifest.IntentDefinition) and their typed Swift (IntentCodegen)"
  ) { bytes in
    guard let dictionary = try? PlistDictionary.parse(Data(bytes), file: "Intents.intentdefinition"),
      let definition = try? IntentDefinition(dictionary)
    else { return [] }
    do {
      return generatedSourceProblems(try IntentSourceGenerator.source(for: [definition]))
    } catch {
      return []  // A definition that cannot be Swift is refused with its error: that is the property.
    }
  }

  /// Why generated Swift is unsafe: a character outside printable ASCII and newline.
  package static func generatedSourceProblems(_ source: String) -> [String] {
    let unsafe = source.unicodeScalars.first { $0 != "\n" && !(" "..."~").contains($0) }
    return unsafe.map { ["the generated Swift holds U+\(String($0.value, radix: 16, uppercase: true))"] } ?? []
  }

  /// An `AppIntentVocabulary.plist`.
  static let vocabulary = propertyList(
    "vocabulary", "global vocabularies (BundleManifest.Vocabulary)", file: "AppIntentVocabulary.plist"
  ) { _ = try Vocabulary($0) }

  /// A `.strings` table.
  static let strings = FuzzTarget(
    name: "strings", summary: "strings tables (BundleManifest.StringsTable)"
  ) { bytes in
    _ = try? StringsTable.parse(Data(bytes), url: URL(fileURLWithPath: "/fr.lproj/Intents.strings"))
    return []
  }

  /// An app group document as a crash or a hostile process may leave it: the checkpoint is the bytes before the
  /// first NUL, the journal what follows. A document that cannot be read is readable after `recover()`.
  static let journal = FuzzTarget(
    name: "journal", summary: "an app group document's checkpoint and journal (AppGroupStore.Document)",
    maximumLength: 16 << 10
  ) { bytes in
    Scratch.empty()
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    _ = Scratch.write(bytes[..<split], to: "state.json")
    if split < bytes.endIndex { _ = Scratch.write(bytes[(split + 1)...], to: ".state.json.journal") }
    let document = Document<AnyDocumentContent>(path: Scratch.folder + "/state.json")
    do {
      _ = try document.read()
      return []
    } catch {}
    do {
      _ = try document.recover()
    } catch {
      return ["recover() failed: \(Untrusted.sanitized(String(describing: error)))"]
    }
    do {
      _ = try Document<AnyDocumentContent>(path: Scratch.folder + "/state.json").read()
      return []
    } catch {
      return ["unreadable after recover(): \(Untrusted.sanitized(String(describing: error)))"]
    }
  }

  /// An executable or library the sandbox reads for its loader and libraries.
  static let elf = FuzzTarget(
    name: "elf", summary: "ELF executables and libraries (AssistantHost's ELF reader)", maximumLength: 64 << 10
  ) { bytes in
    let path = Scratch.write(bytes, to: "program")
    guard let info = ELFInfo.read(path) else { return [] }
    return info.needed.count > ELFInfo.entryLimit ? ["\(info.needed.count) libraries read"] : []
  }

  /// A transcript given to `replay`.
  static let transcript = FuzzTarget(
    name: "transcript", summary: "transcripts of --record given to replay (AssistantHost.Transcript)"
  ) { bytes in
    _ = try? Transcript.parse(String(decoding: bytes, as: UTF8.self), file: "book.jsonl")
    return []
  }

  /// App Intents metadata: the bytes before the first NUL are `extract.actionsdata`, the rest an
  /// `AppShortcuts.strings`; the reader and the validator never trap, and what the reader accepts, the writer writes
  /// in bytes that read back to the same document, with no key the reader does not read, and that are stable.
  static let appIntentsMetadata = FuzzTarget(
    name: "appintents-metadata",
    summary: "App Intents metadata and App Shortcut phrases (AppIntentsMetadata's reader, writer and validator)"
  ) { bytes in
    let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
    guard let reading = try? MetadataReader.read(bytes[..<split], file: "extract.actionsdata") else { return [] }
    var strings: [AppShortcutsStrings] = []
    if split < bytes.endIndex,
      let table = try? StringsTable.parse(
        Data(bytes[(split + 1)...]), url: URL(fileURLWithPath: "/en.lproj/AppShortcuts.strings"))
    {
      strings.append(AppShortcutsStrings(file: table.file, language: table.language, strings: table.strings))
    }
    _ = MetadataValidator.validate(reading.document, file: "extract.actionsdata", strings: strings)
    return roundTripProblems(reading)
  }

  /// Why the document of `reading` does not survive the writer: its canonical bytes are refused by the reader (with
  /// no size limit: the writer spells out defaults a file may leave out), read back to another document or with a
  /// note the first reading did not have (an unknown value type is kept, and noted again), or are not written again
  /// the same.
  package static func roundTripProblems(_ reading: MetadataReading) -> [String] {
    let document = reading.document
    let written = document.canonicalEncoding()
    let limits = MetadataLimits(maximumBytes: .max, maximumDepth: MetadataLimits.standard.maximumDepth)
    let again: MetadataReading
    do {
      again = try MetadataReader.read(written, file: "written", limits: limits)
    } catch {
      return ["the reader refuses what the writer wrote: \(Untrusted.sanitized(error.description))"]
    }
    var problems: [String] = []
    if again.document != document { problems.append("what the writer wrote reads back to another document") }
    // (The note that counts the notes left out past the reader's limit has no path, and may count others.)
    let noted = Set(reading.findings.map { [$0.path, $0.message] })
    if again.findings.contains(where: { !$0.path.isEmpty && !noted.contains([$0.path, $0.message]) }) {
      problems.append("what the writer wrote has a key the reader does not read")
    }
    if again.document.canonicalEncoding() != written { problems.append("the writer writes the document differently") }
    return problems
  }
}
