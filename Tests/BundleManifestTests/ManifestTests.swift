import BundleManifest
import Foundation
import TestSupport
import Testing

@Suite(.tags(.unit))
struct ManifestTests {
  static let rooms = PackagePaths.root.appendingPathComponent("Sources/Examples")

  @Test func roomsManifestsLoad() throws {
    let info = try InfoPlist.load(contentsOf: Self.rooms.appendingPathComponent("RoomsIntents/Info.plist"))
    #expect(info.bundleIdentifier == "com.example.rooms.RoomsIntents")
    #expect(info.extensionInfo?.point == .intentsService)
    #expect(info.extensionInfo?.intentsSupported == ["BookRoomIntent", "OpenDoorIntent"])
    #expect(info.extensionInfo?.intentsRestrictedWhileLocked == ["OpenDoorIntent"])
    let definition = try IntentDefinition.load(
      contentsOf: Self.rooms.appendingPathComponent("Rooms/Base.lproj/Intents.intentdefinition"))
    let intent = try #require(definition.intent(named: "BookRoomIntent"))
    #expect(intent.parameters.map(\.name) == ["roomNumber", "bookedBy", "isCancellationOfBooking"])
    #expect(intent.parameters.map(\.type) == [.integer, .string, .boolean])
    #expect(
      intent.response?.codes.map(\.name) == [
        "success", "failure", "successCancelledBooking", "failureCancelledBooking",
      ])
    #expect(intent.response?.code(named: "successCancelledBooking")?.isSuccess == true)
    #expect(intent.parameter(named: "bookedBy")?.prompts["Primary"] == "Who is the booking for?")
    let door = try #require(definition.intent(named: "OpenDoorIntent"))
    #expect(door.parameters.map(\.name) == ["roomNumber"])
    #expect(door.parameters.map(\.type) == [.integer])
    #expect(door.response?.codes.map(\.name) == ["success", "failure"])
    #expect(door.response?.code(named: "success")?.template == "The door of room ${roomNumber} is open.")
    #expect(door.combinations.map(\.title) == ["Open the door of room ${roomNumber}"])
    let entitlements = try Entitlements.load(contentsOf: Self.rooms.appendingPathComponent("Rooms/Rooms.entitlements"))
    #expect(entitlements.applicationGroups == ["group.com.example.rooms"])
    #expect(entitlements.siri)
  }

  /// Every localizable string of the Rooms definition has its French translation, and every French key translates
  /// one: a new intent's strings cannot be left in English by mistake.
  @Test func roomsFrenchStringsAreComplete() throws {
    let definition = try IntentDefinition.load(
      contentsOf: Self.rooms.appendingPathComponent("Rooms/Base.lproj/Intents.intentdefinition"))
    let french = try StringsTable.load(contentsOf: Self.rooms.appendingPathComponent("Rooms/fr.lproj/Intents.strings"))
    #expect(definition.localizationIDs.count >= 30)
    #expect(definition.localizationIDs.subtracting(french.strings.keys).sorted() == [])
    #expect(Set(french.strings.keys).subtracting(definition.localizationIDs).sorted() == [])
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

/// A system intent's parameters are asked for in Siri's words, from the catalog, never from a class or parameter
/// name ("What's the workoutname?").
@Suite(.tags(.unit))
struct SystemIntentWordingTests {
  @Test func everyCatalogParameterHasALabelAndAPrompt() {
    for (className, intent) in SystemIntent.catalog {
      for parameter in intent.spec.parameters {
        #expect(parameter.displayName?.isEmpty == false, "\(className).\(parameter.name) has no label")
        let prompt = parameter.prompts["Primary"] ?? ""
        #expect(prompt.hasSuffix("?"), "\(className).\(parameter.name) has no prompt")
        // A compound identifier ("workoutName") never appears run together in what is asked.
        if parameter.name.contains(where: \.isUppercase) {
          #expect(
            !prompt.lowercased().contains(parameter.name.lowercased()), "\(className).\(parameter.name): \(prompt)")
        }
      }
    }
  }

  @Test func theCatalogSpeaksLikeSiri() throws {
    let workout = try #require(SystemIntent.named("INStartWorkoutIntent"))
    #expect(workout.spec.parameters.first { $0.name == "workoutName" }?.prompts["Primary"] == "What kind of workout?")
    let payment = try #require(SystemIntent.named("INSendPaymentIntent"))
    #expect(payment.spec.parameters.first { $0.name == "payee" }?.prompts["Primary"] == "Who do you want to pay?")
    #expect(payment.spec.parameters.first { $0.name == "currencyAmount" }?.label == "Amount")
    #expect(payment.confirmationPrompt == "Do you want to send this payment?")
    // One intent's wording may differ from another's for the same parameter name.
    let search = try #require(SystemIntent.named("INSearchForMessagesIntent"))
    #expect(search.spec.parameters.first { $0.name == "recipients" }?.prompts["Primary"] == "Messages to whom?")
  }

  @Test(arguments: [
    ("roomNumber", "room number"), ("isOpenEnded", "is open ended"), ("URLString", "URL string"),
    ("value", "value"), ("party_size", "party size"), ("room2Name", "room 2 name"),
  ])
  func parameterNamesReadAsWords(name: String, words: String) {
    #expect(ParameterSpec.words(of: name) == words)
  }
}
