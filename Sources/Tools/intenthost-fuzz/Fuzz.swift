// `intenthost-fuzz TARGET ...`: one fuzz target of FuzzTargets.
//
// Built by `Scripts/fuzz` with `-sanitize=fuzzer,address -DINTENTHOST_FUZZ`, it is a libFuzzer binary: the first
// argument names the target and the rest are libFuzzer's (flags, then corpus folders). In the ordinary build it
// replays files instead: `intenthost-fuzz TARGET FILE...` runs each through the target and prints the properties
// that broke, so that a crash file reproduces without the fuzzing build.
import FuzzTargets

#if canImport(Glibc)
  import Glibc
#endif

/// Writes `text` to standard error.
func complain(_ text: String) {
  var bytes = Array(text.utf8)
  bytes.withUnsafeMutableBytes { _ = write(2, $0.baseAddress, $0.count) }
}

/// The target named by the first argument; prints the list and exits 64 when there is none.
func chosenTarget(_ arguments: [String]) -> FuzzTarget {
  guard arguments.count >= 2, let target = FuzzTargets.named(arguments[1]) else {
    let names = FuzzTargets.all.map { "  \($0.name): \($0.summary)" }.joined(separator: "\n")
    complain("usage: intenthost-fuzz TARGET ...\ntargets:\n\(names)\n")
    exit(64)
  }
  return target
}

#if INTENTHOST_FUZZ
  nonisolated(unsafe) var fuzzTarget: FuzzTarget? = nil

  @_silgen_name("LLVMFuzzerRunDriver")
  func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
  ) -> CInt

  /// libFuzzer's callback: a broken property is a crash, so that libFuzzer keeps the input.
  @_cdecl("LLVMFuzzerTestOneInput")
  func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let target = fuzzTarget else { return 0 }
    let bytes = count == 0 ? [] : Array(UnsafeBufferPointer(start: start, count: count))
    let problems = target.check(bytes)
    if !problems.isEmpty {
      fatalError("\(target.name): " + problems.joined(separator: "; "))
    }
    return 0
  }

  /// The package's entry point (SwiftPM links `main` to it): takes the target's name off the arguments and hands the
  /// rest to libFuzzer.
  @_cdecl("intenthost_fuzz_main")
  func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    let arguments = (0..<Int(argc)).map { String(cString: argv[$0]!) }
    let target = chosenTarget(arguments)
    fuzzTarget = target
    // libFuzzer's arguments: the program, the target's input limit unless one is given, then the rest.
    var forwarded = [arguments[0]]
    if !arguments.contains(where: { $0.hasPrefix("-max_len=") }) {
      forwarded.append("-max_len=\(target.maximumLength)")
    }
    forwarded += arguments.dropFirst(2)
    var pointers: [UnsafeMutablePointer<CChar>?] = forwarded.map { strdup($0) } + [nil]
    var count = CInt(forwarded.count)
    return pointers.withUnsafeMutableBufferPointer { buffer in
      var base = buffer.baseAddress
      return LLVMFuzzerRunDriver(&count, &base, fuzzOne)
    }
  }
#else
  @main
  enum Replay {
    static func main() {
      let arguments = CommandLine.arguments
      let target = chosenTarget(arguments)
      var failed = 0
      for path in arguments.dropFirst(2) {
        guard let handle = fopen(path, "rb") else {
          complain("intenthost-fuzz: cannot read \(path)\n")
          exit(66)
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
          let got = fread(&buffer, 1, buffer.count, handle)
          if got <= 0 { break }
          bytes += buffer[..<got]
        }
        fclose(handle)
        let problems = target.check(bytes)
        if !problems.isEmpty {
          failed += 1
          print("\(path): " + problems.joined(separator: "; "))
        }
      }
      print("\(target.name): \(arguments.count - 2) inputs, \(failed) with a broken property")
      exit(failed == 0 ? 0 : 1)
    }
  }
#endif
