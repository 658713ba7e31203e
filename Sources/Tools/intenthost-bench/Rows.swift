import Foundation
import IntentHostSystem

/// Prints one table row (the name, then the median and p99 in ms) and appends it to `BENCH_RESULTS` as a JSON line,
/// for the goal table Scripts/bench prints at its end.
func row(_ name: String, _ samples: [Double]) async {
  let sorted = samples.sorted()
  let median = sorted[sorted.count / 2]
  let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
  print(name.padding(toLength: 44, withPad: " ", startingAt: 0) + String(format: " %9.3f %9.3f", median, p99))
  await Results.append([
    "name": .string(name), "median": .number(median), "p99": .number(p99), "n": .number(Double(samples.count)),
  ])
}

/// The measurements written for Scripts/bench's goal table: one JSON object a line, appended to the file that
/// `BENCH_RESULTS` names (nothing when it is unset).
enum Results {
  enum Value: Encodable, Sendable {
    case string(String)
    case number(Double)

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .string(let text): try container.encode(text)
      case .number(let number): try container.encode(number)
      }
    }
  }

  static func append(_ fields: [String: Value]) async {
    guard let path = ProcessInfo.processInfo.environment["BENCH_RESULTS"], !path.isEmpty else { return }
    do {
      var line = try JSONEncoder().encode(fields)
      line.append(UInt8(ascii: "\n"))
      let bytes = line
      // A write to the disk: off the cooperative pool. O_APPEND: each line lands whole at the end.
      try await offloaded { () throws(SystemError) -> Void in
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0 { throw SystemError.current("open", path) }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if written != bytes.count { throw SystemError.current("write", path) }
      }
    } catch {
      FileHandle.standardError.write(Data("intenthost-bench: BENCH_RESULTS not written: \(error)\n".utf8))
    }
  }
}
