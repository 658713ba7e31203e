import Foundation
import NameSuggestions
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A problem with a manifest file: which file, where in it, what is wrong, and how to fix it.
public struct ManifestError: Error, Sendable, CustomStringConvertible, Equatable {
  public var file: String
  /// A key path inside the file, e.g. "NSExtension.NSExtensionAttributes.IntentsSupported"; empty for the whole file.
  public var keyPath: String
  public var problem: String
  public var fix: String?

  public init(file: String, keyPath: String = "", problem: String, fix: String? = nil) {
    self.file = file
    self.keyPath = keyPath
    self.problem = problem
    self.fix = fix
  }

  public var description: String {
    var text = file
    if !keyPath.isEmpty { text += ": \(keyPath)" }
    text += ": \(problem)"
    if let fix { text += " (\(fix))" }
    return text
  }
}

/// A property-list dictionary with typed, error-reporting accessors. Knows its file and key path for messages.
public struct PlistDictionary: @unchecked Sendable {
  // @unchecked: `values` holds only immutable property-list objects (String, NSNumber, Bool, Data, Date, arrays and
  // dictionaries of them) decoded by PropertyListSerialization and never mutated after init.
  public let values: [String: Any]
  public let file: String
  public let path: String
  /// The keys the model asked this file for, shared by the root and every dictionary read from it.
  let reads: KeyReads

  public init(values: [String: Any], file: String, path: String = "") {
    self.init(values: values, file: file, path: path, reads: KeyReads())
  }

  init(values: [String: Any], file: String, path: String, reads: KeyReads) {
    self.values = values
    self.file = file
    self.path = path
    self.reads = reads
    reads.visit(path)
  }

  /// Reads a property list (XML, binary or old-style) whose root is a dictionary.
  /// - Throws: `ManifestError` naming the file for a missing file, a parse error or a non-dictionary root.
  public static func load(contentsOf url: URL, maximumSize: Int = 16 << 20) throws -> PlistDictionary {
    let file = url.path
    let data: Data
    do {
      // stat(2), not FileManager.attributesOfItem, which looks up the owner's name in /etc/passwd and /etc/group.
      var info = stat()
      if stat(file, &info) == 0, info.st_size > maximumSize {
        let size = info.st_size
        throw ManifestError(file: file, problem: "is \(size) bytes, larger than the \(maximumSize)-byte limit")
      }
      data = try Data(contentsOf: url)
    } catch let error as ManifestError {
      throw error
    } catch {
      throw ManifestError(file: file, problem: "cannot be read: \((error as NSError).localizedDescription)")
    }
    return try parse(data, file: file)
  }

  /// Parses property-list bytes whose root is a dictionary.
  public static func parse(_ data: Data, file: String) throws -> PlistDictionary {
    if data.isEmpty { throw ManifestError(file: file, problem: "is empty", fix: "write a property list into it") }
    let object: Any
    do {
      object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
      let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
      throw ManifestError(
        file: file, problem: "is not a valid property list: \(detail)", fix: checkAgainFix(file))
    }
    guard let dictionary = object as? [String: Any] else {
      throw ManifestError(
        file: file, problem: "has \(withArticle(typeName(of: object))) at its root, expected a dictionary")
    }
    return PlistDictionary(values: dictionary, file: file)
  }

  /// The fix of a parse error: the parser's reason (and line, for XML) is in the message; the command checks the
  /// file again, on Linux as on macOS (no `plutil`).
  static func checkAgainFix(_ file: String) -> String {
    "correct it where the parser says, then check it again with `assistant validate \(shellQuoted(file))`"
  }

  func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  /// The value of `key`, recorded as a key the model reads here (`misspeltKeys`).
  private func lookUp(_ key: String) -> Any? {
    reads.record(key, at: path)
    return values[key]
  }

  /// A key of this dictionary, not one the model reads, that is likely a misspelling of `key` (`KeyReads.reach`).
  func misspelling(of key: String) -> String? {
    closestNames(to: key, among: values.keys.filter { $0 != key }, maximumEdits: KeyReads.reach(key)).first
  }

