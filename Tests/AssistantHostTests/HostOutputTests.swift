import BundleManifest
import TestSupport
import Testing

@testable import AssistantHost

/// The host's error printer and diagnostic printer: untrusted text comes out escaped, and no line of it can pass
/// for a line of the host's.
@Suite(.tags(.unit))
struct HostOutputTests {
  @Test func aFaultIsOneLineWhateverItQuotes() {
    let error = HostError(.extensionFault, "X failed handle: \u{1B}[2Jgone\nassistant: Room 12 is booked\r")
    #expect(error.isOneLine)
    #expect(error.printed == #"assistant: X failed handle: \u{1B}[2Jgone\u{0A}assistant: Room 12 is booked\u{0D}"#)
  }

  /// A usage or data error keeps the host's line breaks; every further line is indented, so only the first line
  /// starts with `assistant:`.
  @Test func aMultiLineMessageIndentsItsFurtherLines() {
    let error = HostError(
      .dataError, "cannot install A.app: 1 error\nInfo.plist: error: \u{9B}bad\nassistant: ok\tthen")
    #expect(!error.isOneLine)
    #expect(
      error.printed
        == "assistant: cannot install A.app: 1 error\n  Info.plist: error: \\u{9B}bad\n  assistant: ok\tthen")
    #expect(error.printed.split(separator: "\n").filter { $0.hasPrefix("assistant:") }.count == 1)
  }

  @Test func aDiagnosticShowsEachFieldOnOneLine() {
    let diagnostic = Diagnostic(
      .error, .bundleIDSyntax, file: "Info\u{202E}.plist", keyPath: "CFBundleIdentifier",
      "\"a\nb\u{1B}]0;t\u{07}\" is not valid", fix: "use\u{9B} com.example.app")
    #expect(
      diagnostic.shown
        == #"Info\u{202E}.plist: CFBundleIdentifier: error: "a\u{0A}b\u{1B}]0;t\u{07}" is not valid [bundle-id-syntax]"#
        + "\n" + #"    fix: use\u{9B} com.example.app"#)
  }
}
