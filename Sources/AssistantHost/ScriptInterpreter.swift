import AppGroupStore
import BundleManifest
import Foundation
import IntentHostSystem
import UntrustedText

/// A script's first line, `#!INTERPRETER [ARGUMENT]`, read as the kernel reads it (binfmt_script): within the
/// first 256 bytes (`BINPRM_BUF_SIZE`), the interpreter up to the first space or tab, and the rest of the line,
/// trimmed, as one argument.
struct Shebang: Sendable, Equatable {
  /// The line after `#!`, as written (no newline).
  var line: String
  /// The interpreter, as written.
  var interpreter: String
  /// The one argument, if any (`-I` in `#!/usr/bin/python3 -I`, `python3` in `#!/usr/bin/env python3`).
  var argument: String?

  /// How much of a file the kernel reads for its `#!` line (`BINPRM_BUF_SIZE` on Linux 6.x).
  static let limit = 256

  /// The `#!` line of `bytes` (a file's first bytes); nil when they do not start with `#!` (not a script).
  /// - Throws: `ScriptProblem` when the line is one the sandbox does not run: longer than the kernel reads, not
  ///   UTF-8, with a control character (a carriage return: a file saved with CRLF line ends), or with no interpreter.
  static func parse(_ bytes: [UInt8]) throws(ScriptProblem) -> Shebang? {
    guard bytes.count >= 2, bytes[0] == 0x23, bytes[1] == 0x21 else { return nil }
    let head = bytes.prefix(limit)
    guard let newline = head.firstIndex(of: 0x0A) else {
      throw ScriptProblem(
        value: String(decoding: head.dropFirst(2).prefix(64), as: UTF8.self) + "…",
        reason: "is a #! line longer than the \(limit - 1) bytes the kernel reads",
        fix: "shorten the #! line: name the interpreter by a short absolute path, with at most one argument")
    }
    let body = Array(head[2..<newline])
    guard let line = String(validating: body, as: UTF8.self) else {
      throw ScriptProblem(
        value: Untrusted.sanitized(bytes: body[...], multiline: false), reason: "is not UTF-8",
        fix: "write the #! line in UTF-8")
    }
    if line.unicodeScalars.contains(where: { $0 != " " && $0 != "\t" && ($0.value < 0x20 || $0.value == 0x7F) }) {
      let crlf = line.hasSuffix("\r")
      throw ScriptProblem(
        value: line,
        reason: crlf
          ? "ends in a carriage return (the file has CRLF line ends), which the kernel takes as part of the name"
          : "holds a control character",
        fix: crlf ? "save the script with LF line ends" : "write the #! line without control characters")
    }
    let trimmed = line.drop { $0 == " " || $0 == "\t" }
    let interpreter = String(trimmed.prefix { $0 != " " && $0 != "\t" })
    guard !interpreter.isEmpty else {
      throw ScriptProblem(
        value: line, reason: "names no interpreter", fix: "name the interpreter, e.g. #!/usr/bin/env python3")
    }
    let rest = trimmed.dropFirst(interpreter.count).drop { $0 == " " || $0 == "\t" }
    var argument = String(rest)
    while argument.hasSuffix(" ") || argument.hasSuffix("\t") { argument.removeLast() }
    return Shebang(line: line, interpreter: interpreter, argument: argument.isEmpty ? nil : argument)
  }

  /// The `#!` line of the file at `path`; nil when it is not a script.
  /// - Throws: `ScriptProblem` as `parse`, or when it cannot be read.
  static func read(_ path: String) throws(ScriptProblem) -> Shebang? {
    let fd: FileDescriptor
    do {
      // Non-blocking, so a FIFO cannot stall the host; only a regular file is read.
      fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY)
    } catch {
      throw ScriptProblem(value: path, reason: "cannot be read (\(error.reason))", fix: "make it readable")
    }
    defer { fd.close() }
    var status = stat()
    guard fstat(fd.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    var buffer = [UInt8](repeating: 0, count: limit)
    let count = pread(fd.rawValue, &buffer, limit, 0)
    guard count > 0 else { return nil }
    return try parse(Array(buffer.prefix(count)))
  }
}

