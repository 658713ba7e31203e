import BundleManifest
import Foundation
import TestSupport
import Testing

struct ManifestTests {
  static let rooms = PackagePaths.root.appendingPathComponent("Sources/Examples")

  @Test func roomsManifestsLoad() throws {
    let info = try InfoPlist.load(contentsOf: Self.rooms.appendingPathComponent("RoomsIntents/Info.plist"))
    #expect(info.bundleIdentifier == "com.example.rooms.RoomsIntents")
    #expect(info.extensionInfo?.point == .intentsService)
    #expect(info.extensionInfo?.intentsSupported == ["BookRoomIntent"])
    let definition = try IntentDefinition.load(
      contentsOf: Self.rooms.appendingPathComponent("Rooms/Base.lproj/Intents.intentdefinition"))
    let intent = try #require(definition.intent(named: "BookRoomIntent"))
    #expect(intent.parameters.map(\.name) == ["roomNumber", "bookedBy", "isCancellationOfBooking"])
    #expect(intent.parameters.map(\.type) == ["Integer", "String", "Boolean"])
    #expect(
      intent.response?.codes.map(\.name) == [
        "success", "failure", "successCancelledBooking", "failureCancelledBooking",
      ])
    #expect(intent.response?.code(named: "successCancelledBooking")?.isSuccess == true)
    #expect(intent.parameter(named: "bookedBy")?.prompts["Primary"] == "Who is the booking for?")
    let entitlements = try Entitlements.load(contentsOf: Self.rooms.appendingPathComponent("Rooms/Rooms.entitlements"))
    #expect(entitlements.applicationGroups == ["group.com.example.rooms"])
    #expect(entitlements.siri)
  }

  @Test(arguments: [
    ("<plist><dict><key>a</key></plist>", "is not a valid property list"),
    ("", "is empty"),
    ("<plist><array/></plist>", "has an array at its root, expected a dictionary"),
  ])
  func malformedFilesAreNamed(text: String, expected: String) throws {
    #expect {
      try PlistDictionary.parse(Data(text.utf8), file: "Broken.plist")
    } throws: { error in
      let message = "\(error)"
      return message.hasPrefix("Broken.plist") && message.contains(expected)
    }
  }

  @Test func wrongTypeNamesTheKeyPath() throws {
    let xml = """
      <plist><dict><key>CFBundleIdentifier</key><string>x.y</string><key>CFBundleExecutable</key><string>x</string>
      <key>NSExtension</key><dict><key>NSExtensionPointIdentifier</key><string>com.apple.intents-service</string>
      <key>NSExtensionAttributes</key><dict><key>IntentsSupported</key><string>OneIntent</string></dict></dict>
      </dict></plist>
      """
    #expect {
      try InfoPlist(PlistDictionary.parse(Data(xml.utf8), file: "Info.plist"))
    } throws: { error in
      "\(error)" == "Info.plist: NSExtension.NSExtensionAttributes.IntentsSupported: is a string, expected an array"
    }
  }

  @Test func binaryPlistsLoad() throws {
    let data = try PropertyListSerialization.data(
      fromPropertyList: ["CFBundleIdentifier": "com.example.b", "CFBundleExecutable": "b"], format: .binary, options: 0)
    let info = try InfoPlist(PlistDictionary.parse(data, file: "Info.plist"))
    #expect(info.bundleIdentifier == "com.example.b")
  }
}
