import BundleManifest
import Foundation
import IntentCodegen
import UntrustedText

// intenthost-intentgen: the tool of IntentDefinitionPlugin (docs/INTENT-CODEGEN.md). It writes the typed Swift of
// the intent definitions it is given, and of the system intents an extension's Info.plist lists, to one file. A
// definition that cannot be Swift is one error line naming the file, the thing in it and the fix, and exit 65: the
// build fails with it.
//
// usage: intenthost-intentgen --output FILE [--info-plist PLIST] [DEFINITION ...]

let usage = "usage: intenthost-intentgen --output FILE [--info-plist PLIST] [DEFINITION ...]"

/// Prints `message` as an error line of the build and exits with `status` (sysexits: 64 usage, 65 data, 74 I/O).
func fail(_ message: String, status: Int32) -> Never {
  FileHandle.standardError.write(Data((Untrusted.shown(message) + "\n").utf8))
  exit(status)
}

var output: String?
var infoPlist: String?
var definitionPaths: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--output": output = arguments.popFirst()
  case "--info-plist": infoPlist = arguments.popFirst()
  case "-h", "--help":
    print(usage)
    exit(0)
  default:
    if argument.hasPrefix("-") { fail("intenthost-intentgen: unknown option \(argument)\n\(usage)", status: 64) }
    definitionPaths.append(argument)
  }
}
guard let output else { fail("intenthost-intentgen: --output is missing\n\(usage)", status: 64) }

let request = IntentCodegenRequest(definitions: definitionPaths, infoPlist: infoPlist)
let source: String
do {
  source = try request.source()
} catch {
  fail("\(error)", status: 65)
}
do {
  try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
} catch {
  fail("\(output): error: cannot write the generated Swift: \(error)", status: 74)
}
