import Foundation
import IntentHostSystem
import UntrustedText

/// The files the dynamic loader needs to start an executable, as the sandbox grants them: exact files, never
/// folders, and only from the trusted library folders or the app's own bundle. What the ELF headers ask for
/// (`PT_INTERP`, `DT_RUNPATH`, `DT_RPATH`, `DT_NEEDED`) is input to these rules, never a grant in itself: a header
/// that points anywhere else makes the executable unsandboxable (`problems`), which validation reports and a launch
/// refuses.
struct LibraryGrants: Sendable, Equatable {
  /// The ELF interpreter, to be granted read and execute (the kernel opens it as an exec); nil for a static
  /// executable or a file that is not ELF.
  var interpreter: String?
  /// The shared libraries the loader opens, by real path, to be granted read.
  var libraries: [String] = []
  /// Why the executable cannot be sandboxed; empty when it can.
  var problems: [Problem] = []

  /// One header entry (or the executable itself) that points outside the folders the sandbox trusts.
  struct Problem: Sendable, Equatable {
    /// The rule, as `assistant validate` names it: `executable-outside-bundle`, `elf-interpreter`, `elf-runpath`
    /// or `elf-needed`.
    var rule: String
    /// The ELF file that holds the entry.
    var file: String
    /// The entry: "PT_INTERP", "DT_RUNPATH[0]", "DT_NEEDED[3]", or "CFBundleExecutable".
    var entry: String
    /// The value as written in the file.
    var value: String
    /// What is wrong, as a sentence fragment: "lists /, outside …".
    var reason: String
    /// How to fix it.
    var fix: String
  }

  /// The folders whose libraries any executable may be granted: the system library folders, with everything below
  /// them (the multiarch folders `x86_64-linux-gnu`, `aarch64-linux-gnu` included). Root owns them; they are
  /// trusted as the host is.
  static let systemFolders = ["/lib", "/lib64", "/usr/lib", "/usr/lib64"]

  /// Where the loader looks for a library that no RUNPATH or RPATH provides, in its order (ld.so's default path;
  /// the sandbox does not let it read `/etc/ld.so.cache`).
  static let defaultSearchPath: [String] = {
    #if arch(x86_64)
      let triplet = "x86_64-linux-gnu"
    #elseif arch(arm64)
      let triplet = "aarch64-linux-gnu"
    #else
      let triplet = ""
    #endif
    let multiarch = triplet.isEmpty ? [] : ["/lib/\(triplet)", "/usr/lib/\(triplet)"]
    return multiarch + ["/lib64", "/usr/lib64", "/lib", "/usr/lib"]
  }()

  /// The folder of the Swift runtime the host itself runs on (`libswiftCore.so`), when it is linked dynamically: an
  /// extension built by the same toolchain may load its libraries from there. Read from the host's own memory map,
  /// never from a bundle.
  static let hostSwiftRuntime: String? = {
    guard let fd = try? FileDescriptor.open("/proc/self/maps", O_RDONLY) else { return nil }
    defer { fd.close() }
    let text = String(decoding: (try? fd.readAll(limit: 8 << 20)) ?? [], as: UTF8.self)
    for line in text.split(separator: "\n") where line.hasSuffix("/libswiftCore.so") {
      guard let slash = line.firstIndex(of: "/") else { continue }
      return (String(line[slash...]) as NSString).deletingLastPathComponent
    }
    return nil
  }()

  /// The trusted library folders of this host: the system folders and the host's Swift runtime.
  static var trustedFolders: [String] { systemFolders + (hostSwiftRuntime.map { [$0] } ?? []) }

  /// How the trusted folders read in a message: "/lib, /lib64, /usr/lib, /usr/lib64 (and below), the Swift runtime
  /// /opt/swift/usr/lib/swift/linux".
  static var trustedDescription: String {
    "the system library folders (\(systemFolders.joined(separator: ", ")) and below)"
      + (hostSwiftRuntime.map { ", the host's Swift runtime (\($0))" } ?? "")
  }

  /// The most objects (the executable and its libraries) one resolution follows.
  static let objectLimit = 512