/// Why a script's interpreter cannot run in the sandbox (rule `script-interpreter`).
struct ScriptProblem: Error, Sendable, Equatable {
  /// What is wrong: the `#!` line, or the interpreter it names.
  var value: String
  /// What is wrong with it, as a sentence fragment ("is inside the bundle").
  var reason: String
  /// How to fix it.
  var fix: String

  /// The rule `assistant validate` names.
  static let rule = "script-interpreter"

  /// The finding `assistant validate` and `install` report for the script `executable`.
  func diagnostic(executable: String) -> Diagnostic {
    Diagnostic(
      .error, Self.rule, file: executable, keyPath: "#!",
      "\"\(Untrusted.sanitized(value))\" \(reason), so the sandbox would not run it", fix: fix)
  }
}

/// The interpreter a script extension (or app) runs with, as the host recorded it at install
/// (`State/interpreters.json`) and grants it at each launch: the program, and the folders and files it reads.
///
/// The rules (docs/SANDBOX.md, "Interpreted extensions"): the `#!` line names an absolute interpreter, or
/// `/usr/bin/env NAME` with one word, which is looked up once, at install, in `searchPath`; the interpreter, by its
/// real path and every folder on the way, belongs to root and is writable by nobody else; it is not in the bundle,
/// the host's home, the app groups, `$HOME` or a temporary folder; it is an ELF program (not another script); and it
/// is one the table of `Kind` knows.
struct ScriptInterpreter: Sendable, Equatable, Codable {
  /// The script's `#!` line as written (after `#!`): a launch refuses a script whose line changed since install.
  var shebang: String
  /// The interpreter as the script names it, or as `env` would find it: `/usr/bin/python3`. It is argv[0].
  var path: String
  /// Its real path, which the launch executes and the sandbox grants: `/usr/bin/python3.11`.
  var program: String
  /// The argument passed before the script's path (the `#!` line's argument, unless it went to `env`).
  var argument: String?
  /// Whether the line was `#!/usr/bin/env NAME`, resolved at install.
  var resolvedFromEnv: Bool
  var kind: Kind
  /// The interpreter's own library folders, granted read (Python's `stdlib`, `platstdlib` and `lib-dynload`).
  var libraryFolders: [String] = []
  /// Single files granted read: the libraries the extension modules of `libraryFolders` load, and the targets of
  /// links in those folders that point elsewhere (Debian's `sitecustomize.py`), each passing the same rules.
  var libraryFiles: [String] = []

  /// The interpreters the sandbox knows how to grant, by the name of the real program.
  enum Kind: String, Sendable, Codable {
    /// `sh`, `dash`, `bash`: no library folder.
    case shell
    /// `python3`, `python3.N`: the folders `sysconfig` names, asked of the interpreter at install.
    case python

    /// The kind of the program named `name` (the last component of its real path); nil when unknown.
    init?(program name: String) {
      if ["sh", "dash", "bash"].contains(name) {
        self = .shell
      } else if name == "python3"
        || (name.hasPrefix("python3.") && name.count > 8 && name.dropFirst(8).allSatisfy { $0.isASCII && $0.isNumber })
      {
        self = .python
      } else {
        return nil
      }
    }

    /// What the sandbox supports, for messages.
    static let supported = "sh, dash, bash, python3 (python3.N)"
  }

  /// Where `#!/usr/bin/env NAME` is looked up, in order, at install; never the user's PATH.
  static let searchPath = ["/usr/local/bin", "/usr/bin", "/bin"]

  /// How the interpreter reads in messages: "/usr/bin/python3.11 (from #!/usr/bin/env python3, resolved at
  /// install)".
  var summary: String {
    "\(program) (from #!\(shebang)\(resolvedFromEnv ? ", resolved at install" : ""))"
  }

  /// The arguments the launch gives the interpreter before the script's own: the `#!` argument, then the script's
  /// path, as the kernel would (argv[0] is `path`).
  func arguments(script: String) -> [String] {
    (argument.map { [$0] } ?? []) + [script]
  }

