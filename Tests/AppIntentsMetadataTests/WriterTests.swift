import AppIntentsMetadata
import Foundation
import TestSupport
import Testing

/// The writer: a document's canonical encoding reads back to the same document, its bytes depend only on what the
/// document says, and the digest is SHA-256 of them.
@Suite(.tags(.unit))
struct MetadataWriterTests {
  static let files = [
    AppIntentsFixtures.weather, AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.seedPhrases),
    AppIntentsFixtures.fuelOrder(phrases: AppIntentsFixtures.correctedPhrases),
  ]

  @Test(arguments: 0..<files.count)
  func whatItWritesReadsBackIdentically(_ index: Int) throws {
    let document = try read(Self.files[index]).document
    let written = document.canonicalEncoding()
    let again = try MetadataReader.read(written, file: "again")
    #expect(again.document == document)
    #expect(again.findings.isEmpty, "\(again.findings)")
    #expect(again.document.canonicalEncoding() == written)
  }

  @Test func theCanonicalFormIsCompactWithSortedKeys() throws {
    var document = MetadataDocument()
    document.actions[id("Zed")] = MetadataDocument.Action(
      identifier: id("Zed"), title: MetadataDocument.LocalizedText("Say \"hi\"\\\n\u{1}é", alternatives: ["b"]))
    #expect(
      String(decoding: document.canonicalEncoding(), as: UTF8.self)
        == #"{"actions":{"Zed":{"authenticationPolicy":0,"identifier":"Zed","openAppWhenRun":false,"parameters":[],"#
        + #""title":{"alternatives":["b"],"key":"Say \"hi\"\\\n\u0001é"},"visibilityMetadata":{"isDiscoverable":true}}},"#
        + #""autoShortcuts":[],"entities":{},"enums":[],"negativePhrases":[],"queries":{},"version":1}"#)
  }

  @Test func keysAreSortedByTheirBytesNotByStringComparison() throws {
    // "é" (U+00E9) sorts after "z" by bytes and by scalars, as Python sorts it.
    let json = MetadataJSON.object(["z": .integer(1), "é": .integer(2), "Z": .integer(3), "a\u{301}": .integer(4)])
    var document = MetadataDocument()
    document.actions[id("A")] = MetadataDocument.Action(identifier: id("A"), title: nil, actionConfiguration: json)
    let text = String(decoding: document.canonicalEncoding(), as: UTF8.self)
    #expect(text.contains(#"{"Z":3,"a\#u{301}":4,"z":1,"é":2}"#), "\(text)")
  }

  @Test func numbersKeepTheirKind() throws {
    let json = MetadataJSON.array([.integer(-3), .number(1.0), .number(0.5), .number(1e-5), .number(1e16)])
    var document = MetadataDocument()
    document.actions[id("A")] = MetadataDocument.Action(identifier: id("A"), title: nil, actionConfiguration: json)
    let text = String(decoding: document.canonicalEncoding(), as: UTF8.self)
    #expect(text.contains("[-3,1.0,0.5,1e-05,1e+16]"), "\(text)")
    #expect(try MetadataReader.read(document.canonicalEncoding(), file: "f").document == document)
  }

  /// The digest names what the document says: not its layout, its key order, the defaults it leaves out, or keys
  /// IntentHost does not read. The control: a changed title changes it.
  @Test func theDigestDependsOnlyOnWhatTheDocumentSays() throws {
    let plain = try read(AppIntentsFixtures.weather).document
    let relaid = AppIntentsFixtures.weather.replacingOccurrences(of: "\n", with: "").replacingOccurrences(
      of: #""openAppWhenRun": false, "#, with: ""
    )
    .replacingOccurrences(of: #""outputFlags": 8,"#, with: #""outputFlags": 8, "someFutureKey": {"a": 1},"#)
    let other = try read(relaid)
    #expect(other.document.digest == plain.digest)
    #expect(other.findings.map(\.path) == ["actions.OpenMoonIntent.someFutureKey"])
    let retitled = try read(
      AppIntentsFixtures.weather.replacingOccurrences(of: "Open Moon Details", with: "Open Moon Detail")
    ).document
    #expect(retitled.digest != plain.digest)
    #expect(plain.digest.count == 64 && plain.digest.allSatisfy { "0123456789abcdef".contains($0) })
    #expect(plain.digest == SHA256.hexDigest(plain.canonicalEncoding()))
  }

  /// The digest of Apple's Weather document is pinned: a change of the canonical encoding changes every installed
  /// extension's digest, so it must be deliberate (and checked against Python's `json.dumps(..., sort_keys=True,
  /// separators=(",", ":"), ensure_ascii=False)`, which gives the same bytes).
  @Test func theWeatherDigestIsPinned() throws {
    let document = try read(AppIntentsFixtures.weather).document
    #expect(document.digest == Self.weatherDigest, "\(String(decoding: document.canonicalEncoding(), as: UTF8.self))")
  }

  static let weatherDigest = "48b2acb59757e5bee12f378c129f8ee88d831d9cac730d29ae9c7fbe000cc7dd"
}

/// SHA-256 against FIPS 180-4's examples and lengths around the padding's block boundaries (checked with
/// coreutils' sha256sum).
@Suite(.tags(.unit))
struct SHA256Tests {
  static let vectors: [(String, String)] = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
  ]

  static let lengths: [(Int, String)] = [
    (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
    (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
    (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
    (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
    (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
    (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
    (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    (1000, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    (1_000_000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
  ]

  @Test(arguments: vectors)
  func standardVectors(_ message: String, _ digest: String) {
    #expect(SHA256.hexDigest(Array(message.utf8)) == digest)
  }

  @Test(arguments: lengths)
  func lengthsAroundTheBlocks(_ count: Int, _ digest: String) {
    #expect(SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: count)) == digest)
  }

  @Test func aDigestIs32Bytes() {
    #expect(SHA256.hash([1, 2, 3]).count == 32)
  }
}
