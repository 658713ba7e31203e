import BundleManifest
import Foundation
import TestSupport
import Testing

@testable import AssistantHost

/// Review 15 finding 1b: an app that answers to a name an installed app answers to (here its executable's name,
/// "ascent") is installed with a warning naming the other app; the control: an app with names of its own gets none.
@Suite(.tags(.unit)) struct SharedNameTests {
  @Test func anAppAnsweringToAnInstalledAppsNameIsWarnedAbout() throws {
    let directory = try TemporaryDirectory("assistanthost-shared")
    defer { directory.remove() }
    let ascent = try AppBundle.load(from: AscentManifests.build(in: directory.url))
    let rooms = try AppBundle.load(from: TestBundles.roomsManifests(in: directory.url))
    let other = try TemporaryDirectory("assistanthost-shared")
    defer { other.remove() }
    let url = try AscentManifests.build(in: other.url)
    let info = url.appendingPathComponent("Info.plist")
    var plist = try #require(
      try PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as? [String: Any])
    plist["CFBundleDisplayName"] = "Zed"
    plist["CFBundleName"] = "Zed"
    try writePlist(plist, to: info)
    let zed = try AppBundle.load(from: url)
    let warnings = AssistantHome.sharedNames(zed, others: [rooms, ascent])
    #expect(warnings.map(\.rule) == [.appNameShared])
    #expect(warnings.first?.keyPath == "CFBundleExecutable")
    #expect(warnings.first?.message.contains("com.example.ascent") == true)
    #expect(AssistantHome.sharedNames(zed, others: [rooms]).isEmpty)
  }
}
