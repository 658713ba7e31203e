import Foundation
import IntentHostSystem

/// Where passcodes come from: one line each from stdin (`--passcode-stdin`), else the terminal, without echo.
package struct PasscodeReader: Sendable {
  /// `--passcode-stdin`: one line of stdin each, instead of the terminal.
  package var fromStandardInput: Bool

  package init(fromStandardInput: Bool) { self.fromStandardInput = fromStandardInput }

  /// Reads one passcode, asking `prompt` on the terminal.
  /// - Throws: `HostError(.valueNeeded)` (75) when there is no terminal and no `--passcode-stdin`, or stdin ended
  ///   first.
  package func read(_ prompt: String) async throws -> String {
    // A terminal on stdin is always read without echo, --passcode-stdin or not.
    if fromStandardInput && !FileDescriptor.standardInput.isTerminal {
      guard let line = try await Self.line(from: .standardInput) else {
        throw HostError(.valueNeeded, "\(Self.needed(prompt)), but stdin ended (--passcode-stdin)")
      }
      return line
    }
    guard FileDescriptor.standardInput.isTerminal else {
      throw HostError(
        .valueNeeded,
        "\(Self.needed(prompt)), but there is no terminal to ask; pass it on stdin with --passcode-stdin")
    }
    let typed: String?
    do { typed = try await Self.readWithoutEcho(prompt) } catch let error as SystemError where error.code == ENXIO {
      throw HostError(
        .valueNeeded,
        "\(Self.needed(prompt)), but there is no controlling terminal to ask it on; pass it on stdin with "
          + "--passcode-stdin")
    }
    guard let line = typed else {
      throw HostError(.valueNeeded, "\(Self.needed(prompt)), but input ended")
    }
    return line
  }

  /// "the passcode is needed", naming the prompt when it is another ("Confirm the new passcode").
  static func needed(_ prompt: String) -> String {
    prompt == "Passcode" ? "the passcode is needed" : "the passcode is needed (\"\(prompt)\")"
  }

  /// One line of `fd` without its newline (a `\r` before it dropped too), read a byte at a time so that nothing
  /// after it is consumed; nil at end of input before any byte. Read off the cooperative pool; cancelling the task
  /// (Ctrl-C) ends the wait with `CancellationError`.
  static func line(from fd: FileDescriptor) async throws -> String? {
    try await lineAndEnd(from: fd)?.text
  }

  /// The line, and whether a newline ended it (else end of input did: Ctrl-D after some characters).
  static func lineAndEnd(from fd: FileDescriptor) async throws -> (text: String, newline: Bool)? {
    let read = try await cancellableBlockingWait { cancellation throws(SystemError) in
      try line(from: fd, cancellation: cancellation)
    }
    switch read {
    case .line(let line, let newline): return (line, newline)
    case .end: return nil
    case .woken: throw CancellationError()
    }
  }

  private enum LineRead: Sendable {
    case line(String, newline: Bool)
    case end
    case woken
  }

  /// Blocks until a line, end of input, or the task's cancellation.
  private static func line(from fd: FileDescriptor, cancellation: FileDescriptor) throws(SystemError) -> LineRead {
    var bytes: [UInt8] = []
    var byte = [UInt8](repeating: 0, count: 1)
    while true {
      let ready = try pollReadable([fd, cancellation], timeoutMilliseconds: -1)
      if ready[1] { return .woken }
      let count = try fd.read(into: &byte)
      if count == 0 { return bytes.isEmpty ? .end : .line(String(decoding: bytes, as: UTF8.self), newline: false) }
      if byte[0] == UInt8(ascii: "\n") { break }
      if bytes.count < 4096 { bytes.append(byte[0]) }
    }
    if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
    return .line(String(decoding: bytes, as: UTF8.self), newline: true)
  }

  /// Asks `prompt` on the controlling terminal and reads a line from it with echo off; the terminal's settings are
  /// restored on every path, Ctrl-C (a cancelled task) included.
  ///
  /// The terminal is made quiet before the prompt is shown, as `getpass` and `readpassphrase` do: what is typed once
  /// the prompt shows is never echoed, and the flush (TCSAFLUSH) discards only what was typed before it. When the
  /// read ends without a line (Ctrl-C, Ctrl-D), the prompt's line is ended, so that a message starts a line of its
  /// own.
  static func readWithoutEcho(_ prompt: String) async throws -> String? {
    let tty = try await offloaded { () throws(SystemError) in
      try FileDescriptor.open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
    }
    defer { tty.close() }
    let saved = try await offloaded { () throws(SystemError) -> termios in
      var saved = termios()
      guard tcgetattr(tty.rawValue, &saved) == 0 else { throw SystemError.current("tcgetattr", "/dev/tty") }
      var quiet = saved
      quiet.c_lflag &= ~tcflag_t(ECHO)
      quiet.c_lflag |= tcflag_t(ECHONL)
      // Ctrl-\ would end the host with a core dump before the terminal is restored: off while the passcode is read.
      // Ctrl-Z would stop the host with echo off, and a shell's `fg` would not turn it off again: off too (a control
      // byte typed is dropped from the passcode below).
      withUnsafeMutableBytes(of: &quiet.c_cc) {
        $0[Int(VQUIT)] = 0
        $0[Int(VSUSP)] = 0
      }
      guard tcsetattr(tty.rawValue, TCSAFLUSH, &quiet) == 0 else {
        throw SystemError.current("tcsetattr", "/dev/tty")
      }
      do throws(SystemError) {
        try tty.writeAll(Array((prompt + ": ").utf8))
      } catch {
        var restored = saved
        _ = tcsetattr(tty.rawValue, TCSAFLUSH, &restored)
        throw error
      }
      return saved
    }
    let result: Result<(text: String, newline: Bool)?, any Error>
    do { result = .success(try await lineAndEnd(from: tty)) } catch { result = .failure(error) }
    await withUncancelledTask {
      _ = try? await offloaded { () throws(SystemError) in
        var restored = saved
        _ = tcsetattr(tty.rawValue, TCSAFLUSH, &restored)
        switch result {
        case .success(.some(let line)) where line.newline: break  // the typed newline was echoed (ECHONL)
        case .failure(is CancellationError): break  // the interrupt's message starts a line of its own
        case .success, .failure: try tty.writeAll(Array("\n".utf8))  // Ctrl-D ended it: end the prompt's line
        }
      }
    }
    // Control characters cannot be part of a passcode typed at a terminal (a Ctrl-Z or Ctrl-\ pressed on the way).
    return try result.get().map { String($0.text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }) }
  }
}