  /// Works out the grants for `executable` of a bundle inside the app bundle `appBundle` (an extension's `.appex`
  /// lies inside its app's `.app`, and may load libraries from anywhere in it).
  ///
  /// The executable must be a file of the app bundle (a link may point within it). Its `PT_INTERP` must lie in the
  /// system library folders. Each of its `DT_RUNPATH`/`DT_RPATH` folders (after `$ORIGIN` is expanded) and each
  /// `DT_NEEDED` with a slash must lie in the trusted folders or the app bundle, by its written form and by its real
  /// path. The same holds for every library of the bundle it loads. Libraries of the trusted folders are trusted:
  /// their own entries are followed only into trusted folders and the bundle, and never reported.
  static func resolve(executable: String, appBundle: String) -> LibraryGrants {
    var grants = LibraryGrants()
    let bundle = realPath(appBundle) ?? normalized(appBundle)
    guard let main = realPath(executable) else { return grants }  // missing: validation and exec report it
    if !isInside(main, [bundle]) {
      grants.problems.append(
        Problem(
          rule: "executable-outside-bundle", file: executable, entry: "CFBundleExecutable", value: executable,
          reason: "is a link to \(main), outside the bundle",
          fix: "put the executable itself in the bundle, not a link to a file elsewhere"))
      return grants
    }
    guard let info = ELFInfo.read(main) else { return grants }  // not ELF: exec decides
    follow(main: main, displayed: executable, info: info, bundle: bundle, into: &grants)
    return grants
  }

  /// Works out the grants for a system program that runs a script (`ScriptInterpreter`), or for one of its own
  /// extension modules: its loader, and the libraries it needs from the trusted library folders only (never from a
  /// bundle). `path` is a real path that passed `ScriptInterpreter`'s rules (root's, in no writable folder); its own
  /// entries pointing elsewhere are not followed, and reported as problems only for its loader.
  static func resolve(systemProgram path: String) -> LibraryGrants {
    var grants = LibraryGrants()
    guard let info = ELFInfo.read(path) else { return grants }
    follow(main: path, displayed: path, info: info, bundle: nil, into: &grants)
    return grants
  }

