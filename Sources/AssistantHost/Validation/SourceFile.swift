import BundleManifest
import Foundation
import IntentHostSystem
import Understanding

extension Validator {
  /// One file on its own: it must parse, and the rules that need no other file apply. Build settings that cannot be
  /// resolved are notes here (errors in a bundle), since Xcode expands them at build time. A file whose name does
  /// not say what it is (`ManifestKind(fileName:)`) is read, at most `maximumManifestSize` bytes and never through a
  /// link, and recognised by its content; one that is no manifest is `unknown-file`, saying what content would be.
  package func validateFile(_ file: URL) -> [Diagnostic] {
    do {
      let source: SourceFile
      if let kind = ManifestKind(fileName: file.lastPathComponent) {
        source = SourceFile(url: file, kind: kind)
      } else {
        let plist = try PlistDictionary.parse(
          Data(try Self.readContent(of: file) { _, all in try all() }), file: file.path)
        guard let kind = ManifestKind(recognising: plist) else {
          return [
            Diagnostic(
              .warning, .unknownFile, file: file.path,
              "is a property list, but neither its name nor its content says which manifest it is",
              fix: "name it \(ManifestKind.recognisedNames); or give it the keys of its kind: "
                + ManifestKind.recognisableContent)
          ]
        }
        source = SourceFile(url: file, kind: kind, plist: plist)
      }
      switch try load(source) {
      case .info(let info): return info.diagnostics + fileRules(info)
      case .entitlements(let entitlements): return entitlements.diagnostics + readOnlyPathRules(entitlements)
      case .definition(let definition): return definitionRules(definition)
      case .vocabulary(let vocabulary): return vocabularyFileRules(vocabulary)
      case .strings: return []
      }
    } catch let error as ManifestError {
      return [Diagnostic(error)]
    } catch {
      return [Diagnostic(.error, .plist, file: file.path, "\(error)")]
    }
  }

  /// The most bytes a manifest recognised by its content may have (`PlistDictionary.load`'s limit).
  static let maximumManifestSize = 16 << 20

  /// A manifest file of a source folder or given on its own: what it is, and its property list when its content
  /// said so (it is then read once, not again by name).
  struct SourceFile {
    var url: URL
    var kind: ManifestKind
    var plist: PlistDictionary?
  }

  /// A loaded manifest.
  enum Manifest {
    case info(InfoPlist)
    case entitlements(Entitlements)
    case definition(IntentDefinition)
    case vocabulary(Vocabulary)
    case strings(StringsTable)
  }

  /// Loads a source file as its kind, expanding build settings (`--setting`, the folder's BuildSettings.xcconfig)
  /// in an Info.plist or entitlements; a reference without a value is a note.
  /// - Throws: `ManifestError` for a file that does not parse or a key of the wrong type.
  func load(_ source: SourceFile) throws -> Manifest {
    let file = source.url
    func settings() throws -> BuildSettings {
      try BuildSettings.forBundle(at: file.deletingLastPathComponent(), explicit: self.settings)
    }
    func plist() throws -> PlistDictionary { try source.plist ?? PlistDictionary.load(contentsOf: file) }
    switch source.kind {
    case .infoPlist: return .info(try InfoPlist(plist(), settings: settings(), unresolved: .note))
    case .entitlements: return .entitlements(try Entitlements(plist(), settings: settings(), unresolved: .note))
    case .intentDefinition: return .definition(try IntentDefinition(plist()))
    case .vocabulary: return .vocabulary(try Vocabulary(plist()))
    case .strings: return .strings(try StringsTable.load(contentsOf: file))
    }
  }

  /// Opens `file` to read its content, without following a link (`O_NOFOLLOW`) and without waiting on a FIFO
  /// (`O_NONBLOCK`), and refuses it unless it is a regular file; `body` gets up to its first 4 KiB, and a function
  /// that reads the whole file (those bytes and the rest), at most `maximumManifestSize` bytes.
  /// - Throws: `ManifestError` naming the file: a link, not a regular file, too large, or unreadable; what `body`
  ///   throws.
  static func readContent<Result>(
    of file: URL, _ body: (_ head: [UInt8], _ whole: () throws -> [UInt8]) throws -> Result
  ) throws -> Result {
    let path = file.path
    let tooLarge = "larger than the \(maximumManifestSize)-byte limit"
    func refusal(_ error: SystemError) -> ManifestError {
      switch error.code {
      case ELOOP:
        return ManifestError(
          file: path, problem: "is a symbolic link, and a file is recognised by its content only when it is not one",
          fix: "validate the file it points to, or name it \(ManifestKind.recognisedNames)")
      case EFBIG:
        return ManifestError(file: path, problem: "is \(tooLarge)")
      default:
        return ManifestError(file: path, problem: "cannot be read: \(error)")
      }
    }
    let descriptor: FileDescriptor
    let status: FileStatus
    do throws(SystemError) {
      descriptor = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
    } catch {
      throw refusal(error)
    }
    defer { descriptor.close() }
    do throws(SystemError) { status = try descriptor.status() } catch { throw refusal(error) }
    guard status.kind == .regular else {
      throw ManifestError(
        file: path, problem: "is \(status.kind), not a regular file, so its content is not read",
        fix: "validate a regular file")
    }
    var head = [UInt8](repeating: 0, count: 4096)
    do throws(SystemError) {
      head.removeSubrange(try descriptor.read(into: &head)...)
    } catch {
      throw refusal(error)
    }
    return try body(head) {
      if status.size > maximumManifestSize {
        throw ManifestError(file: path, problem: "is \(status.size) bytes, \(tooLarge)")
      }
      do throws(SystemError) {
        let whole = head + (try descriptor.readAll(limit: maximumManifestSize))
        // The file may have grown since fstat.
        guard whole.count <= maximumManifestSize else { throw SystemError(code: EFBIG, operation: "read") }
        return whole
      } catch {
        throw refusal(error)
      }
    }
  }

  /// Whether bytes begin as a property list: a binary one (`bplist`), or XML (after a byte-order mark and white
  /// space) whose start names `<plist` or its DOCTYPE. Old-style (text) property lists are `.strings` tables, which
  /// only their name makes manifests.
  static func looksLikePropertyList(_ head: [UInt8]) -> Bool {
    if head.starts(with: Array("bplist".utf8)) { return true }
    var text = Substring(decoding: head, as: UTF8.self)
    if text.first == "\u{FEFF}" { text = text.dropFirst() }
    guard text.drop(while: \.isWhitespace).first == "<" else { return false }
    return text.contains("<plist") || text.contains("DOCTYPE plist")
  }
}