  /// What the script at `executable` runs with, by the rules above, without asking the interpreter anything (no
  /// library folders yet: `withLibraryFolders()`).
  /// - Parameters:
  ///   - appBundle: the app bundle the script belongs to (an interpreter inside it is refused).
  ///   - forbidden: other folders an interpreter may not be in (the host's home, the app groups' folder); `$HOME`
  ///     and the temporary folders are always refused.
  /// - Returns: nil when the executable is not a script.
  /// - Throws: `ScriptProblem` naming what breaks a rule.
  static func inspect(executable: String, appBundle: String, forbidden: [String] = []) throws(ScriptProblem)
    -> ScriptInterpreter?
  {
    guard let shebang = try Shebang.read(executable) else { return nil }
    let places = forbiddenPlaces(appBundle: appBundle, extra: forbidden)
    var path = shebang.interpreter
    var argument = shebang.argument
    var fromEnv = false
    guard path.hasPrefix("/") else {
      throw ScriptProblem(
        value: path, reason: "is not an absolute path (the kernel would look for it in the container)",
        fix: "name the interpreter by its absolute path, or as #!/usr/bin/env NAME")
    }
    var real = try checkSystemProgram(path, forbidden: places)
    if (real as NSString).lastPathComponent == "env" {
      guard let name = argument else {
        throw ScriptProblem(
          value: shebang.line, reason: "runs env without a program", fix: "write #!/usr/bin/env NAME, e.g. python3")
      }
      let word = name.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || "._+-".unicodeScalars
            .contains($0)
      }
      guard word, !name.hasPrefix("-") else {
        throw ScriptProblem(
          value: shebang.line,
          reason: "gives env \"\(name)\", not one program name (options such as -S, and arguments, are not supported)",
          fix: "write #!/usr/bin/env NAME with one word, or name the interpreter by its absolute path with at most "
            + "one argument")
      }
      guard let found = searchPath.map({ $0 + "/" + name }).first(where: { isExecutableFile($0) }) else {
        throw ScriptProblem(
          value: shebang.line,
          reason: "names \(name), which is not in \(searchPath.joined(separator: ":")) (the fixed PATH the host "
            + "looks it up in at install)",
          fix: "install \(name) for the system, or name the interpreter by its absolute path")
      }
      path = found
      argument = nil
      fromEnv = true
      real = try checkSystemProgram(path, forbidden: places)
    }
    let name = (real as NSString).lastPathComponent
    guard let kind = Kind(program: name) else {
      throw ScriptProblem(
        value: path,
        reason: "is \(Untrusted.sanitized(name)), an interpreter the sandbox does not know how to grant (it "
          + "supports \(Kind.supported))",
        fix: "use one of those, or build the extension as an ELF program")
    }
    return ScriptInterpreter(
      shebang: shebang.line, path: path, program: real, argument: argument, resolvedFromEnv: fromEnv, kind: kind)
  }

  /// The places no interpreter, library folder or file may be in: the bundle, `extra`, `$HOME` and the temporary
  /// folders, by their real paths.
  static func forbiddenPlaces(appBundle: String, extra: [String]) -> [String] {
    var places = [appBundle] + extra + ["/tmp", "/var/tmp", "/dev/shm"]
    if let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/"), normalized(home) != "/" {
      places.append(home)
    }
    return places.map { realPath($0) ?? normalized($0) }
  }

  /// Checks that `path` is a program of the system: a regular executable ELF file (not a script: one level only),
  /// owned by root and writable by nobody else, reached through folders (and links) owned by root and writable by
  /// nobody else, by its written path and its real path, and in none of `forbidden`.
  /// - Returns: its real path.
  /// - Throws: `ScriptProblem` naming the rule it breaks.
  static func checkSystemProgram(_ path: String, forbidden: [String]) throws(ScriptProblem) -> String {
    guard let real = realPath(path) else {
      throw ScriptProblem(
        value: path, reason: "does not exist", fix: "install it, or name an interpreter of the system")
    }
    if let reason = systemPlaceProblem(path, real: real, forbidden: forbidden) {
      throw ScriptProblem(
        value: path, reason: reason,
        fix: "use an interpreter installed for the system (root's, in a folder only root can write, e.g. "
          + "/usr/bin/python3 or /bin/sh), not one of the bundle or in a writable folder")
    }
    guard isExecutableFile(real) else {
      throw ScriptProblem(value: path, reason: "is not an executable file", fix: "name an executable interpreter")
    }
    if case let head? = try? Shebang.read(real) {
      throw ScriptProblem(
        value: path,
        reason: "is itself a script (#!\(Untrusted.sanitized(head.line))); the sandbox runs one level only",
        fix: "name the program that script runs, e.g. #!/usr/bin/python3")
    }
    guard ELFInfo.read(real) != nil else {
      throw ScriptProblem(value: path, reason: "is not an ELF program", fix: "name an ELF interpreter")
    }
    return real
  }

  /// Why `path` (whose real path is `real`) is not a place of the system, or nil when it is: every component of
  /// the written path and of the real path (the file and each folder above it, links included) is owned by root,
  /// none but a link is writable by group or others, and the real path is in none of `forbidden`.
  static func systemPlaceProblem(_ path: String, real: String, forbidden: [String]) -> String? {
    if let place = forbidden.first(where: { isInside(real, [$0]) }) {
      return "is inside \(Untrusted.sanitized(place)), where the bundle, an extension or a user can write"
    }
    for candidate in [normalized(path), real] {
      var prefix = ""
      for component in [""] + candidate.split(separator: "/").map(String.init) {
        prefix = component.isEmpty ? "/" : (prefix == "/" ? "/" : prefix + "/") + component
        var status = stat()
        guard lstat(prefix, &status) == 0 else { return "cannot be checked (\(prefix) is missing)" }
        if status.st_uid != 0 {
          return "is reached through \(Untrusted.sanitized(prefix)), which belongs to uid \(status.st_uid), not root"
        }
        if (status.st_mode & S_IFMT) != S_IFLNK && status.st_mode & 0o022 != 0 {
          return "is reached through \(Untrusted.sanitized(prefix)), which others can write (mode "
            + String(status.st_mode & 0o7777, radix: 8) + ")"
        }
      }
    }
    return nil
  }

  /// Whether `path` is a regular file with an execute bit.
  static func isExecutableFile(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && status.st_mode & 0o111 != 0
  }

  // MARK: - Library folders, asked at install

  /// The most bytes the interpreter may answer, and how long it has.
  static let answerLimit = 64 << 10
  static let answerSeconds = 10
  /// The most entries of a library folder looked at (extension modules, links).
  static let folderEntryLimit = 4096

  /// This interpreter with its library folders and files, asked of it (Python: `-I -S -c`, with a fixed
  /// environment, in `/`, at most `answerSeconds` and `answerLimit` bytes). Blocks: call it off the cooperative pool.
  /// - Throws: `ScriptProblem` when it does not answer, or names a folder that breaks the rules.
  func withLibraryFolders(forbidden: [String]) throws(ScriptProblem) -> ScriptInterpreter {
    guard kind == .python else { return self }
    let code =
      "import json, sys, sysconfig; print(json.dumps([sysconfig.get_path('stdlib'), "
      + "sysconfig.get_path('platstdlib')] + [p for p in sys.path if p.endswith('/lib-dynload')]))"
    let answer: [UInt8]
    do {
      answer = try Self.ask(program, arguments: [path, "-I", "-S", "-c", code])
    } catch {
      throw ScriptProblem(
        value: path, reason: "did not say where its library is (\(error))",
        fix: "check that \(path) -I -S -c 'import sysconfig' runs")
    }
    guard let folders = try? JSONDecoder().decode([String].self, from: Data(answer)) else {
      throw ScriptProblem(
        value: path, reason: "answered something other than its library folders",
        fix: "check that \(path) -I -S -c 'import sysconfig' runs")
    }
    var result = self
    for folder in folders where folder.hasPrefix("/") {
      guard let real = realPath(folder) else { continue }  // a folder it names but does not have
      if let reason = Self.systemPlaceProblem(folder, real: real, forbidden: forbidden) {
        throw ScriptProblem(
          value: folder, reason: "(a library folder of \(path)) \(reason)",
          fix: "use an interpreter installed for the system")
      }
      if !result.libraryFolders.contains(real) { result.libraryFolders.append(real) }
    }
    // The extension modules' libraries (from the trusted library folders only), and the files links point to.
    var files: [String] = []
    for folder in result.libraryFolders {
      let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
      for name in names.prefix(Self.folderEntryLimit) {
        let entry = folder + "/" + name
        var status = stat()
        guard lstat(entry, &status) == 0 else { continue }
        if (status.st_mode & S_IFMT) == S_IFLNK {
          guard let target = realPath(entry), !isInside(target, result.libraryFolders),
            stat(target, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            Self.systemPlaceProblem(entry, real: target, forbidden: forbidden) == nil
          else { continue }
          files.append(target)
        } else if name.hasSuffix(".so") && (status.st_mode & S_IFMT) == S_IFREG {
          files += LibraryGrants.resolve(systemProgram: entry).libraries
        }
      }
    }
    var seen = Set<String>()
    result.libraryFiles = files.filter { !isInside($0, result.libraryFolders) && seen.insert($0).inserted }
    return result
  }

  /// Runs `program` (a checked system program) with `arguments` (argv[0] first), a fixed environment, in `/`,
  /// stdin on /dev/null and stderr discarded; returns what it wrote to stdout.
  /// - Throws: `SystemError` when it cannot run, writes more than `answerLimit` bytes, takes more than
  ///   `answerSeconds`, or does not exit 0.
  static func ask(_ program: String, arguments: [String]) throws -> [UInt8] {
    let null = try FileDescriptor.open("/dev/null", O_RDWR)
    defer { null.close() }
    let pipe = try FileDescriptor.pipe()
    defer { pipe.read.close() }
    var options = SpawnOptions(
      executable: program, arguments: arguments, environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
      workingDirectory: "/", standardInput: null, standardOutput: pipe.write, standardError: null)
    options.newSession = true
    let process: SpawnedProcess
    do {
      process = try spawn(options)
    } catch {
      pipe.write.close()
      throw error
    }
    pipe.write.close()
    defer { process.pidfd.close() }
    let deadline = ContinuousClock.now + .seconds(answerSeconds)
    var output: [UInt8] = []
    var failure: SystemError? = nil
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let left = (deadline - ContinuousClock.now).components
      let milliseconds = Int32(clamping: max(0, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000))
      let readable = milliseconds > 0 ? try pipe.read.waitReadable(timeoutMilliseconds: milliseconds) : false
      if !readable {
        failure = SystemError(
          code: ETIMEDOUT, operation: "wait", subject: program, detail: "no answer within \(answerSeconds) s")
        break
      }
      let count = try pipe.read.read(into: &chunk)
      if count == 0 { break }
      output += chunk.prefix(count)
      if output.count > answerLimit {
        failure = SystemError(
          code: E2BIG, operation: "read", subject: program, detail: "more than \(answerLimit) bytes")
        break
      }
    }
    if failure != nil {
      process.sendToGroup(SIGKILL)
      process.send(SIGKILL)
    }
    var termination: Termination? = nil
    while termination == nil {
      termination = try process.reap()
      if termination == nil { _ = try process.pidfd.waitReadable(timeoutMilliseconds: 1000) }
    }
    if let failure { throw failure }
    guard termination == .exited(0) else {
      throw SystemError(code: EIO, operation: "run", subject: program, detail: "\(termination!)")
    }
    return output
  }
}

