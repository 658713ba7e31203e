import AppGroupStore
import ExtensionProtocol
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import AssistantHost

/// Donations and vocabulary as the host keeps them: de-duplication, the bound, deletion, replacement of terms, and
/// the checks on what an untrusted sender asks to keep.
@Suite(.tags(.unit))
struct DonationTests {
  static func booking(_ room: Int, by name: String = "Ada", cancel: Bool = false, request: String = "R")
    -> DonatedInteraction
  {
    DonatedInteraction(
      intent: Intent(
        name: "BookRoomIntent", identifier: request,
        parameters: [
          "roomNumber": .integer(room), "bookedBy": .string(name), "isCancellationOfBooking": .boolean(cancel),
        ]),
      response: IntentResponse(code: cancel ? "successCancelledBooking" : .success))
  }

  @Test func theSameInteractionIsKeptOnceTheNewestAtTheEnd() {
    var record = DonationsRecord()
    let first = record.add(Self.booking(12, request: "A"), identifier: nil, groupIdentifier: nil, at: 1)
    record.add(Self.booking(13), identifier: nil, groupIdentifier: nil, at: 2)
    // The same class and values, another per-request identifier: the same donation (its name kept), now the newest.
    let again = record.add(Self.booking(12, request: "B"), identifier: nil, groupIdentifier: nil, at: 3)
    #expect(record.donations.count == 2)
    #expect(record.donations.last?.donatedAt == 3)
    #expect(record.donations.last?.interaction.intent.identifier == "B")
    #expect(first == "d1" && again == "d1")
    // Controls: other values, or a given identifier, make another donation.
    record.add(Self.booking(12, by: "Grace"), identifier: nil, groupIdentifier: nil, at: 4)
    record.add(Self.booking(12), identifier: "mine", groupIdentifier: nil, at: 5)
    #expect(record.donations.count == 4)
    // The same given identifier and values: one.
    record.add(Self.booking(12), identifier: "mine", groupIdentifier: "g", at: 6)
    #expect(record.donations.count == 4)
    #expect(record.donations.last?.groupIdentifier == "g")
  }

  @Test func aHostNameNeverCollidesWithAGivenOne() {
    var record = DonationsRecord()
    record.add(Self.booking(1), identifier: "d1", groupIdentifier: nil, at: 1)
    #expect(record.add(Self.booking(2), identifier: nil, groupIdentifier: nil, at: 2) == "d2")
  }

  @Test func theOldestGoPastTheBound() {
    var record = DonationsRecord()
    for room in 1...(DonationLimits.donationsPerApp + 5) {
      record.add(Self.booking(room), identifier: nil, groupIdentifier: nil, at: Double(room))
    }
    #expect(record.donations.count == DonationLimits.donationsPerApp)
    #expect(record.donations.first?.interaction.intent["roomNumber"] == .integer(6))
  }

  @Test func deletionByIdentifiersGroupAndAll() {
    var record = DonationsRecord()
    record.add(Self.booking(1), identifier: "a", groupIdentifier: "g", at: 1)
    record.add(Self.booking(2), identifier: "b", groupIdentifier: "g", at: 2)
    record.add(Self.booking(3), identifier: "c", groupIdentifier: "h", at: 3)
    record.add(Self.booking(4), identifier: nil, groupIdentifier: nil, at: 4)
    #expect(record.delete(.identifiers(["c", "zz"])) == 1)
    #expect(record.donations.map(\.identifier) == ["a", "b", "d1"])
    #expect(record.delete(.group("g")) == 2)
    #expect(record.delete(.group("g")) == 0)
    #expect(record.donations.map(\.identifier) == ["d1"])
    #expect(record.delete(.all) == 1)
    #expect(record.donations.isEmpty)
  }

  @Test func vocabularyReplacesThePreviousSet() {
    var record = VocabularyRecord()
    #expect(record.set(["Ada", "Grace", "Ada"], of: .contactName) == 2)
    record.set(["Run"], of: .workoutActivityName)
    record.set(["Linus"], of: .contactName)
    #expect(record.types == ["contactName": ["Linus"], "workoutActivityName": ["Run"]])
    record.set([], of: .contactName)
    #expect(record.types == ["workoutActivityName": ["Run"]])
  }

