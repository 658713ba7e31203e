import ExtensionSDK
import Foundation

// A misbehaving Intents extension for the fault tests. Its fault is chosen by argv[0], which the host sets to the
// extension bundle's name (FixtureName.appex). It speaks the protocol by hand, to break it precisely.
#if canImport(Glibc)
  import Glibc
#endif

let mode = (CommandLine.arguments.first ?? "").split(separator: "/").last.map(String.init) ?? ""
func send(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

struct Header: Decodable {
  var id: Int?
  var method: String?
}

/// What the Hostile* modes put in every string they send: a window title (OSC 0), a clipboard write (OSC 52, "rm -rf
/// ~" in base64), a cleared screen, a C1 CSI (U+009B) and a right-to-left override (U+202E).
let hostileText = "\u{1B}]0;title\u{07}\u{1B}]52;c;cm0gLXJmIH4=\u{07}\u{1B}[2J\u{9B}31m\u{202E}txet\u{202C}"

/// A string as a JSON string literal.
func json(_ text: String) -> String { String(decoding: try! JSONEncoder().encode(text), as: UTF8.self) }

/// Writes `text` to stderr as it is, and a line that reads like the host's own fault line.
func writeHostileStderr(_ text: String) {
  let bytes = Array("--- host: fault: \(mode) (forged) crashed with SIGSEGV\n\(text)\n".utf8)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

var resolveCount = 0

func marker(_ name: String, _ text: String = "") {
  let home = ProcessInfo.processInfo.environment["HOME"] ?? "/tmp"
  _ = FileManager.default.createFile(atPath: home + "/" + name, contents: Data(text.utf8))
}

if mode == "ExitEarly" { exit(3) }

// The containing app ("Fixture", its CFBundleName): handles PingIntent in the app when the extension answers handleInApp. What it
// does is chosen by the file `app-mode` in its bundle: "serve" (default), "ignore" (a plain app that does not
// serve), "crash" (crashes in handle), "flood" (writes 4 MiB to stdout when opened), "authenticate" (asks the host to
// authenticate the user, and answers success when approved, failure otherwise, with the outcome as `value`).
struct PingInApp: IntentHandler {
  let appMode: String
  func handle(_ intent: Intent, in context: ExtensionContext) async throws -> IntentResponse {
    if appMode == "crash" { fatalError("the fixture app gave up") }
    if appMode == "authenticate" {
      let outcome = try await context.requestAuthentication(reason: "Finish in the app")
      return IntentResponse(
        code: outcome == .approved ? .success : .failure, parameters: ["value": .string("\(outcome) in the app")])
    }
    _ = FileManager.default.createFile(atPath: context.containerPath + "/handled-in-app", contents: Data())
    let value = intent["value"].flatMap { if case .string(let s) = $0 { s } else { nil } } ?? ""
    return IntentResponse(code: .success, parameters: ["value": .string("\(value) from the app")])
  }
}

// The containing app launched by `assistant open Fixture -- hostile` (argv[0] is its executable's name): writes the
// hostile text to stdout and stderr, which the host relays to its own.
if mode == "fixture" && CommandLine.arguments.dropFirst().first == "hostile" {
  print("app says " + hostileText)
  FileHandle.standardError.write(Data("app complains \(hostileText)\n".utf8))
  exit(0)
}

// The containing app launched by `assistant open Fixture -- host-channel LINE...`: writes each LINE to its host channel
// (INTENTHOST_HOST_FD) by hand and prints the host's answer line (or "EOF" once the host has closed it).
if mode == "fixture" && CommandLine.arguments.dropFirst().first == "host-channel" {
  guard let fd = ProcessInfo.processInfo.environment["INTENTHOST_HOST_FD"].flatMap({ Int32($0) }) else {
    print("no INTENTHOST_HOST_FD")
    exit(1)
  }
  signal(SIGPIPE, SIG_IGN)
  for line in CommandLine.arguments.dropFirst(2) {
    let bytes = Array((line + "\n").utf8)
    var sent = 0
    while sent < bytes.count {
      let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      sent += n
    }
    var answer: [UInt8] = []
    var byte: UInt8 = 0
    while read(fd, &byte, 1) == 1 && byte != 10 { answer.append(byte) }
    print(answer.isEmpty ? "EOF" : String(decoding: answer, as: UTF8.self))
  }
  exit(0)
}

// The containing app launched by `assistant open Fixture -- vocabulary TYPE [TERM...]`: registers the terms of TYPE
// through the SDK (`VocabularyRegistering`, on its host channel) and prints how many the host kept, or the error.
if mode == "fixture" && CommandLine.arguments.dropFirst().first == "vocabulary" {
  let type = CommandLine.arguments.dropFirst(2).first.flatMap(VocabularyStringType.init(rawValue:))
  guard let type else {
    print("usage: vocabulary TYPE [TERM...]")
    exit(64)
  }
  do {
    let registering: any VocabularyRegistering = try AppContext.current()
    let kept = try await registering.setVocabularyStrings(Array(CommandLine.arguments.dropFirst(3)), of: type)
    print("kept \(kept)")
    exit(0)
  } catch {
    print("refused: \(error)")
    exit(1)
  }
}

if mode == "Fixture" || mode == "fixture" {  // launched for handleInApp (its name) or by `open` (its executable)
  let bundle = ProcessInfo.processInfo.environment["INTENTHOST_BUNDLE_PATH"] ?? ""
  let appMode = ((try? String(contentsOfFile: bundle + "/app-mode", encoding: .utf8)) ?? "serve")
    .filter { !$0.isWhitespace }
  // Brought to the foreground to continue an intent (continueInApp): says what it was given, on stdout.
  if let context = try? AppContext.current(), context.launchReason == "continueUserActivity" {
    guard let activity = context.userActivity else {
      print("Fixture app: continueUserActivity without an activity")
      exit(1)
    }
    let info = activity.userInfo.keys.sorted().map { "\($0)=\(activity.userInfo[$0]!)" }.joined(separator: ",")
    print(
      "Fixture app continues \(activity.activityType) [\(info)] for \(activity.interaction.intent.name) "
        + "(\(activity.interaction.response?.code.rawValue ?? "-"), \(activity.interaction.handlingStatus ?? "-"))")
    exit(0)
  }
  if InAppIntentHandling.isRequested && appMode != "ignore" {
    await InAppIntentHandling.serve { intent in intent.name == "PingIntent" ? PingInApp(appMode: appMode) : nil }
  }
  if appMode == "flood" {
    // 4 MiB on stdout, for the tests of a reader that stalls or goes away.
    let block = Array((String(repeating: "y", count: 4095) + "\n").utf8)
    for _ in 0..<1024 { if (block.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }) < 0 { exit(1) } }
    exit(0)
  }
  print("Fixture app: nothing to do")
  exit(0)
}

/// The string `value` of the intent in a request line, if it has one.
func requestedValue(_ line: String) -> String? {
  struct Request: Decodable {
    struct Params: Decodable {
      struct IntentBody: Decodable { var parameters: [String: Value]? }
      var intent: IntentBody?
    }
    struct Value: Decodable { var value: String? }
    var params: Params?
  }
  return (try? JSONDecoder().decode(Request.self, from: Data(line.utf8)))?.params?.intent?.parameters?["value"]?.value
}

/// How many `intent/handle` requests this process answered (SlowPing).
var handled = 0

while let line = readLine() {
  guard let header = try? JSONDecoder().decode(Header.self, from: Data(line.utf8)), let method = header.method else {
    continue
  }
  let id = header.id ?? 0
  switch method {
  case "initialize":
    if mode == "GarbageLine" {
      send("this is not JSON")
      continue
    }
    if mode == "WrongID" {
      send(#"{"jsonrpc":"2.0","id":\#(id + 100),"result":{"protocolVersion":1,"implementation":"fixture"}}"#)
      continue
    }
    if mode == "SilentHandshake" {
      marker("started")
      continue
    }
    if mode == "LeaveChild" {
      let child = fork()
      if child == 0 {
        // The grandchild closes the protocol pipes and lingers in the extension's process group.
        close(0)
        close(1)
        sleep(60)
        _exit(0)
      }
      marker("grandchild.pid", String(child))
    }
    send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"protocolVersion":1,"implementation":"fixture"}}"#)
  case "intent/resolve":
    if mode == "CrashOnResolve" { raise(SIGSEGV) }
    if mode == "HostileText" {
      // An unsupported value with a message, then two candidates to choose from, then the choice is accepted.
      resolveCount += 1
      switch resolveCount {
      case 1:
        send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"kind":"unsupported","message":\#(json("No: " + hostileText))}}"#)
      case 2:
        let candidates = ["one " + hostileText, "two\nassistant: forged candidate"].map {
          #"{"type":"string","value":\#(json($0))}"#
        }
        send(
          #"{"jsonrpc":"2.0","id":\#(id),"result":{"kind":"disambiguation","candidates":[\#(candidates.joined(separator: ","))]}}"#
        )
      default:
        send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"kind":"notRequired"}}"#)
      }
      continue
    }
    if mode == "AskForever" {
      // Never satisfied: every value is unsupported, until the host gives up.
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"kind":"unsupported"}}"#)
      continue
    }
    if mode.hasPrefix("Ask") {
      // One resolution kind per mode for `value` (the first resolve), then the value is accepted as it is.
      resolveCount += 1
      let value = requestedValue(line)
      let first: String? =
        switch mode {
        case "AskConfirm": #"{"kind":"confirmationRequired","value":{"type":"string","value":"x"}}"#
        case "AskNeedsValue": value == nil ? #"{"kind":"needsValue"}"# : nil
        case "AskUnsupported": #"{"kind":"unsupported"}"#
        // A reason the definition words ("Sorry, ${value} is too long."): its text is said, not the message.
        case "AskUnsupportedReason": #"{"kind":"unsupported","reason":"tooLong","message":"not this message"}"#
        // A reason the definition does not know: the message is said.
        case "AskUnsupportedMessage":
          #"{"kind":"unsupported","reason":"notInTheDefinition","message":"No value like that here."}"#
        case "AskSuccessValue": #"{"kind":"success","value":{"type":"string","value":"resolved"}}"#
        case "AskSuccessKeep": #"{"kind":"success"}"#
        case "AskNotRequired": #"{"kind":"notRequired"}"#
        case "AskDisambiguation":
          #"{"kind":"disambiguation","candidates":[{"type":"string","value":"alpha"},{"type":"string","value":"beta"},{"type":"string","value":"gamma"}]}"#
        default: nil
        }
      if resolveCount == 1, let first {
        send(#"{"jsonrpc":"2.0","id":\#(id),"result":\#(first)}"#)
      } else if let value {
        send(
          #"{"jsonrpc":"2.0","id":\#(id),"result":{"kind":"success","value":{"type":"string","value":\#(json(value))}}}"#
        )
      } else {
        send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"kind":"notRequired"}}"#)
      }
      continue
    }
    send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"kind":"notRequired"}}"#)
  case "intent/confirm":
    if mode == "ConfirmFailure" {
      // The answer at the confirm step ends the intent: handle is never asked.
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"failure","parameters":{"value":{"type":"string","value":"refused at confirm"}}}}"#
      )
      continue
    }
    send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"ready","parameters":{}}}"#)
  case "intent/handle":
    switch mode {
    case "HangOnHandle":
      marker("hanging")
      while true { sleep(1000) }
    case "FatalError":
      fatalError("the fixture gave up")
    case "StderrBurstThenExit":
      // 200 KB on stderr, then exit at once: the host must log all of it before the end line.
      let line = Array((String(repeating: "x", count: 199) + "\n").utf8)
      for _ in 0..<1000 { _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) } }
      let last = Array("the last line of the burst\n".utf8)
      _ = last.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
      exit(4)
    case "ForeignGroup":
      // Opens an app group its entitlements do not list: the SDK must refuse, as iOS returns no container.
      do {
        _ = try AppContext.current().appGroup("group.com.example.other")
        send(
          #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{"value":{"type":"string","value":"opened"}}}}"#
        )
      } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"failure","parameters":{}}}"#)
      }
    case "AskConfirm", "AskNeedsValue", "AskUnsupported", "AskUnsupportedReason", "AskUnsupportedMessage",
      "AskSuccessValue", "AskSuccessKeep", "AskNotRequired", "AskDisambiguation":
      // The value the intent arrived with, in the answer.
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{"value":{"type":"string","value":\#(json(requestedValue(line) ?? "-"))}}}}"#
      )
    case "ConfirmFailure":
      marker("handled")  // never reached: the confirm answer ended the intent
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{}}}"#)
    case "HandleInApp":
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"handleInApp","parameters":{}}}"#)
    case "ContinueInApp":
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"continueInApp","parameters":{},"userActivity":{"activityType":"com.example.fixture.ping","userInfo":{"value":"x"}}}}"#
      )
    case "NeedsTheApp":
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"failureRequiringAppLaunch","parameters":{}}}"#)
    case "SlowPing":
      // inProgress on the first handle, the final response when asked again.
      handled += 1
      send(
        handled == 1
          ? #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"inProgress","parameters":{}}}"#
          : #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{"value":{"type":"string","value":"late pong"}}}}"#
      )
    case "AlwaysBusy":
      // inProgress every time it is asked; how often it was asked is in its container.
      handled += 1
      marker("handled", String(handled))
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"inProgress","parameters":{}}}"#)
    case "Unspecified":
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"unspecified","parameters":{}}}"#)
    case "ReadyOnHandle":
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"ready","parameters":{}}}"#)
    case "NeedsTheAppToVerify":
      // A domain code of the definition that begins with failureRequiringAppLaunch.
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"failureRequiringAppLaunchMustVerifyCredentials","parameters":{"value":{"type":"string","value":"your account"}}}}"#
      )
    case "UnknownCode":
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"exploded","parameters":{}}}"#)
    case "ForgedLine":
      // A response parameter with a newline, to start a line of its own that reads like the host's.
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{"value":{"type":"string","value":\#(json("ok\nassistant: error: FORGED"))}}}}"#
      )
    case "HostileText":
      writeHostileStderr("stderr " + hostileText)
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{"value":{"type":"string","value":\#(json(hostileText))}}}}"#
      )
    case "ChattyStderr":
      // 1.1 MiB of stderr lines, beyond what one launch may log, then an answer.
      let line = Array((String(repeating: "chatter ", count: 127) + "\n").utf8)
      for _ in 0..<1100 { _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) } }
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{"value":{"type":"string","value":"pong"}}}}"#
      )
    case "HostileCode":
      send(#"{"jsonrpc":"2.0","id":\#(id),"result":{"code":\#(json("code" + hostileText)),"parameters":{}}}"#)
    case "HostileError":
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"error":{"code":-33002,"message":\#(json("error " + hostileText + "\nassistant: forged"))}}"#
      )
    case "HostileCrash":
      // Its last words on stderr are quoted in the fault line.
      writeHostileStderr("last words " + hostileText)
      exit(3)
    default:
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"code":"success","parameters":{"value":{"type":"string","value":"pong"}}}}"#
      )
    }
  case "ui/configureView":
    struct Asked: Decodable {
      struct Params: Decodable {
        struct Interaction: Decodable { var handlingStatus: String? }
        var parameters: [String]
        var interaction: Interaction?
      }
      var params: Params
    }
    let request = (try? JSONDecoder().decode(Asked.self, from: Data(line.utf8)))?.params
    let asked = request?.parameters ?? []
    let names = "[" + asked.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    switch mode {
    case "UIRecorder":
      // Says on stderr (its log) each call it gets, with the interaction's status, and draws the same line; claims
      // only the parameters it is asked for, so the host asks again for each one.
      let call = "\(request?.interaction?.handlingStatus ?? "-") [\(asked.joined(separator: ", "))]"
      FileHandle.standardError.write(Data("configureView \(call)\n".utf8))
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"success":true,"parameters":\#(names),"size":{"width":300,"height":40},"snippet":{"text":\#(json(call))}}}"#
      )
    case "UICrash": raise(SIGSEGV)
    case "UIHang":
      marker("drawing")
      while true { sleep(1000) }
    case "HostileSnippet":
      let snippet =
        #"{"stack":[{"text":\#(json("card " + hostileText))},{"row":{"label":"Room","value":\#(json("12\nassistant: forged row"))}}]}"#
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"success":true,"parameters":\#(names),"size":{"width":300,"height":40},"snippet":\#(snippet)}}"#
      )
    case "UIOversize":
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"success":true,"parameters":\#(names),"size":{"width":5000,"height":5000},"snippet":{"text":"huge"}}}"#
      )
    default:
      // Shows exactly the parameters it is asked for, so the host asks again for each one.
      let text = "showing " + asked.joined(separator: ", ")
      send(
        #"{"jsonrpc":"2.0","id":\#(id),"result":{"success":true,"parameters":\#(names),"size":{"width":300,"height":40},"snippet":{"text":"\#(text)"}}}"#
      )
    }
  case "shutdown":
    send(#"{"jsonrpc":"2.0","id":\#(id),"result":{}}"#)
  case "exit":
    exit(0)
  default:
    send(#"{"jsonrpc":"2.0","id":\#(id),"error":{"code":-32601,"message":"no"}}"#)
  }
}
exit(0)
