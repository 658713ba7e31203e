import Foundation
import IntentHostSystem
import TestSupport
import Testing

/// Unix sockets named in a folder, their peer's credentials, and frames that carry descriptors.
@Suite(.timeLimit(.minutes(1)), .tags(.process))
struct UnixSocketTests {
  @Test func aFrameCarriesPipesThatWorkOnTheOtherSide() throws {
    let (a, b) = try FileDescriptor.socketPair()
    defer { a.close(); b.close() }
    let pipe = try FileDescriptor.pipe()
    defer { pipe.read.close() }
    try UnixSocket.sendFrame(Array("hello".utf8), descriptors: [pipe.write], on: a, timeoutMilliseconds: 1000)
    pipe.write.close()  // the other side's copy keeps the pipe open
    let (payload, descriptors) = try UnixSocket.receiveFrame(from: b, limit: 100, timeoutMilliseconds: 1000)
    #expect(payload == Array("hello".utf8))
    try #require(descriptors.count == 1)
    try descriptors[0].writeAll(Array("through".utf8))
    descriptors[0].close()
    #expect(try pipe.read.readAll(limit: 100) == Array("through".utf8))
  }

  @Test func aFrameIsReadExactlyAndWhatFollowsStays() throws {
    let (a, b) = try FileDescriptor.socketPair()
    defer { a.close(); b.close() }
    try UnixSocket.sendFrame(Array("one".utf8), on: a, timeoutMilliseconds: 1000)
    try a.writeAll(Array("{\"jsonrpc\":\"2.0\"}\n".utf8))
    #expect(try UnixSocket.receiveFrame(from: b, limit: 100, timeoutMilliseconds: 1000).payload == Array("one".utf8))
    var rest = [UInt8](repeating: 0, count: 64)
    let count = try b.read(into: &rest)
    #expect(Array(rest[..<count]) == Array("{\"jsonrpc\":\"2.0\"}\n".utf8))
  }

  @Test func aLongFrameATruncatedOneAndASilentPeerAreErrors() throws {
    func pair() throws -> (FileDescriptor, FileDescriptor) {
      let (a, b) = try FileDescriptor.socketPair()
      try b.setNonBlocking(true)
      return (a, b)
    }
    let (a, b) = try pair()
    try UnixSocket.sendFrame(Array(repeating: 65, count: 200), on: a, timeoutMilliseconds: 1000)
    let long = try #require(throws: SystemError.self) {
      try UnixSocket.receiveFrame(from: b, limit: 100, timeoutMilliseconds: 1000)
    }
    #expect(long.code == EMSGSIZE)
    a.close()
    b.close()
    let (c, d) = try pair()
    defer { d.close() }
    let silent = try #require(throws: SystemError.self) {
      try UnixSocket.receiveFrame(from: d, limit: 1000, timeoutMilliseconds: 50)
    }
    #expect(silent.code == ETIMEDOUT)
    try c.writeAll([0, 0, 0, 10, 65, 65])  // 10 bytes promised, 2 sent, then the end
    c.close()
    let truncated = try #require(throws: SystemError.self) {
      try UnixSocket.receiveFrame(from: d, limit: 1000, timeoutMilliseconds: 1000)
    }
    #expect(truncated.code == ECONNRESET)
  }

  @Test func aSocketInAFolderOfAnyPathLengthIsTheUsersAloneAndKnowsItsPeer() throws {
    let directory = try TemporaryDirectory("intenthost-socket")
    defer { directory.remove() }
    // Longer than a sockaddr_un's 108 bytes: reached through the folder's descriptor.
    let deep = directory.file(String(repeating: "d", count: 60) + "/" + String(repeating: "e", count: 60)).path
    try FileManager.default.createDirectory(atPath: deep, withIntermediateDirectories: true)
    let folder = try DirectoryDescriptor.openTrusted(deep)
    defer { folder.close() }
    let missing = try #require(throws: SystemError.self) { try UnixSocket.connect(in: folder, name: "s.sock") }
    #expect(missing.code == ENOENT)
    let listener = try UnixSocket.listen(in: folder, name: "s.sock")
    var info = stat()
    #expect(stat(deep + "/s.sock", &info) == 0 && info.st_mode & 0o777 == 0o600)
    let client = try UnixSocket.connect(in: folder, name: "s.sock")
    defer { client.close() }
    let accepted = try UnixSocket.accept(listener)
    defer { accepted.close() }
    #expect(try UnixSocket.peerCredentials(of: accepted) == .init(pid: getpid(), uid: getuid()))
    listener.close()
    // Nobody listens any more: refused, not a wait.
    let refused = try #require(throws: SystemError.self) { try UnixSocket.connect(in: folder, name: "s.sock") }
    #expect(refused.code == ECONNREFUSED)
  }
}
