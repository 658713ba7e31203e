import AppIntentsMetadata
import Testing

/// App Shortcut phrases as templates: their text, their app-name slot and their parameter slots.
@Suite(.tags(.unit))
struct PhraseTemplateTests {
  typealias Segment = PhraseTemplate.Segment

  @Test(arguments: [
    ("Fuel my car with ${applicationName}", [Segment.text("Fuel my car with "), .applicationName]),
    (
      "Fuel my car at ${location} with ${applicationName}",
      [.text("Fuel my car at "), .parameter("location"), .text(" with "), .applicationName]
    ),
    ("${applicationName}, fuel my car", [.applicationName, .text(", fuel my car")]),
    ("Fuel my car", [.text("Fuel my car")]),
    ("", []),
    ("a ${unclosed", [.text("a ${unclosed")]),
    ("${} and ${x}${y}", [.parameter(""), .text(" and "), .parameter("x"), .parameter("y")]),
    ("$ {applicationName} {x} $x", [.text("$ {applicationName} {x} $x")]),
  ])
  func segments(_ template: String, _ expected: [Segment]) {
    let phrase = PhraseTemplate(parsing: template)
    #expect(phrase.segments == expected)
    // Written back, it is the template.
    #expect(phrase.description == template)
  }

  @Test func theAppNameSlot() {
    #expect(PhraseTemplate(parsing: "Fuel my car at ${location} with ${applicationName}").applicationNameSlot == 3)
    #expect(PhraseTemplate(parsing: "${applicationName} fuel").applicationNameSlot == 0)
    #expect(PhraseTemplate(parsing: "Fuel my car").applicationNameSlot == nil)
    let twice = PhraseTemplate(parsing: "${applicationName} and ${applicationName}")
    #expect(twice.applicationNameCount == 2)
    #expect(twice.applicationNameSlot == nil)
  }

  @Test func parameterNamesInOrderEachOnce() {
    #expect(PhraseTemplate(parsing: "${b} ${a} ${b} ${applicationName}").parameterNames == ["b", "a"])
    #expect(PhraseTemplate(parsing: "Fuel my car with ${applicationName}").parameterNames.isEmpty)
  }
}
