import AssistantHost
import BundleManifest
import Foundation
import IntentHostSystem
import Synchronization

/// A device of its own for one test: the real assistant engine in a fresh temporary home, with the apps you install,
/// their real extensions started as sandboxed child processes, and its own lock state and app groups.
///
/// Each host reads and writes only its own folder (`home`, with its app groups in `appGroups`), never the process's
/// `ASSISTANT_HOME` or `ASSISTANT_APP_GROUPS`, and keeps no global state: hosts in tests that run in parallel share
/// nothing. Every run stops the processes it started before it returns.
///
/// Prefer the scoped `withTestHost(locale:_:)`, which removes the home on every path; a host made with
/// `init(locale:)` is removed by `shutdown()`.
///
/// ```swift
/// @Test func booking() async throws {
///   try await withTestHost { host in
///     try await host.install(roomsApp)
///     let result = try await host.say("Book room 12 for Ada with Rooms")
///     #expect(result.dialog == ["Room 12 is now booked by Ada."])
///   }
/// }
/// ```
public final class TestHost: Sendable {
  /// The host's home: `Applications`, `Containers`, `Logs`, `State` (the engine's layout).
  public let home: URL
  /// The app groups' folder, inside `home`: one folder per group (`appGroup(_:)` reads them).
  public let appGroups: URL
  /// The user's locale, e.g. `en_US` (the `--locale` of every run).
  public let locale: String
  /// The engine's home.
  let engineHome: AssistantHome
  /// The temporary folder that holds the home; removed by `shutdown()`.
  private let folder: URL
  /// Whether `shutdown()` has begun: runs are refused from then on.
  private let isShutDown = Mutex(false)

  /// Makes a host in a fresh temporary folder (under the system's temporary folder). Call `shutdown()` when done, on
  /// every path; `withTestHost(locale:_:)` does it for you.
  /// - Parameter locale: the user's locale for every run (`en_US` by default; `fr_FR` reads the apps' French).
  /// - Throws: `TestHostError` when the folder cannot be made.
  public init(locale: String = "en_US") async throws {
    let folder = try await Self.makeTemporaryFolder()
    self.folder = folder
    self.locale = locale
    home = folder.appendingPathComponent("home")
    appGroups = home.appendingPathComponent("AppGroup")
    // Both paths given explicitly: the process's ASSISTANT_HOME and ASSISTANT_APP_GROUPS are never read.
    do {
      engineHome = try AssistantHome(root: home.path, environment: ["ASSISTANT_APP_GROUPS": appGroups.path])
    } catch {
      await offloaded { Self.remove(folder) }
      throw TestHostError(error)
    }
  }

  /// Removes the host's folder (its home, containers, app groups and logs). Runs that finished have stopped their
  /// processes already; call it once the host's runs have returned. Calling it again does nothing.
  public func shutdown() async {
    let first = isShutDown.withLock { isShutDown in
      defer { isShutDown = true }
      return !isShutDown
    }
    guard first else { return }
    let folder = folder
    await offloaded { Self.remove(folder) }
  }

  /// Throws when the host is shut down.
  func checkOpen() throws {
    if isShutDown.withLock({ $0 }) {
      throw TestHostError(.usage, "the test host at \(home.path) is shut down; make a new one")
    }
  }

  /// A fresh folder `intenthost-testing-XXXXXX` in the system's temporary folder, made off the cooperative pool.
  private static func makeTemporaryFolder() async throws -> URL {
    try await offloaded { () throws(TestHostError) -> URL in
      var template = Array((NSTemporaryDirectory() + "/intenthost-testing-XXXXXX").utf8CString)
      guard let made = mkdtemp(&template) else {
        throw TestHostError(.cannotCreate, "cannot make a temporary folder: \(SystemError.current("mkdtemp"))")
      }
      return URL(fileURLWithPath: String(cString: made)).standardizedFileURL
    }
  }

  /// Removes `folder` and everything in it by descriptors, without following a link an extension left there.
  /// Blocking: call it off the pool.
  private static func remove(_ folder: URL) {
    do throws(SystemError) {
      let directory = try DirectoryDescriptor.openTrusted(folder.path)
      defer { directory.close() }
      try FileTree.removeContents(of: directory)
      guard rmdir(folder.path) == 0 else { throw SystemError.current("rmdir") }
    } catch {
      // Nothing to return it to (a cleanup): said on stderr rather than dropped.
      FileHandle.standardError.write(Data("IntentHostTesting: cannot remove \(folder.path): \(error)\n".utf8))
    }
  }
}

/// Runs `body` with a fresh `TestHost` and removes the host when `body` returns or throws.
///
/// ```swift
/// try await withTestHost { host in
///   try await host.install(roomsApp)
///   #expect(try await host.say("Book room 12 for Ada with Rooms").status == .success)
/// }
/// ```
/// - Parameters:
///   - locale: the user's locale for every run.
///   - body: the test, given the host.
/// - Returns: what `body` returns.
/// - Throws: what `body` throws (after the host is removed); `TestHostError` when the host cannot be made.
public func withTestHost<Value>(
  locale: String = "en_US", _ body: (TestHost) async throws -> Value
) async throws -> Value {
  let host = try await TestHost(locale: locale)
  let result: Value
  do {
    result = try await body(host)
  } catch {
    await host.shutdown()
    throw error
  }
  await host.shutdown()
  return result
}
