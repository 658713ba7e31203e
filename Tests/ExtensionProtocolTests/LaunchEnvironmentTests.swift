import Foundation
import Testing

@testable import ExtensionProtocol

/// The launch environment's contract: what the host writes is what a child reads back, under the documented names
/// (docs/PROTOCOL.md), and a hand-made environment is read as leniently as documented.
struct LaunchEnvironmentTests {
  static let groups = [
    AppGroupLocation(identifier: "group.com.example.rooms", path: "/home/u/AppGroup/group.com.example.rooms"),
    AppGroupLocation(identifier: "group.com.example.shared", path: "/g/with=equals"),
  ]

  static func launch(
    _ reason: LaunchEnvironment.LaunchReason?, channel: Int32? = nil, groups: [AppGroupLocation] = groups
  )
    -> LaunchEnvironment
  {
    LaunchEnvironment(
      bundleIdentifier: "com.example.rooms.RoomsIntents", bundlePath: "/apps/Rooms.app/PlugIns/RoomsIntents.appex",
      containerPath: "/home/u/Containers/com.example.rooms.RoomsIntents", locale: "fr_FR", appGroups: groups,
      launchReason: reason, hostChannelDescriptor: channel)
  }

  static let launches: [LaunchEnvironment] = [
    launch(nil), launch(nil, groups: []), launch(.handleInApp), launch(.continueUserActivity(json: nil), channel: 3),
    launch(.continueUserActivity(json: #"{"activityType":"x"}"#), channel: 3), launch(.other("somethingNew")),
  ]

  @Test(arguments: launches) func whatTheHostWritesIsReadBack(_ launch: LaunchEnvironment) throws {
    #expect(try LaunchEnvironment(decoding: launch.encode()) == launch)
  }

  @Test func theVariablesKeepTheirNamesAndFormats() {
    let json = #"{"activityType":"com.example.rooms.booking"}"#
    #expect(
      Self.launch(.continueUserActivity(json: json), channel: 3).encode() == [
        "INTENTHOST_BUNDLE_IDENTIFIER": "com.example.rooms.RoomsIntents",
        "INTENTHOST_BUNDLE_PATH": "/apps/Rooms.app/PlugIns/RoomsIntents.appex",
        "INTENTHOST_CONTAINER": "/home/u/Containers/com.example.rooms.RoomsIntents",
        "INTENTHOST_LOCALE": "fr_FR",
        "INTENTHOST_APP_GROUPS":
          "group.com.example.rooms=/home/u/AppGroup/group.com.example.rooms:group.com.example.shared=/g/with=equals",
        "INTENTHOST_LAUNCH_REASON": "continueUserActivity",
        "INTENTHOST_USER_ACTIVITY": json,
        "INTENTHOST_HOST_FD": "3",
      ])
    #expect(Self.launch(nil, groups: []).encode()["INTENTHOST_APP_GROUPS"] == "")
    #expect(Self.launch(nil).encode()["INTENTHOST_LAUNCH_REASON"] == nil)
    #expect(Self.launch(.handleInApp).encode()["INTENTHOST_LAUNCH_REASON"] == "handleInApp")
    #expect(LaunchEnvironment.LaunchReason.handleInApp.variables == ["INTENTHOST_LAUNCH_REASON": "handleInApp"])
  }

  /// Each required variable, missing or empty, is the error, naming it; the first missing one is named.
  @Test(arguments: [LaunchEnvironment.Variable.bundleIdentifier, .bundlePath, .container])
  func aMissingRequiredVariableIsNamed(_ variable: LaunchEnvironment.Variable) {
    var environment = Self.launch(nil).encode()
    environment[variable.rawValue] = nil
    #expect(throws: LaunchEnvironment.Missing(variable: variable)) { try LaunchEnvironment(decoding: environment) }
    environment[variable.rawValue] = ""
    #expect(throws: LaunchEnvironment.Missing(variable: variable)) { try LaunchEnvironment(decoding: environment) }
    #expect(LaunchEnvironment.Missing(variable: variable).description == "\(variable.rawValue) is not set")
    #expect(throws: LaunchEnvironment.Missing(variable: .bundleIdentifier)) { try LaunchEnvironment(decoding: [:]) }
  }

  @Test func malformedOptionalValuesAreReadLeniently() throws {
    var environment = Self.launch(nil).encode()
    environment["INTENTHOST_LOCALE"] = nil
    environment["INTENTHOST_APP_GROUPS"] = "group.a=/a:no-equals:=/no-identifier:group.b=::group.c=/c=d"
    environment["INTENTHOST_LAUNCH_REASON"] = ""
    environment["INTENTHOST_USER_ACTIVITY"] = "{}"
    environment["INTENTHOST_HOST_FD"] = "2"
    var read = try LaunchEnvironment(decoding: environment)
    #expect(read.locale == "en_US")
    #expect(
      read.appGroups == [
        AppGroupLocation(identifier: "group.a", path: "/a"), AppGroupLocation(identifier: "group.c", path: "/c=d"),
      ])
    #expect(read.launchReason == nil)
    #expect(read.hostChannelDescriptor == nil)
    environment["INTENTHOST_HOST_FD"] = "three"
    environment["INTENTHOST_LAUNCH_REASON"] = "continueUserActivity"
    environment["INTENTHOST_USER_ACTIVITY"] = "not json"
    read = try LaunchEnvironment(decoding: environment)
    #expect(read.hostChannelDescriptor == nil)
    #expect(read.launchReason == .continueUserActivity(json: "not json"))
    #expect(read.launchReason?.continuedActivity == nil)
  }

  @Test func theActivityIsDecodedForContinueUserActivityOnly() throws {
    let activity = ContinuedActivity(
      intent: Intent(name: "BookRoomIntent", identifier: "1"), response: IntentResponse(code: .continueInApp),
      handlingStatus: "deferredToApplication")
    let json = String(decoding: try JSONEncoder().encode(activity), as: UTF8.self)
    #expect(LaunchEnvironment.LaunchReason.continueUserActivity(json: json).continuedActivity == activity)
    #expect(LaunchEnvironment.LaunchReason.continueUserActivity(json: nil).continuedActivity == nil)
    #expect(LaunchEnvironment.LaunchReason.other(json).continuedActivity == nil)
    let reason = LaunchEnvironment.LaunchReason(
      environment: ["INTENTHOST_LAUNCH_REASON": "handleInApp", "INTENTHOST_USER_ACTIVITY": json])
    #expect(reason == .handleInApp)
  }

  @Test(arguments: SessionKind.allCases) func aSessionKindIsItsExtensionPoint(_ kind: SessionKind) {
    #expect(SessionKind(extensionPoint: kind.extensionPoint) == kind)
  }

  @Test func theExtensionPointsKeepTheirValues() {
    #expect(SessionKind.app.extensionPoint == "com.intenthost.app.handle-intent")
    #expect(SessionKind.intentsExtension.extensionPoint == "com.apple.intents-service")
    #expect(SessionKind.intentsUIExtension.extensionPoint == "com.apple.intents-ui-service")
    #expect(SessionKind(extensionPoint: "") == .intentsExtension)
    #expect(SessionKind(extensionPoint: "com.example.unknown") == .intentsExtension)
  }
}
