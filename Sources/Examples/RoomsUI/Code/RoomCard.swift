// RoomsUI: the Rooms Intents UI extension. It draws a card for a booking or a cancellation, built only from the
// interaction (the Intents extension runs in another process), and shows the room, who booked it and the outcome in
// one view, so Siri does not ask it again for the other parameters. The card is in the user's language (the locale
// the host gives at `initialize`): French for a French locale, English otherwise.
import ExtensionSDK

@main
struct RoomCard: IntentViewController {
  func configureView(for parameters: [String], of interaction: Interaction, in context: ViewContext) async throws
    -> ConfiguredView
  {
    let intent = interaction.intent
    guard case .integer(let room)? = intent["roomNumber"] else {
      // Nothing to draw without a room: Siri's default UI shows the dialog.
      return ConfiguredView(success: false, parameters: [], size: .zero, snippet: nil)
    }
    let words = CardWords(locale: context.extensionContext.locale)
    let who: String = { if case .string(let name)? = intent["bookedBy"] { return name } else { return words.nobody } }()
    let cancelling: Bool = {
      if case .boolean(let flag)? = intent["isCancellationOfBooking"] { return flag } else { return false }
    }()
    let outcome = CardWords.Outcome(cancelling: cancelling, succeeded: interaction.handlingStatus == "success")
    let card = SnippetNode.stack([
      .text(words.title(room: room)), .row(label: words.statusLabel, value: words.status(outcome, who: who)),
    ])
    return ConfiguredView(
      success: true, parameters: ["roomNumber", "bookedBy", "isCancellationOfBooking"],
      size: ViewSize(width: min(320, context.maximumSize.width), height: 88), snippet: card)
  }
}

/// The card's words in one language: the way an app's `Localizable.strings` would hold them, for the two languages
/// Rooms speaks.
struct CardWords {
  enum Language { case english, french }

  /// What happened to the booking.
  enum Outcome {
    case booked, cancelled, notBooked, notCancelled

    init(cancelling: Bool, succeeded: Bool) {
      switch (cancelling, succeeded) {
      case (false, true): self = .booked
      case (true, true): self = .cancelled
      case (false, false): self = .notBooked
      case (true, false): self = .notCancelled
      }
    }
  }

  let language: Language

  /// French for a locale whose language is French ("fr", "fr_FR", "fr-CA", "fr_FR.UTF-8"), English for any other.
  init(locale: String) {
    let code = locale.prefix { $0.isLetter }.lowercased()
    language = code == "fr" ? .french : .english
  }

  var nobody: String { language == .french ? "personne" : "nobody" }

  var statusLabel: String { language == .french ? "Statut" : "Status" }

  func title(room: Int) -> String { language == .french ? "Salle \(room)" : "Room \(room)" }

  func status(_ outcome: Outcome, who: String) -> String {
    switch (language, outcome) {
    case (.english, .booked): return "Booked by \(who)"
    case (.english, .cancelled): return "Free (\(who)'s booking cancelled)"
    case (.english, .notBooked): return "Not booked for \(who)"
    case (.english, .notCancelled): return "Unchanged (\(who)'s cancellation refused)"
    case (.french, .booked): return "Réservée par \(who)"
    case (.french, .cancelled): return "Libre (réservation de \(who) annulée)"
    case (.french, .notBooked): return "Non réservée pour \(who)"
    case (.french, .notCancelled): return "Inchangée (annulation refusée pour \(who))"
    }
  }
}