  /// The loader of `main` and the libraries of `main` and of each library it loads (a breadth-first walk of at most
  /// `objectLimit` objects), looked up in the trusted folders and `bundle`; `main` is trusted when `bundle` is nil.
  private static func follow(
    main: String, displayed executable: String, info: ELFInfo, bundle: String?, into grants: inout LibraryGrants
  ) {
    let bundleFolders = bundle.map { [$0] } ?? []
    let trusted = trustedFolders.map { realPath($0) ?? $0 }
    let systemReal = systemFolders.map { realPath($0) ?? $0 }

    if let interpreter = info.interpreter {
      let written = normalized(interpreter)
      let real = realPath(interpreter) ?? written
      if interpreter.hasPrefix("/") && isInside(written, systemFolders) && isInside(real, systemReal) {
        grants.interpreter = interpreter
      } else {
        grants.problems.append(
          Problem(
            rule: "elf-interpreter", file: executable, entry: "PT_INTERP", value: interpreter,
            reason: "is outside the system library folders (\(systemFolders.joined(separator: ", ")))",
            fix: "link with the system's loader (the default of cc and swiftc), e.g. /lib64/ld-linux-x86-64.so.2"))
      }
    }

    /// Whether a folder or file (written form, and real path when it exists) is one the sandbox may grant from.
    func allowed(_ path: String) -> Bool {
      let written = normalized(path)
      guard path.hasPrefix("/"), isInside(written, systemFolders + trusted + bundleFolders) else { return false }
      guard let real = realPath(written) else { return true }  // nothing there: nothing to grant
      return isInside(real, trusted + bundleFolders)
    }

    var queue: [(path: String, displayed: String, info: ELFInfo, trusted: Bool)] = [
      (main, executable, info, bundle == nil)
    ]
    var seen: Set<String> = [main]
    var index = 0
    while index < queue.count && index < objectLimit {
      let object = queue[index]
      index += 1
      let origin = (object.path as NSString).deletingLastPathComponent
      // DT_RUNPATH wins over DT_RPATH when both are present, as in the loader; the executable's RPATH also serves
      // the libraries it loads when it has no RUNPATH.
      var entries: [(name: String, index: Int, value: String)] =
        object.info.runPath.isEmpty
        ? object.info.rPath.enumerated().map { ("DT_RPATH", $0.offset, $0.element) }
        : object.info.runPath.enumerated().map { ("DT_RUNPATH", $0.offset, $0.element) }
      if object.info.runPath.isEmpty && index > 1 && info.runPath.isEmpty {
        entries += info.rPath.enumerated().map { ("DT_RPATH", $0.offset, $0.element) }
      }
      var searchFolders: [String] = []
      for entry in entries {
        let expanded = entry.value.replacingOccurrences(of: "${ORIGIN}", with: origin)
          .replacingOccurrences(of: "$ORIGIN", with: origin)
        if !expanded.contains("$") && allowed(expanded) {
          searchFolders.append(normalized(expanded))
        } else if !object.trusted {
          let reason: String
          if expanded.contains("$") {
            reason = "uses a token other than $ORIGIN, which the sandbox cannot check"
          } else if !expanded.hasPrefix("/") {
            reason =
              "is relative to the working directory (the container), outside \(trustedDescription) and the bundle"
          } else {
            let shown = expanded == entry.value ? "is" : "is \(Untrusted.sanitized(expanded)),"
            reason = "\(shown) outside \(trustedDescription) and the bundle"
          }
          grants.problems.append(
            Problem(
              rule: "elf-runpath", file: object.displayed, entry: "\(entry.name)[\(entry.index)]", value: entry.value,
              reason: reason,
              fix: "link with -Wl,-rpath,'$ORIGIN' (libraries in the bundle) or with no RUNPATH (system libraries)"))
        }
      }
      for (position, name) in object.info.needed.enumerated() {
        var found: String? = nil
        if name.contains("/") {
          if allowed(name) {
            found = realPath(name)
          } else if !object.trusted {
            grants.problems.append(
              Problem(
                rule: "elf-needed", file: object.displayed, entry: "DT_NEEDED[\(position)]", value: name,
                reason: name.hasPrefix("/")
                  ? "is outside \(trustedDescription) and the bundle"
                  : "is relative to the working directory (the container)",
                fix: "link the library by its soname (-lNAME, or a library built with -Wl,-soname), not by its path"))
          }
        } else {
          for folder in searchFolders + defaultSearchPath {
            let candidate = folder + "/" + name
            var status = stat()
            guard stat(candidate, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, allowed(candidate),
              let real = realPath(candidate)
            else { continue }
            found = real
            break
          }
        }
        guard let found, !seen.contains(found) else { continue }
        seen.insert(found)
        grants.libraries.append(found)
        if let library = ELFInfo.read(found) {
          queue.append((found, found, library, isInside(found, trusted)))
        }
      }
    }
  }

  /// The first problem as one line for a launch refusal: what, where, and the fix.
  var refusal: String? {
    guard let first = problems.first else { return nil }
    let more =
      problems.count > 1
      ? " (and \(problems.count - 1) more problem\(problems.count == 2 ? "" : "s"); `assistant validate` lists them)"
      : ""
    return
      "\(Untrusted.sanitized(first.file)): \(first.entry) \"\(Untrusted.sanitized(first.value))\" \(first.reason); "
      + "\(first.fix), and reinstall\(more)"
  }
}

/// `path` with `.` and `..` components and repeated slashes resolved as text (no file system access).
func normalized(_ path: String) -> String {
  var parts: [Substring] = []
  for part in path.split(separator: "/") {
    if part == "." || part.isEmpty { continue }
    if part == ".." {
      _ = parts.popLast()
    } else {
      parts.append(part)
    }
  }
  return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
}

/// The canonical path of an existing file (symbolic links resolved); nil when it does not exist.
func realPath(_ path: String) -> String? {
  guard let resolved = Glibc.realpath(path, nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}

/// Whether `path` is one of `folders` or below one of them (as text; give canonical paths for real containment).
func isInside(_ path: String, _ folders: [String]) -> Bool {
  folders.contains { folder in
    let folder = folder.hasSuffix("/") && folder.count > 1 ? String(folder.dropLast()) : folder
    return path == folder || path.hasPrefix(folder == "/" ? "/" : folder + "/")
  }
}

/// The parts of an ELF executable or library the sandbox reads: its interpreter, its library search folders and the
/// libraries it links. The file is hostile input: every offset and size is checked, and the parser reads at most a
/// few pages.
struct ELFInfo: Sendable, Equatable {
  /// `PT_INTERP`: the loader the kernel starts (ld.so).
  var interpreter: String?
  /// `DT_RUNPATH`, split at colons.
  var runPath: [String] = []
  /// `DT_RPATH`, split at colons (ignored by the loader when `DT_RUNPATH` is present).
  var rPath: [String] = []
  /// `DT_NEEDED`: the shared libraries it links, by soname (or by path, when linked by path).
  var needed: [String] = []

  /// The most `DT_NEEDED` entries and program headers read.
  static let entryLimit = 1024

  /// Reads `path`; nil when it is not a regular 64-bit little-endian ELF file (a script, a 32-bit program) or
  /// cannot be read.
  static func read(_ path: String) -> ELFInfo? {
    // Non-blocking, so a FIFO planted in place of a library cannot stall the host; only a regular file is read.
    guard let fd = try? FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY) else { return nil }
    defer { fd.close() }
    var status = stat()
    guard fstat(fd.rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    let size = UInt64(max(0, status.st_size))

    func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
      guard count > 0, offset < size, UInt64(count) <= size - offset, offset <= UInt64(Int64.max) else { return nil }
      var buffer = [UInt8](repeating: 0, count: count)
      let got = pread(fd.rawValue, &buffer, count, off_t(offset))
      return got == count ? buffer : nil
    }
    // Little-endian fields (the header says so, checked below), at offsets inside the buffers read.
    func u16(_ b: [UInt8], _ o: Int) -> UInt64 {
      UInt64(UInt16(littleEndian: b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt16.self) }))
    }
    func u32(_ b: [UInt8], _ o: Int) -> UInt64 {
      UInt64(UInt32(littleEndian: b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt32.self) }))
    }
    func u64(_ b: [UInt8], _ o: Int) -> UInt64 {
      UInt64(littleEndian: b.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: o, as: UInt64.self) })
    }

    guard let header = bytes(at: 0, count: 64), header[0..<4] == [0x7F, 0x45, 0x4C, 0x46], header[4] == 2,
      header[5] == 1
    else { return nil }
    let headerOffset = u64(header, 32)
    let headerSize = Int(u16(header, 54))
    let headerCount = Int(u16(header, 56))
    guard headerSize >= 56, headerSize <= 1024, headerCount <= entryLimit,
      let table = headerCount == 0 ? [] : bytes(at: headerOffset, count: headerSize * headerCount)
    else { return nil }

    var info = ELFInfo()
    var loads: [(address: UInt64, offset: UInt64, size: UInt64)] = []
    var dynamic: (offset: UInt64, size: UInt64)? = nil
    for index in 0..<headerCount {
      let o = index * headerSize
      let type = u32(table, o)
      let offset = u64(table, o + 8)
      let address = u64(table, o + 16)
      let fileSize = u64(table, o + 32)
      switch type {
      case 1: loads.append((address, offset, fileSize))  // PT_LOAD
      case 2: dynamic = (offset, fileSize)  // PT_DYNAMIC
      case 3:  // PT_INTERP
        if let text = bytes(at: offset, count: Int(min(fileSize, 4096))) {
          info.interpreter = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)
        }
      default: break
      }
    }
    guard let dynamic, dynamic.size >= 16,
      let entries = bytes(at: dynamic.offset, count: Int(min(dynamic.size, UInt64(16 * entryLimit))) & ~15)
    else { return info }

    var stringTable: UInt64? = nil
    var stringTableSize: UInt64 = 4096
    var runPaths: [UInt64] = []
    var rPaths: [UInt64] = []
    var needed: [UInt64] = []
    for o in stride(from: 0, to: entries.count, by: 16) {
      let tag = u64(entries, o)
      let value = u64(entries, o + 8)
      switch tag {
      case 0: break  // DT_NULL ends the table
      case 1: needed.append(value)
      case 5: stringTable = value
      case 10: stringTableSize = value
      case 15: rPaths.append(value)
      case 29: runPaths.append(value)
      default: continue
      }
      if tag == 0 { break }
    }
    // DT_STRTAB is an address: find the file offset through the segment that maps it.
    guard let stringTable,
      let segment = loads.first(where: { load in
        let (end, overflow) = load.address.addingReportingOverflow(load.size)
        return !overflow && stringTable >= load.address && stringTable < end
      })
    else { return info }
    let (base, overflow) = segment.offset.addingReportingOverflow(stringTable - segment.address)
    guard !overflow else { return info }
    func string(at offset: UInt64) -> String? {
      guard offset < stringTableSize else { return nil }
      let (start, overflow) = base.addingReportingOverflow(offset)
      guard !overflow, start < size else { return nil }
      let count = Int(min(4096, stringTableSize - offset, size - start))
      return bytes(at: start, count: count).map { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
    func paths(_ offsets: [UInt64]) -> [String] {
      // An empty element means the working directory to the loader: keep it, so the rules see it.
      offsets.flatMap {
        (string(at: $0) ?? "").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
      }
    }
    info.runPath = paths(runPaths)
    info.rPath = paths(rPaths)
    info.needed = needed.prefix(entryLimit).compactMap { string(at: $0) }.filter { !$0.isEmpty }
    return info
  }
}