  /// The keys of the file that are likely misspellings of keys the model reads: in every dictionary the model read
  /// (this one and those below it), each key the model did not ask for that is within `KeyReads.reach` of a key it
  /// asked for there and did not find. Call it on the root, once the model has read the file.
  public func misspeltKeys() -> [MisspeltKey] {
    let asked = reads.asked
    var found: [MisspeltKey] = []
    func walk(_ values: [String: Any], at path: String) {
      let join = { (key: String) in path.isEmpty ? key : "\(path).\(key)" }
      if let known = asked[path] {
        let absent = known.filter { values[$0] == nil }.sorted()
        for key in values.keys.sorted() where !known.contains(key) {
          // Xcode pairs a text's key with its localisation ID's (`…DisplayName`, `…DisplayNameID`): one of those is
          // never a misspelling of the other.
          let candidates = absent.filter { $0 + "ID" != key && key + "ID" != $0 }
          if let meant = closestNames(to: key, among: candidates, maximumEdits: KeyReads.reach(key)).first {
            found.append(MisspeltKey(keyPath: join(key), key: key, meant: meant, meantKeyPath: join(meant)))
          }
        }
      }
      for (key, value) in values {
        if let dictionary = value as? [String: Any] {
          walk(dictionary, at: join(key))
        } else if let array = value as? [Any] {
          for (index, element) in array.enumerated() {
            if let dictionary = element as? [String: Any] { walk(dictionary, at: join("\(key)[\(index)]")) }
          }
        }
      }
    }
    walk(values, at: path)
    return found.sorted { $0.keyPath < $1.keyPath }
  }

  func error(_ key: String, _ problem: String, fix: String? = nil) -> ManifestError {
    ManifestError(file: file, keyPath: keyPath(key), problem: problem, fix: fix)
  }

  public func has(_ key: String) -> Bool { lookUp(key) != nil }

  /// A string value; nil when absent.
  public func string(_ key: String) throws -> String? {
    guard let value = lookUp(key) else { return nil }
    guard let string = value as? String else {
      throw error(key, "is \(withArticle(typeName(of: value))), expected a string")
    }
    return string
  }

  /// A string value that must be present and non-empty.
  public func requiredString(_ key: String, fix: String? = nil) throws -> String {
    guard let value = try string(key) else {
      if let typo = misspelling(of: key) {
        throw error(
          key, "is missing, and the file has \(typo), which IntentHost does not read", fix: "rename \(typo) to \(key)")
      }
      throw error(key, "is missing", fix: fix)
    }
    if value.isEmpty { throw error(key, "is empty", fix: fix) }
    return value
  }

  /// A boolean, accepting `<true/>`, `<false/>`, integers 0/1 and the strings "YES"/"NO"/"true"/"false"
  /// (Xcode writes flags both ways). Absent means `defaultValue`.
  public func bool(_ key: String, default defaultValue: Bool = false) throws -> Bool {
    guard let value = lookUp(key) else { return defaultValue }
    if let bool = value as? Bool { return bool }
    if let number = value as? NSNumber { return number.intValue != 0 }
    if let string = value as? String {
      switch string.lowercased() {
      case "yes", "true", "1": return true
      case "no", "false", "0": return false
      default: break
      }
    }
    throw error(key, "is \(describe(value)), expected a boolean")
  }

  /// An integer; absent means nil.
  public func integer(_ key: String) throws -> Int? {
    guard let value = lookUp(key) else { return nil }
    if isBoolean(value) { throw error(key, "is a boolean, expected an integer") }
    if let number = value as? NSNumber { return number.intValue }
    if let string = value as? String, let number = Int(string) { return number }
    throw error(key, "is \(describe(value)), expected an integer")
  }

  /// An array of strings; absent means [].
  public func strings(_ key: String) throws -> [String] {
    guard let value = lookUp(key) else { return [] }
    guard let array = value as? [Any] else {
      throw error(key, "is \(withArticle(typeName(of: value))), expected an array")
    }
    return try array.enumerated().map { index, element in
      guard let string = element as? String else {
        throw error("\(key)[\(index)]", "is \(withArticle(typeName(of: element))), expected a string")
      }
      return string
    }
  }

