/// The app group's shared defaults (`UserDefaults(suiteName: "group.…")`): a JSON object of keys, in
/// `Library/Preferences/GROUP.json` inside the container, where iOS keeps the suite's plist.
///
/// Every call is one locked read or one durable update, so values written by the app are seen at once by its
/// extensions, and no write is lost (unlike `UserDefaults` suites without `synchronize`).
public struct SharedDefaults: Sendable {
  public let document: Document<DefaultsContent>

  public init(document: Document<DefaultsContent>) {
    self.document = document
  }

  /// The value of `key`, or nil.
  public func value(forKey key: String) throws(StoreError) -> JSONValue? {
    try document.read().values[key]
  }

  /// The value of `key` when it is an integer, else nil.
  public func integer(forKey key: String) throws(StoreError) -> Int? {
    if case .integer(let value)? = try value(forKey: key) { return value }
    return nil
  }

  /// The value of `key` when it is a string, else nil.
  public func string(forKey key: String) throws(StoreError) -> String? {
    if case .string(let value)? = try value(forKey: key) { return value }
    return nil
  }

  /// The value of `key` when it is a Boolean, else nil.
  public func bool(forKey key: String) throws(StoreError) -> Bool? {
    if case .bool(let value)? = try value(forKey: key) { return value }
    return nil
  }

  /// Sets `key` to `value`; nil removes it.
  public func set(_ value: JSONValue?, forKey key: String) throws {
    try document.update { $0.values[key] = value }
  }

  /// Every key and value.
  public func dictionaryRepresentation() throws(StoreError) -> [String: JSONValue] {
    try document.read().values
  }
}

/// The content of the shared defaults document: keys and values, stored as the document's JSON object.
public struct DefaultsContent: DocumentContent, Equatable {
  public static let schemaVersion = 1
  public var values: [String: JSONValue]

  public init() { values = [:] }

  public init(from decoder: any Decoder) throws {
    values = try [String: JSONValue](from: decoder)
  }

  public func encode(to encoder: any Encoder) throws {
    try values.encode(to: encoder)
  }
}
