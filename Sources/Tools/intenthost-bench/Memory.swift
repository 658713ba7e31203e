import Foundation
import IntentHostSystem

/// A field of /proc/PID/status in KiB, e.g. "VmRSS".
func statusKiB(_ pid: Int32, _ field: String) -> Int? {
  guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
  for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
  }
  return nil
}

func memoryLine(_ pid: Int32) -> String {
  func mib(_ field: String) -> String { statusKiB(pid, field).map { String(format: "%.1f", Double($0) / 1024) } ?? "?" }
  return "\(mib("VmRSS")) MiB (anonymous \(mib("RssAnon")), file-backed \(mib("RssFile")))"
}

/// The memory of one process from /proc/PID/smaps_rollup, in KiB: what only it maps (`Private_Clean` +
/// `Private_Dirty`) and what it shares with other processes (`Shared_Clean` + `Shared_Dirty`: the pages of a
/// binary or a library that another process maps too).
struct ProcessMemory: Sendable {
  var name: String
  var privateKiB: Int
  var sharedKiB: Int

  /// Reads the process's rollup (off the cooperative pool); nil when it is gone or unreadable.
  static func of(_ pid: Int32) async -> ProcessMemory? {
    await offloaded { () -> ProcessMemory? in
      guard let rollup = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
        let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
      else { return nil }
      var fields: [Substring: Int] = [:]
      for line in rollup.split(separator: "\n") {
        let parts = line.split(separator: " ", omittingEmptySubsequences: true)
        if parts.count >= 2, parts[0].hasSuffix(":"), let kib = Int(parts[1]) { fields[parts[0].dropLast()] = kib }
      }
      func sum(_ names: String...) -> Int { names.reduce(0) { $0 + (fields[Substring($1)] ?? 0) } }
      return ProcessMemory(
        name: URL(fileURLWithPath: executable).lastPathComponent,
        privateKiB: sum("Private_Clean", "Private_Dirty"), sharedKiB: sum("Shared_Clean", "Shared_Dirty"))
    }
  }

  /// Prints "memory: ROLE (NAME): private X MiB, shared Y MiB" and appends it to the results.
  func report(as role: String) async {
    let label = "memory: \(role) (\(name))"
    let mib = (Double(privateKiB) / 1024, Double(sharedKiB) / 1024)
    print(label + String(format: ": private %.1f MiB, shared %.1f MiB", mib.0, mib.1))
    await Results.append([
      "name": .string(label), "private_kib": .number(Double(privateKiB)), "shared_kib": .number(Double(sharedKiB)),
    ])
  }
}