/// Which interpreter each installed script runs with, by bundle identifier (host state,
/// `State/interpreters.json`): written at install, read at each launch.
struct InterpreterTable: DocumentContent {
  static let schemaVersion = 1
  var scripts: [String: ScriptInterpreter] = [:]
  init() {}
}

extension AssistantHome {
  /// The record of interpreters, `State/interpreters.json`.
  var interpretersFile: String { state.appendingPathComponent("interpreters.json").path }

  /// The places an interpreter may not be in beside the bundle, `$HOME` and the temporary folders: the home and the
  /// app groups' folder.
  var interpreterForbiddenPlaces: [String] { [root.path, appGroupsRoot.path] }

  /// The interpreters of `app`'s executables that are scripts, with their library folders (asked of each
  /// interpreter), by bundle identifier; nil for an executable that is not a script. Blocks (it runs the
  /// interpreters): call it off the cooperative pool.
  /// - Throws: `HostError(.dataError)` naming the script, the rule and the fix.
  func scriptInterpreters(of app: AppBundle) throws -> [String: ScriptInterpreter?] {
    var result: [String: ScriptInterpreter?] = [:]
    let executables =
      [(app.info.bundleIdentifier, app.executableURL.path)]
      + app.extensions.map { ($0.info.bundleIdentifier, $0.executableURL.path) }
    for (identifier, executable) in executables {
      do {
        let interpreter = try ScriptInterpreter.inspect(
          executable: executable, appBundle: app.url.path, forbidden: interpreterForbiddenPlaces)
        result[identifier] = try interpreter?.withLibraryFolders(
          forbidden: ScriptInterpreter.forbiddenPlaces(appBundle: app.url.path, extra: interpreterForbiddenPlaces))
      } catch {
        throw HostError(
          .dataError, "cannot install \(app.url.path): 1 error\n" + error.diagnostic(executable: executable).shown)
      }
    }
    return result
  }

