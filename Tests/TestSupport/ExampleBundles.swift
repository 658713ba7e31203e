import Foundation

extension TestBundles {
  /// The example Rooms.app assembled in-process from the manifests in `Sources/Examples`, laid out as
  /// `assistant build` lays it out, but with stand-in executables (a one-line shell script each, mode 0755)
  /// instead of the built ones. Enough to load, validate, install and route the bundle without a build or a child
  /// process; not enough to run it (use `rooms(in:)` for that).
  /// - Returns: `directory/Rooms.app`.
  public static func roomsManifests(in directory: URL) throws -> URL {
    let examples = PackagePaths.root.appendingPathComponent("Sources/Examples")
    let app = directory.appendingPathComponent("Rooms.app")
    let fm = FileManager.default
    if fm.fileExists(atPath: app.path) { try fm.removeItem(at: app) }
    try fm.createDirectory(at: app, withIntermediateDirectories: true)
    let source = examples.appendingPathComponent("Rooms")
    for name in ["Info.plist", "Rooms.entitlements", "Base.lproj", "fr.lproj"] {
      try fm.copyItem(at: source.appendingPathComponent(name), to: app.appendingPathComponent(name))
    }
    try writeStandInExecutable(to: app.appendingPathComponent("rooms"))
    for (name, entitlements) in [("RoomsIntents", true), ("RoomsUI", false)] {
      let appex = app.appendingPathComponent("PlugIns/\(name).appex")
      try fm.createDirectory(at: appex, withIntermediateDirectories: true)
      let source = examples.appendingPathComponent(name)
      try fm.copyItem(at: source.appendingPathComponent("Info.plist"), to: appex.appendingPathComponent("Info.plist"))
      if entitlements {
        try fm.copyItem(
          at: source.appendingPathComponent("\(name).entitlements"),
          to: appex.appendingPathComponent("\(name).entitlements"))
      }
      try writeStandInExecutable(to: appex.appendingPathComponent(name))
    }
    return app
  }

  /// An executable file that only exits 70, for bundles that are validated or routed but never run.
  public static func writeStandInExecutable(to url: URL) throws {
    try Data("#!/bin/sh\nexit 70\n".utf8).write(to: url)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
  }
}