  /// The store in a home: a locked document per app under State, never in an app group, read back by a second
  /// store (another process would do the same).
  @Test func theStoreKeepsDonationsPerAppInTheHostState() async throws {
    let directory = try TemporaryDirectory("donations")
    defer { directory.remove() }
    try await offThePool {
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      let store = DonationStore(home: home, clock: .stopped(at: 100))
      let id = try store.donate(DonateRequest(interaction: Self.booking(12)), for: "com.example.rooms")
      try store.donate(DonateRequest(interaction: Self.booking(12)), for: "com.example.rooms")
      try store.donate(DonateRequest(interaction: Self.booking(7)), for: "com.example.other")
      #expect(id == "d1")
      let again = DonationStore(home: home)
      #expect(try again.donations(of: "com.example.rooms").count == 1)
      #expect(try again.donations(of: "com.example.other").count == 1)
      // The document (its journal until a checkpoint) is in the host's state.
      let files = try FileManager.default.contentsOfDirectory(
        atPath: home.state.appendingPathComponent("donations").path)
      #expect(files.contains { $0.contains("com.example.rooms.json") })
      #expect(try store.deleteDonations(.all, for: "com.example.rooms") == 1)
      #expect(try store.deleteDonations(.all, for: "com.example.none") == 0)
      #expect(try store.setVocabulary(["Ada"], of: .contactName, for: "com.example.rooms") == 1)
      #expect(try again.vocabulary(of: "com.example.rooms") == ["contactName": ["Ada"]])
    }
  }

  // MARK: - What an untrusted sender may ask to keep

  static let rules: DonationRules = {
    let app = try! Rooms.app()
    return DonationRules(definitions: app.allDefinitions)
  }()

  @Test func aWellFormedDonationIsAccepted() {
    // The control of every refusal below.
    #expect(
      Self.rules.problem(DonateRequest(interaction: Self.booking(12), identifier: "x", groupIdentifier: "g")) == nil)
    #expect(Self.rules.problem(DonateRequest(interaction: Self.booking(12, cancel: true))) == nil)
    // A system intent of the catalog.
    let system = DonatedInteraction(intent: Intent(name: "INSendMessageIntent", identifier: "1"))
    #expect(Self.rules.problem(DonateRequest(interaction: system)) == nil)
  }

  @Test(
    arguments: [
      (
        "unknown intent",
        DonateRequest(interaction: DonatedInteraction(intent: Intent(name: "PayEveryoneIntent", identifier: "1"))),
        "PayEveryoneIntent is neither"
      ),
      (
        "undeclared parameter",
        DonateRequest(
          interaction: DonatedInteraction(
            intent: Intent(name: "BookRoomIntent", identifier: "1", parameters: ["floor": .integer(1)]))),
        "has no parameter floor"
      ),
      (
        "wrong type",
        DonateRequest(
          interaction: DonatedInteraction(
            intent: Intent(name: "BookRoomIntent", identifier: "1", parameters: ["roomNumber": .string("twelve")]))),
        "expected an integer, not a string"
      ),
      (
        "oversized value",
        DonateRequest(
          interaction: DonatedInteraction(
            intent: Intent(
              name: "BookRoomIntent", identifier: "1",
              parameters: ["bookedBy": .string(String(repeating: "A", count: 1001))]))), "longer than 1000"
      ),
      (
        "undeclared code",
        DonateRequest(
          interaction: DonatedInteraction(
            intent: Intent(name: "BookRoomIntent", identifier: "1"),
            response: IntentResponse(code: "successPaidEveryone"))), "successPaidEveryone is neither"
      ),
      (
        "ready",
        DonateRequest(
          interaction: DonatedInteraction(
            intent: Intent(name: "BookRoomIntent", identifier: "1"), response: IntentResponse(code: .ready))),
        "ready is neither"
      ),
      (
        "control in identifier", DonateRequest(interaction: booking(1), identifier: "a\u{1B}[2J"),
        "identifier contains a control character"
      ),
      (
        "colon in identifier", DonateRequest(interaction: booking(1), identifier: "com.example.rooms:d1"),
        "identifier contains a colon"
      ),
      (
        "line separator in identifier", DonateRequest(interaction: booking(1), identifier: "a\u{2028}b"),
        "identifier contains a control character"
      ),
      (
        "long group", DonateRequest(interaction: booking(1), groupIdentifier: String(repeating: "g", count: 201)),
        "groupIdentifier is 201"
      ),
    ] as [(String, DonateRequest, String)])
  func aHostileDonationIsRefused(name: String, request: DonateRequest, problem: String) {
    let found = Self.rules.problem(request)
    #expect(found?.contains(problem) == true, "\(name): \(found ?? "accepted")")
  }

  @Test func vocabularyAndDeletionsAreBounded() {
    #expect(DonationRules.problem(SetVocabularyRequest(type: .contactName, strings: ["Ada", "Grace"])) == nil)
    #expect(
      DonationRules.problem(SetVocabularyRequest(type: "petName", strings: ["Rex"]))?.contains("not a vocabulary type")
        == true)
    #expect(
      DonationRules.problem(SetVocabularyRequest(type: .contactName, strings: Array(repeating: "a", count: 501))) != nil
    )
    #expect(DonationRules.problem(SetVocabularyRequest(type: .contactName, strings: [" "])) == "strings[0] is blank")
    #expect(DonationRules.problem(SetVocabularyRequest(type: .contactName, strings: ["a\u{7}"])) != nil)
    #expect(DonationRules.problem(.identifiers([])) == "identifiers is empty")
    #expect(DonationRules.problem(.identifiers(["a"])) == nil)
    #expect(DonationRules.problem(.identifiers(Array(repeating: "a", count: 101))) != nil)
  }
}

