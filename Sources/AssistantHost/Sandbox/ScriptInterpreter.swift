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
    if line.unicodeScalars.contains(where: { $0 != " " && $0 != "\t" && ($0.value < 0x20 || $0.value >= 0x7F) }) {
      let crlf = line.hasSuffix("\r")
      throw ScriptProblem(
        value: line,
        reason: crlf
          ? "ends in a carriage return (the file has CRLF line ends), which the kernel takes as part of the name"
          : "holds a character other than printable ASCII (a control, format or non-ASCII character)",
        fix: crlf ? "save the script with LF line ends" : "write the #! line in printable ASCII")
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

  /// The `#!` line of the file at `path`; nil when it is not a script, or cannot be opened (the exec, or the rule
  /// for a missing executable, reports that).
  /// - Throws: `ScriptProblem` as `parse`.
  static func read(_ path: String) throws(ScriptProblem) -> Shebang? {
    // Non-blocking, so a FIFO cannot stall the host; only a regular file is read.
    guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) else { return nil }
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
  static let rule = Diagnostic.Rule.scriptInterpreter

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
    /// `perl`, `perl5.N.M`: the folders of `@INC`, asked of the interpreter at install.
    case perl

    /// The kind of the program named `name` (the last component of its real path); nil when unknown.
    init?(program name: String) {
      func version(_ rest: Substring) -> Bool {
        !rest.isEmpty
          && rest.split(separator: ".", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber }
          }
      }
      if ["sh", "dash", "bash"].contains(name) {
        self = .shell
      } else if name == "python3" || (name.hasPrefix("python3.") && version(name.dropFirst(8)) && !name.contains("-")) {
        self = .python
      } else if name == "perl" || (name.hasPrefix("perl5.") && version(name.dropFirst(6))) {
        self = .perl
      } else {
        return nil
      }
    }

    /// What the sandbox supports, for messages.
    static let supported = "sh, dash, bash, python3 (python3.N), perl"

    /// Why an interpreter the sandbox does not run is not supported, when there is more to say than that.
    static func unsupportedReason(_ name: String) -> String? {
      guard name == "node" || name.hasPrefix("node") || name == "nodejs" else { return nil }
      return "node is not supported yet (it has not been tried in the sandbox; docs/SANDBOX.md, \"Interpreted "
        + "extensions\")"
    }
  }

  /// Where `#!/usr/bin/env NAME` is looked up, in order, at install; never the user's PATH.
  static let searchPath = ["/usr/local/bin", "/usr/bin", "/bin"]

  /// How the interpreter reads in messages: "/usr/bin/python3.11 (from #!/usr/bin/env python3, resolved at
  /// install)".
  var summary: String {
    "\(program) (from #!\(shebang)\(resolvedFromEnv ? ", resolved at install" : ""))"
  }

  /// The arguments the launch gives the interpreter before the script's own: the `#!` argument, then the script's
  /// path, as the kernel would (argv[0] is `argumentZero`).
  func arguments(script: String) -> [String] {
    (argument.map { [$0] } ?? []) + [script]
  }

  /// argv[0] of a launch: Python's (and perl's) real path (`program`), so that Python finds its home from the
  /// checked program, never through a link on the written path; a shell's written path, as the kernel gives it (bash
  /// started as `sh` keeps its POSIX mode).
  var argumentZero: String { kind == .shell ? path : program }

  /// What a launch adds to the environment for this interpreter (docs/PROTOCOL.md, "Environment"): for Python, no
  /// user site-packages (`~/.local`, in the writable container: its `.pth` files and `usercustomize` would run
  /// before the script) and no bytecode written beside the sources.
  var environment: [String: String] {
    kind == .python ? ["PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1"] : [:]
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
    if let argument, argument.contains(where: { $0 == " " || $0 == "\t" }) {
      let joined = argument.split(whereSeparator: { $0 == " " || $0 == "\t" }).enumerated()
        .map { $0.offset == 0 ? String($0.element) : String($0.element.drop { $0 == "-" }) }.joined()
      throw ScriptProblem(
        value: shebang.line,
        reason: "gives \"\(argument)\" as one argument (the kernel does not split it), which the interpreter "
          + "refuses",
        fix: "give at most one argument without blanks: join options into one word (#!\(path) \(joined))")
    }
    let name = (real as NSString).lastPathComponent
    guard let kind = Kind(program: name) else {
      throw ScriptProblem(
        value: path,
        reason: "is \(Untrusted.sanitized(name)), an interpreter the sandbox does not know how to grant (it "
          + "supports \(Kind.supported))" + (Kind.unsupportedReason(name).map { "; \($0)" } ?? ""),
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
  /// owned by root and writable by nobody else, reached through folders and links owned by root (each folder
  /// writable by nobody else), component by component as the kernel resolves it (`walk`), in none of `forbidden`,
  /// and not under /proc, /sys or /dev.
  /// - Returns: its real path.
  /// - Throws: `ScriptProblem` naming the rule it breaks.
  static func checkSystemProgram(_ path: String, forbidden: [String]) throws(ScriptProblem) -> String {
    let (real, descriptor) = try openSystemProgram(path, forbidden: forbidden)
    descriptor.close()
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

  /// Resolves `path` by the rules of `checkSystemProgram` and opens the file it reaches (`O_PATH`, not following
  /// a link), checked again on the descriptor (the same file the walk reached: regular, root's, writable by nobody
  /// else, executable), so that what is run (`ask` executes the descriptor) is what was checked.
  /// - Returns: the real path and the descriptor (close-on-exec; the caller closes it).
  /// - Throws: `ScriptProblem` naming the rule it breaks.
  static func openSystemProgram(_ path: String, forbidden: [String]) throws(ScriptProblem) -> (
    real: String, descriptor: FileDescriptor
  ) {
    let fix =
      "use an interpreter installed for the system (root's, in a folder only root can write, reached through "
      + "links and folders only root can change, e.g. /usr/bin/python3 or /bin/sh), not one of the bundle or in a "
      + "writable folder"
    // The forbidden places first, by the real path as glibc resolves it (the clearer message: "is inside the
    // bundle"); the walk below decides.
    if let resolved = realPath(path), let place = forbidden.first(where: { isInside(resolved, [$0]) }) {
      throw ScriptProblem(
        value: path,
        reason: "is inside \(Untrusted.sanitized(place)), where the bundle, an extension or a user can write", fix: fix)
    }
    let real: String
    let walked: stat
    switch walk(path) {
    case .missing:
      throw ScriptProblem(
        value: path, reason: "does not exist", fix: "install it, or name an interpreter of the system")
    case .problem(let reason):
      throw ScriptProblem(value: path, reason: reason, fix: fix)
    case .found(let path, let status):
      real = path
      walked = status
    }
    if let place = forbidden.first(where: { isInside(real, [$0]) }) {
      throw ScriptProblem(
        value: path,
        reason: "is inside \(Untrusted.sanitized(place)), where the bundle, an extension or a user can write",
        fix: fix)
    }
    guard (walked.st_mode & S_IFMT) == S_IFREG, walked.st_mode & 0o111 != 0 else {
      throw ScriptProblem(
        value: path,
        reason: (walked.st_mode & S_IFMT) == S_IFREG ? "is not an executable file" : "is not a regular file",
        fix: "name an executable interpreter")
    }
    // O_PATH (010000000 on Linux; Glibc's module does not export it): a descriptor that names the file only.
    guard let descriptor = try? FileDescriptor.open(real, 0o10000000 | O_NOFOLLOW) else {
      throw ScriptProblem(value: path, reason: "changed while it was checked", fix: "try again")
    }
    var status = stat()
    guard fstat(descriptor.rawValue, &status) == 0, status.st_dev == walked.st_dev, status.st_ino == walked.st_ino,
      (status.st_mode & S_IFMT) == S_IFREG, status.st_uid == 0, status.st_mode & 0o022 == 0,
      status.st_mode & 0o111 != 0
    else {
      descriptor.close()
      throw ScriptProblem(value: path, reason: "changed while it was checked", fix: "try again")
    }
    return (real, descriptor)
  }

  /// The kernel's file systems, where a path means something else in each process: no interpreter or library
  /// folder is reached through them.
  static let kernelFolders = ["/proc", "/sys", "/dev"]

  /// The most links one `walk` follows (the kernel's limit).
  static let linkLimit = 40

  /// What `walk` found.
  enum Walk {
    /// The real path, and the `lstat` of the file there.
    case found(String, stat)
    /// A component does not exist (or a folder on the way is not one).
    case missing
    /// A rule broken, as a sentence fragment.
    case problem(String)
  }

  /// Resolves `path` one component at a time, as the kernel does (a `readlink` at each link, its target's
  /// components taken next), and checks everything on the way: `/`, each folder visited and each link followed
  /// belongs to root; no folder (and not the file reached) is writable by group or others; nothing is under
  /// /proc, /sys or /dev. A link's own mode means nothing (a link is always 0777); who owns it, and the folder it
  /// is in, decide who can change it.
  static func walk(_ path: String) -> Walk {
    func check(_ place: String, _ status: stat) -> String? {
      if status.st_uid != 0 {
        return "is reached through \(Untrusted.sanitized(place)), which belongs to uid \(status.st_uid), not root"
      }
      if (status.st_mode & S_IFMT) != S_IFLNK && status.st_mode & 0o022 != 0 {
        return "is reached through \(Untrusted.sanitized(place)), which others can write (mode "
          + String(status.st_mode & 0o7777, radix: 8) + ")"
      }
      return nil
    }
    var status = stat()
    guard lstat("/", &status) == 0 else { return .missing }
    if let problem = check("/", status) { return .problem(problem) }
    // The components still to resolve, the next one last.
    var pending = Array(path.split(separator: "/").map(String.init).reversed())
    var current = "/"
    var links = 0
    while let component = pending.popLast() {
      if component == "." { continue }
      if component == ".." {
        current = (current as NSString).deletingLastPathComponent  // `current` is real: its parent was checked
        continue
      }
      let next = current == "/" ? "/" + component : current + "/" + component
      if isInside(next, kernelFolders) {
        return .problem(
          "is reached through \(Untrusted.sanitized(next)), in a kernel file system (/proc, /sys, /dev), where a "
            + "path means something else in each process")
      }
      guard lstat(next, &status) == 0 else { return .missing }
      if let problem = check(next, status) { return .problem(problem) }
      if (status.st_mode & S_IFMT) == S_IFLNK {
        links += 1
        guard links <= linkLimit else { return .problem("is reached through more than \(linkLimit) links") }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(next, &buffer, Int(PATH_MAX))
        guard count > 0 else { return .missing }
        let target = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") { current = "/" }
        pending += target.split(separator: "/").map(String.init).reversed()
        continue
      }
      if !pending.isEmpty && (status.st_mode & S_IFMT) != S_IFDIR { return .missing }
      current = next
    }
    guard lstat(current, &status) == 0 else { return .missing }
    return .found(current, status)
  }

  /// Why `path` (whose real path is `real`) is not a place of the system, or nil when it is: `walk` finds no
  /// problem on the way to it and reaches `real`, and `real` is in none of `forbidden`.
  static func systemPlaceProblem(_ path: String, real: String, forbidden: [String]) -> String? {
    if let place = forbidden.first(where: { isInside(real, [$0]) }) {
      return "is inside \(Untrusted.sanitized(place)), where the bundle, an extension or a user can write"
    }
    switch walk(path) {
    case .missing: return "cannot be checked (a component of it is missing)"
    case .problem(let reason): return reason
    case .found(let walked, _):
      if walked != real { return "changed while it was checked (it is now \(Untrusted.sanitized(walked)))" }
      if let place = forbidden.first(where: { isInside(walked, [$0]) }) {
        return "is inside \(Untrusted.sanitized(place)), where the bundle, an extension or a user can write"
      }
      return nil
    }
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
  /// environment, in `/`, within `answerSeconds` and `answerLimit` bytes, its descriptor executed with argv[0] its
  /// real path, confined by `querySandbox`). Each folder it names must be shaped like a Python library folder
  /// (`libraryFolderShapeProblem`) and a place of the system. Blocks: call it off the cooperative pool.
  /// - Throws: `ScriptProblem` when it does not answer, or names a folder that breaks the rules.
  func withLibraryFolders(forbidden: [String]) throws(ScriptProblem) -> ScriptInterpreter {
    let query: [String]
    let check: String
    switch kind {
    case .shell: return self
    case .python:
      let code =
        "import json, sys, sysconfig; print(json.dumps([sysconfig.get_path('stdlib'), "
        + "sysconfig.get_path('platstdlib')] + [p for p in sys.path if p.endswith('/lib-dynload')]))"
      query = ["-I", "-S", "-c", code]
      check = "\(program) -I -S -c 'import sysconfig' runs"
    case .perl:
      // @INC as JSON strings, without loading a module; the environment holds no PERL5LIB or PERL5OPT.
      let code =
        #"print "[", join(",", map { my $s = $_; $s =~ s/(["\\])/\\$1/g; "\"$s\"" } grep { !ref } @INC), "]\n""#
      query = ["-e", code]
      check = "\(program) -e 'print \"@INC\"' runs"
    }
    // The program checked again, and run by its descriptor: a link changed since `inspect` changes nothing.
    let (real, descriptor) = try Self.openSystemProgram(program, forbidden: forbidden)
    defer { descriptor.close() }
    guard real == program else {
      throw ScriptProblem(value: path, reason: "is now \(real), not \(program)", fix: "try again")
    }
    let answer: [UInt8]
    do {
      // argv[0] is the checked real path: Python finds its home from argv[0], never through a link.
      answer = try Self.ask(
        program, arguments: [program] + query, executable: descriptor, sandbox: Self.querySandbox(program: program))
    } catch {
      throw ScriptProblem(
        value: path, reason: "did not say where its library is (\(error))", fix: "check that \(check)")
    }
    guard let folders = try? JSONDecoder().decode([String].self, from: Data(answer)) else {
      throw ScriptProblem(
        value: path, reason: "answered something other than its library folders", fix: "check that \(check)")
    }
    var result = self
    for folder in folders where folder.hasPrefix("/") {
      guard let real = realPath(folder) else { continue }  // a folder it names but does not have
      if let reason = Self.libraryFolderShapeProblem(real, program: program, kind: kind)
        ?? Self.systemPlaceProblem(folder, real: real, forbidden: forbidden)
      {
        throw ScriptProblem(
          value: folder, reason: "(a library folder of \(path)) \(reason)",
          fix: "use an interpreter installed for the system")
      }
      if !result.libraryFolders.contains(real) { result.libraryFolders.append(real) }
    }
    // The extension modules' libraries (from the trusted library folders only), and the files links point to.
    var files: [String] = []
    for folder in result.libraryFolders {
      var names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
      if kind == .perl {
        // Perl's extension modules lie below auto/ (auto/POSIX/POSIX.so); links there are not followed.
        let below = FileManager.default.enumerator(atPath: folder + "/auto")
        var count = 0
        while count < Self.folderEntryLimit, let name = below?.nextObject() as? String {
          count += 1
          if name.hasSuffix(".so") { names.append("auto/" + name) }
        }
      }
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
    // What the interpreter itself loads is granted at each launch (`LibraryGrants.resolve(systemProgram:)`).
    var seen = Set(LibraryGrants.resolve(systemProgram: program).libraries)
    result.libraryFiles = files.filter { !isInside($0, result.libraryFolders) && seen.insert($0).inserted }
    return result
  }

  /// Why `folder` (a real path) is not shaped like a library folder of the interpreter `program`, or nil when it
  /// is: for Python, `…/lib/python3.N` or `…/lib64/python3.N`, or `lib-dynload` below one; for perl, a folder named
  /// `perl`, `perl5`, `perl-base` or `site_perl`, or a version (`5.36`, `5.36.0`) below `perl` or `perl5`
  /// (Debian's `/usr/share/perl/5.36`, `/usr/lib/x86_64-linux-gnu/perl5/5.36`, `/etc/perl`); never `/`, `/usr`,
  /// `/usr/lib`, `/etc` or a folder above the interpreter.
  static func libraryFolderShapeProblem(_ folder: String, program: String, kind: Kind = .python) -> String? {
    let parts = folder.split(separator: "/").map(String.init)
    if kind == .perl {
      let perlNames = ["perl", "perl5", "perl-base", "site_perl"]
      let isVersion = { (name: String) in
        name.hasPrefix("5.") && name.split(separator: ".").allSatisfy { $0.allSatisfy { $0.isASCII && $0.isNumber } }
      }
      let last = parts.last ?? ""
      let shaped =
        perlNames.contains(last)
        || (parts.count >= 2 && isVersion(last) && ["perl", "perl5"].contains(parts[parts.count - 2]))
      guard shaped, !isInside(program, [folder]) else {
        return "is not shaped like a library folder of perl (…/perl, …/perl5, …/perl-base, …/site_perl, or a "
          + "version below perl or perl5; never a folder above the interpreter)"
      }
      return nil
    }
    func isVersion(_ name: String) -> Bool {
      name.hasPrefix("python3.") && name.count > 8 && name.dropFirst(8).allSatisfy { $0.isASCII && $0.isNumber }
    }
    func isLibrary(_ index: Int) -> Bool {
      index >= 1 && isVersion(parts[index]) && ["lib", "lib64"].contains(parts[index - 1])
    }
    let shaped =
      (parts.count >= 2 && isLibrary(parts.count - 1))
      || (parts.count >= 3 && parts.last == "lib-dynload" && isLibrary(parts.count - 2))
    guard shaped, !isInside(program, [folder]) else {
      return "is not shaped like a library folder of Python (…/lib/python3.N, or lib-dynload below it; never a "
        + "folder above the interpreter)"
    }
    return nil
  }

  /// The confinement of the install-time query of `program`: as root, the uid and gid 65534 (`nobody`), no
  /// supplementary group; Landlock: execute the program and its loader, read the system library folders, the
  /// program's prefix (the folder above its `bin`, when that is not `/`) and /dev/null, nothing else; seccomp (no new process, no
  /// socket); at most `answerSeconds` of CPU. nil where the kernel has no Landlock (the query then runs unconfined,
  /// as the host, still by its checked descriptor and bounded in time and output).
  static func querySandbox(program: String) -> SandboxSpec? {
    let abi = landlockABI()
    guard abi > 0 else { return nil }
    let grants = LibraryGrants.resolve(systemProgram: program)
    let prefix = ((program as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
    var spec = SandboxSpec(
      landlockABI: abi, executePaths: [program] + (grants.interpreter.map { [$0] } ?? []),
      readPaths: LibraryGrants.systemFolders + grants.libraries + (prefix == "/" || prefix.isEmpty ? [] : [prefix])
        + ["/dev/null"],  // perl -e reads its "script" from /dev/null
      writePaths: [])
    spec.cpuSeconds = answerSeconds
    if geteuid() == 0 { spec.identity = (uid: 65534, gid: 65534, groups: []) }
    return spec
  }

  /// Runs `program` (a checked system program) with `arguments` (argv[0] first), a fixed environment, in `/`,
  /// stdin on /dev/null and stderr discarded, in `sandbox` when given; returns what it wrote to stdout. With
  /// `executable`, that descriptor (of `program`, opened and checked) is what is executed. Its whole life is bounded
  /// by `seconds`: at the deadline its process group is killed, and it is reaped.
  /// - Throws: `SystemError` (or `SpawnError`) when it cannot run, writes more than `answerLimit` bytes, does not
  ///   end within `seconds`, or does not exit 0.
  static func ask(
    _ program: String, arguments: [String], executable: FileDescriptor? = nil, sandbox: SandboxSpec? = nil,
    seconds: Int = answerSeconds
  ) throws -> [UInt8] {
    let run = try runBounded(
      program, arguments: Array(arguments.dropFirst()), environment: ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"],
      extraDescriptor: executable, seconds: seconds, outputLimit: answerLimit, discardsStandardError: true
    ) { options in
      // The descriptor becomes the child's fd 3, and the kernel executes the file it names (/proc/self/fd/3: the
      // descriptor, not a path walked again).
      if executable != nil { options.executable = "/proc/self/fd/3" }
      options.arguments = arguments
      options.sandbox = sandbox
    }
    guard run.termination == .exited(0) else {
      throw SystemError(code: EIO, operation: "run", subject: program, detail: "\(run.termination)")
    }
    return run.output
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
      + app.appIntentsExtensions.map { ($0.info.bundleIdentifier, $0.executableURL.path) }
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
        if let problem = ScriptInterpreter.libraryFolderShapeProblem(
          folder, program: recorded.program, kind: recorded.kind)
          ?? ScriptInterpreter.systemPlaceProblem(folder, real: realPath(folder) ?? folder, forbidden: places)
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
