import Foundation
import IntentHostSystem
import TestSupport
import Testing

@testable import AssistantHost

/// The `#!` line as the kernel reads it, and the interpreter rules, in-process (the end-to-end side is
/// ScriptExtensionTests).
@Suite struct ScriptInterpreterTests {
  @Test(
    arguments: [
      ("#!/bin/sh\n", "/bin/sh", nil),
      ("#! /usr/bin/python3  -I \t\nprint()\n", "/usr/bin/python3", "-I"),
      ("#!/usr/bin/env python3\n", "/usr/bin/env", "python3"),
      // One argument, as the kernel gives it: the rest of the line.
      ("#!/usr/bin/python3 -I -S\n", "/usr/bin/python3", "-I -S"),
      ("#!\t/bin/sh\n", "/bin/sh", nil),
    ] as [(String, String, String?)])
  func aLineIsReadAsTheKernelReadsIt(text: String, interpreter: String, argument: String?) throws {
    let shebang = try #require(try Shebang.parse(Array(text.utf8)))
    #expect(shebang.interpreter == interpreter)
    #expect(shebang.argument == argument)
    #expect(shebang.line == String(text.dropFirst(2).prefix { $0 != "\n" }))
  }

  @Test func aFileWithoutHashBangIsNotAScript() throws {
    #expect(try Shebang.parse([0x7F, 0x45, 0x4C, 0x46, 2, 1]) == nil)
    #expect(try Shebang.parse(Array("# a comment\n".utf8)) == nil)
    #expect(try Shebang.parse([]) == nil)
  }

  @Test(
    arguments: [
      ("#!/bin/sh\r\n", "carriage return"),
      ("#!\n", "names no interpreter"),
      ("#!   \n", "names no interpreter"),
      ("#!/bin/sh\u{1B}[2J\n", "control character"),
      ("#!/" + String(repeating: "a", count: 300) + "\n", "longer than the 255 bytes"),
    ])
  func aLineTheSandboxDoesNotRunIsAProblem(text: String, reason: String) {
    #expect(throws: ScriptProblem.self) { try Shebang.parse(Array(text.utf8)) }
    do {
      _ = try Shebang.parse(Array(text.utf8))
    } catch {
      #expect(error.reason.contains(reason), "\(error)")
    }
  }

  @Test func aLineThatIsNotUTF8IsAProblem() {
    #expect(throws: ScriptProblem.self) { try Shebang.parse([0x23, 0x21, 0x2F, 0xFF, 0x0A]) }
  }

  @Test(
    arguments: [
      ("sh", ScriptInterpreter.Kind.shell), ("dash", .shell), ("bash", .shell), ("python3", .python),
      ("python3.11", .python), ("python3.13", .python), ("python3.11-config", nil), ("python", nil),
      ("python3.", nil), ("perl", nil), ("node", nil),
    ] as [(String, ScriptInterpreter.Kind?)])
  func theKnownInterpreters(name: String, kind: ScriptInterpreter.Kind?) {
    #expect(ScriptInterpreter.Kind(program: name) == kind)
  }

  /// A system program passes; a copy in a temporary folder, and a folder of the bundle, do not (the control and
  /// the two failures of the same check).
  @Test func onlyAProgramOfTheSystemPasses() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let shell = try #require(realPath("/bin/sh"))
    #expect(ScriptInterpreter.systemPlaceProblem("/bin/sh", real: shell, forbidden: []) == nil)
    let copy = directory.file("sh").path
    try FileManager.default.copyItem(atPath: shell, toPath: copy)
    let problem = ScriptInterpreter.systemPlaceProblem(copy, real: copy, forbidden: ["/tmp"])
    #expect(problem != nil)
    // Even with no folder forbidden, the copy is in a folder someone else than root may write, or not root's.
    #expect(ScriptInterpreter.systemPlaceProblem(copy, real: copy, forbidden: []) != nil)
    #expect(
      ScriptInterpreter.systemPlaceProblem("/bin/sh", real: shell, forbidden: ["/usr/bin"])?.contains("is inside")
        == true)
  }

  /// `#!/usr/bin/env NAME` is looked up in the fixed PATH, not the user's: python3 is found in /usr/bin whatever
  /// `PATH` says (here a pyenv shim may come first).
  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
  func envIsResolvedInTheFixedPath() throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let app = directory.file("Fixture.app").path
    try FileManager.default.createDirectory(atPath: app, withIntermediateDirectories: true)
    let script = app + "/run"
    try "#!/usr/bin/env python3\nprint()\n".write(toFile: script, atomically: true, encoding: .utf8)
    let interpreter = try #require(try ScriptInterpreter.inspect(executable: script, appBundle: app))
    #expect(ScriptInterpreter.searchPath.contains((interpreter.path as NSString).deletingLastPathComponent))
    #expect(interpreter.resolvedFromEnv)
    #expect(interpreter.argument == nil)
    #expect(interpreter.kind == .python)
    #expect(interpreter.arguments(script: script) == [script])
    // Asked at install: the library folders, each a folder of the system.
    let full = try interpreter.withLibraryFolders(forbidden: [])
    #expect(full.libraryFolders.contains { $0.hasSuffix("/lib-dynload") }, "\(full.libraryFolders)")
    #expect(full.libraryFolders.allSatisfy { $0.hasPrefix("/usr/") || $0.hasPrefix("/lib") }, "\(full)")
  }
}