/// What a sender of donations is told and what the host keeps: never the host's paths in an answer, no integer that is
/// not one, and forgetting an app goes on past a document that cannot be used; each with its control.
extension DonationTests {
  @Test func theSenderIsNeverToldTheHostsPaths() throws {
    let logged = Mutex<[String]>([])
    let error = #expect(throws: ResponseError.self) {
      try DonationServer.keeping(DonateRequest.method, log: { line in logged.withLock { $0.append(line) } }) {
        () -> Int in
        throw HostError(.cannotCreate, "cannot create /secret/home/State/donations: Permission denied")
      }
    }
    #expect(error?.code == .internalError)
    #expect(error?.message == "host/donate: the host could not keep it")
    #expect(logged.withLock { $0 }.first?.contains("/secret/home/State/donations") == true)  // the host logs it
    // Control: what is kept is answered.
    #expect(try DonationServer.keeping(DonateRequest.method, log: { _ in }) { 7 } == 7)
  }

  @Test(arguments: ["1.5", "1e300", "-1e300"])
  func anIntegerThatIsNotOneIsSaidSo(_ number: String) throws {
    let text = "{\"type\":\"integer\",\"value\":\(number)}"
    let error = try #require(throws: DecodingError.self) {
      try JSONDecoder().decode(ParameterValue.self, from: Data(text.utf8))
    }
    guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); return }
    #expect(context.debugDescription.contains("not an integer"), "\(context.debugDescription)")
    // Control: an integer is one.
    #expect(
      try JSONDecoder().decode(ParameterValue.self, from: Data("{\"type\":\"integer\",\"value\":12}".utf8))
        == .integer(12))
  }

  @Test func forgettingGoesOnPastADocumentThatCannotBeUsed() async throws {
    let directory = try TemporaryDirectory("forget-corrupt")
    defer { directory.remove() }
    try await offThePool { () throws in
      let home = try AssistantHome(root: directory.file("home").path, environment: [:])
      let store = DonationStore(home: home)
      let booking = DonatedInteraction(
        intent: Intent(name: "BookRoomIntent", identifier: "x", parameters: ["roomNumber": .integer(12)]))
      try store.donate(DonateRequest(interaction: booking), for: "com.example.rooms")
      try store.setVocabulary(["Ada"], of: .contactName, for: "com.example.rooms")
      try store.setSuggestions(
        [ShortcutSuggestion(intent: booking.intent, phrase: "Book my room")], for: "com.example.rooms")
      #expect(store.forget("com.example.other").isEmpty)  // control: nothing to forget, nothing wrong
      let donations = store.donationsFile(for: "com.example.rooms")
      try Data("garbage".utf8).write(to: donations)
      let problems = store.forget("com.example.rooms")
      #expect(problems.count == 1, "\(problems)")
      #expect(problems.first?.contains("the donations of com.example.rooms could not be forgotten") == true)
      #expect(problems.first?.contains("move aside or remove \(donations.path)") == true, "\(problems)")
      // The others were forgotten all the same.
      #expect(try store.vocabulary(of: "com.example.rooms").isEmpty)
      #expect(try store.suggestions(of: "com.example.rooms").isEmpty)
    }
  }
}
