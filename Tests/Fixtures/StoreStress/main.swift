@_spi(Testing) import AppGroupStore

// store-stress: one process of the store's multi-process tests and benchmark.
//
//   store-stress increment DOCUMENT COUNT [--no-lock] [--in-place] [--compact-every N] [--quiet]
//       COUNT read-modify-write increments of {"count": N} in DOCUMENT; after each one returns (committed), prints
//       "ack VALUE" on stdout unless --quiet. --no-lock turns the store's lock off, for the control test that shows
//       lost updates without it. --in-place writes the document in place, as a naive writer does, for the control
//       test that shows torn files under kills.
//   store-stress read DOCUMENT
//       prints the count.
#if canImport(Glibc)
  import Glibc
#endif

struct Counter: DocumentContent {
  static let schemaVersion = 1
  var count = 0
  init() {}
}

func say(_ text: String) {
  let bytes = Array((text + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

func fail(_ text: String) -> Never {
  let bytes = Array(("store-stress: " + text + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  exit(text.hasPrefix("usage") ? 64 : 1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage =
  "usage: store-stress increment DOCUMENT COUNT [--no-lock] [--in-place] [--compact-every N] [--quiet] | read DOCUMENT"
guard arguments.count >= 2 else { fail(usage) }
var document = Document<Counter>(path: arguments[1])
switch arguments[0] {
case "increment":
  guard arguments.count >= 3, let count = Int(arguments[2]) else { fail(usage) }
  var quiet = false
  var index = 3
  while index < arguments.count {
    switch arguments[index] {
    case "--no-lock": document.lockingDisabled = true
    case "--in-place": document.writesInPlace = true
    case "--quiet": quiet = true
    case "--compact-every":
      index += 1
      guard index < arguments.count, let records = Int(arguments[index]), records > 0 else { fail(usage) }
      document.compactionRecords = records
    default: fail(usage)
    }
    index += 1
  }
  var errors = 0
  for _ in 0..<count {
    do {
      let value = try document.update { content -> Int in
        content.count += 1
        return content.count
      }
      if !quiet { say("ack \(value)") }
    } catch {
      // Without the lock, writers trip over each other's files; keep going so the lost updates show.
      guard document.lockingDisabled else { fail("\(error)") }
      errors += 1
    }
  }
  if errors > 0 { fail("\(errors) of \(count) increments failed without the lock") }
case "read":
  do {
    say(String(try document.read().count))
  } catch {
    fail("\(error)")
  }
default:
  fail(usage)
}
