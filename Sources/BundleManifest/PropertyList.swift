import Foundation

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

  public init(values: [String: Any], file: String, path: String = "") {
    self.values = values
    self.file = file
    self.path = path
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

  func error(_ key: String, _ problem: String, fix: String? = nil) -> ManifestError {
    ManifestError(file: file, keyPath: keyPath(key), problem: problem, fix: fix)
  }

  public func has(_ key: String) -> Bool { values[key] != nil }

  /// A string value; nil when absent.
  public func string(_ key: String) throws -> String? {
    guard let value = values[key] else { return nil }
    guard let string = value as? String else {
      throw error(key, "is \(withArticle(typeName(of: value))), expected a string")
    }
    return string
  }

  /// A string value that must be present and non-empty.
  public func requiredString(_ key: String, fix: String? = nil) throws -> String {
    guard let value = try string(key) else { throw error(key, "is missing", fix: fix) }
    if value.isEmpty { throw error(key, "is empty", fix: fix) }
    return value
  }

  /// A boolean, accepting `<true/>`, `<false/>`, integers 0/1 and the strings "YES"/"NO"/"true"/"false"
  /// (Xcode writes flags both ways). Absent means `defaultValue`.
  public func bool(_ key: String, default defaultValue: Bool = false) throws -> Bool {
    guard let value = values[key] else { return defaultValue }
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
    guard let value = values[key] else { return nil }
    if isBoolean(value) { throw error(key, "is a boolean, expected an integer") }
    if let number = value as? NSNumber { return number.intValue }
    if let string = value as? String, let number = Int(string) { return number }
    throw error(key, "is \(describe(value)), expected an integer")
  }

  /// An array of strings; absent means [].
  public func strings(_ key: String) throws -> [String] {
    guard let value = values[key] else { return [] }
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
    guard let value = values[key] else { return nil }
    guard let dictionary = value as? [String: Any] else {
      throw error(key, "is \(withArticle(typeName(of: value))), expected a dictionary")
    }
    return PlistDictionary(values: dictionary, file: file, path: keyPath(key))
  }

  /// An array of dictionaries; absent means [].
  public func dictionaries(_ key: String) throws -> [PlistDictionary] {
    guard let value = values[key] else { return [] }
    guard let array = value as? [Any] else {
      throw error(key, "is \(withArticle(typeName(of: value))), expected an array")
    }
    return try array.enumerated().map { index, element in
      guard let dictionary = element as? [String: Any] else {
        throw error("\(key)[\(index)]", "is \(withArticle(typeName(of: element))), expected a dictionary")
      }
      return PlistDictionary(values: dictionary, file: file, path: keyPath("\(key)[\(index)]"))
    }
  }

  /// A value of any type as text (for polymorphic keys such as default values).
  public func scalarText(_ key: String) -> String? {
    guard let value = values[key] else { return nil }
    if isBoolean(value), let bool = value as? Bool { return bool ? "true" : "false" }
    if let string = value as? String { return string }
    if let number = value as? NSNumber { return number.stringValue }
    return nil
  }
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