  /// Records (or forgets) the interpreters of an installed app's executables.
  /// - Throws: `HostError(.ioError)` or `.dataError` when the record cannot be written.
  func recordInterpreters(_ interpreters: [String: ScriptInterpreter?]) throws {
    let document = Document<InterpreterTable>(path: interpretersFile)
    do {
      // Nothing to record and no record yet: no record is made.
      if try interpreters.values.allSatisfy({ $0 == nil }) && !document.exists() { return }
      try document.update { table in
        for (identifier, interpreter) in interpreters { table.scripts[identifier] = interpreter }
      }
    } catch {
      throw stateError(error, "cannot record the interpreters of scripts", document: interpretersFile)
    }
  }

  /// The recorded interpreter of the script `executable` of bundle `bundleIdentifier`, checked again: its `#!`
  /// line as recorded at install, the interpreter still the same real program, still passing the rules. nil when
  /// the executable is not a script.
  /// - Throws: `HostError(.refused)`, a line naming the bundle, the interpreter and the rule; `.ioError` or
  ///   `.dataError` when the record cannot be read.
  func recordedInterpreter(
    name: String, bundleIdentifier: String, executable: String, appBundle: String
  ) throws -> ScriptInterpreter? {
    let label = "\(name) (\(bundleIdentifier))"
    func refusal(_ interpreter: String, _ reason: String, _ fix: String) -> HostError {
      HostError(
        .refused,
        "\(label) was refused by the sandbox: its interpreter \(Untrusted.sanitized(interpreter)) is not allowed "
          + "(rule \(ScriptProblem.rule): \(reason); \(fix)); it was not run")
    }
    let shebang: Shebang
    do {
      guard let read = try Shebang.read(executable) else { return nil }
      shebang = read
    } catch {
      throw refusal(error.value, "its #! line \(error.reason)", error.fix)
    }
    var table = InterpreterTable()
    let document = Document<InterpreterTable>(path: interpretersFile)
    do {
      if try document.exists() { table = try document.read() }
    } catch {
      throw stateError(error, "cannot read the interpreters of scripts", document: interpretersFile)
    }
    guard let recorded = table.scripts[bundleIdentifier] else {
      throw refusal(
        shebang.interpreter,
        "none was recorded for this script at install (an older host installed it, or it was "
          + "not a script then)", "reinstall it with `assistant install`")
    }
    guard recorded.shebang == shebang.line else {
      throw refusal(
        shebang.interpreter,
        "the installed script's #! line is now \"#!\(Untrusted.sanitized(shebang.line))\", not the "
          + "\"#!\(Untrusted.sanitized(recorded.shebang))\" recorded at install",
        "reinstall it with `assistant install`")
    }
    let places = ScriptInterpreter.forbiddenPlaces(appBundle: appBundle, extra: interpreterForbiddenPlaces)
    do {
      let real = try ScriptInterpreter.checkSystemProgram(recorded.path, forbidden: places)
      guard real == recorded.program else {
        throw ScriptProblem(
          value: recorded.path, reason: "is now \(real), not the \(recorded.program) recorded at install",
          fix: "reinstall it with `assistant install`")
      }
      for folder in recorded.libraryFolders {
        if let problem = ScriptInterpreter.systemPlaceProblem(
          folder, real: realPath(folder) ?? folder, forbidden: places)
        {
          throw ScriptProblem(value: folder, reason: "(its library folder) \(problem)", fix: "reinstall it")
        }
      }
    } catch let problem as ScriptProblem {
      throw refusal(recorded.path, "\(Untrusted.sanitized(problem.value)) \(problem.reason)", problem.fix)
    }
    return recorded
  }
}