  /// A nested dictionary; absent means nil.
  public func dictionary(_ key: String) throws -> PlistDictionary? {
    guard let value = lookUp(key) else { return nil }
    guard let dictionary = value as? [String: Any] else {
      throw error(key, "is \(withArticle(typeName(of: value))), expected a dictionary")
    }
    return PlistDictionary(values: dictionary, file: file, path: keyPath(key), reads: reads)
  }

  /// An array of dictionaries; absent means [].
  public func dictionaries(_ key: String) throws -> [PlistDictionary] {
    guard let value = lookUp(key) else { return [] }
    guard let array = value as? [Any] else {
      throw error(key, "is \(withArticle(typeName(of: value))), expected an array")
    }
    return try array.enumerated().map { index, element in
      guard let dictionary = element as? [String: Any] else {
        throw error("\(key)[\(index)]", "is \(withArticle(typeName(of: element))), expected a dictionary")
      }
      return PlistDictionary(values: dictionary, file: file, path: keyPath("\(key)[\(index)]"), reads: reads)
    }
  }

  /// A value of any type as text (for polymorphic keys such as default values).
  public func scalarText(_ key: String) -> String? {
    guard let value = lookUp(key) else { return nil }
    if isBoolean(value), let bool = value as? Bool { return bool ? "true" : "false" }
    if let string = value as? String { return string }
    if let number = value as? NSNumber { return number.stringValue }
    return nil
  }
}

/// A key of a manifest that is likely a misspelling of one the model reads (`PlistDictionary.misspeltKeys`).
public struct MisspeltKey: Sendable, Equatable {
  /// Where the misspelt key is, e.g. "NSExtension.NSExtensionAtributes".
  public var keyPath: String
  /// The key as written, e.g. "NSExtensionAtributes".
  public var key: String
  /// The key it likely means, e.g. "NSExtensionAttributes".
  public var meant: String
  /// Where the meant key would be, e.g. "NSExtension.NSExtensionAttributes".
  public var meantKeyPath: String
}

/// The keys the model asked one property list for, by the key path of each dictionary it read: the keys "the model
/// knows" there, taken from the parsers' own reads, so that the list cannot drift from them.
final class KeyReads: Sendable {
  private let table = Mutex<[String: Set<String>]>([:])

  /// Notes that the model read the dictionary at `path` (even if it asked it for no key).
  func visit(_ path: String) { table.withLock { _ = $0[path, default: []] } }

  func record(_ key: String, at path: String) { table.withLock { _ = $0[path, default: []].insert(key) } }

  /// The keys asked for, by the path of their dictionary.
  var asked: [String: Set<String>] { table.withLock { $0 } }

  /// How many edits a key may be from the one it means: none for a key of fewer than 6 characters, 1 up to 11, 2
  /// from 12 (Apple's keys are long, and many differ from another in a word, not a letter).
  static func reach(_ key: String) -> Int { key.count < 6 ? 0 : key.count < 12 ? 1 : 2 }
}

func typeName(of value: Any) -> String {
  switch value {
  case is String: return "string"
  case _ where isBoolean(value): return "boolean"
  case is NSNumber: return "number"
  case is [Any]: return "array"
  case is [String: Any]: return "dictionary"
  case is Data: return "data"
  case is Date: return "date"
  default: return "\(type(of: value))"
  }
}

func describe(_ value: Any) -> String {
  if let string = value as? String { return "\"\(string)\"" }
  return withArticle(typeName(of: value))
}

/// `path` as one shell word: as it is when it holds only characters no shell treats specially, else in single quotes.
public func shellQuoted(_ path: String) -> String {
  let plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%="
  if !path.isEmpty && path.allSatisfy({ plain.contains($0) }) { return path }
  return "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// "a string", "an array".
func withArticle(_ noun: String) -> String {
  ("aeiou".contains(noun.first ?? "x") ? "an " : "a ") + noun
}

/// Whether a property-list value is a real boolean (`<true/>`), not an integer that casts to Bool.
func isBoolean(_ value: Any) -> Bool {
  type(of: value) == Bool.self
}
