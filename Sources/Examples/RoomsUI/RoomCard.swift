// RoomsUI: the Rooms Intents UI extension. It draws a card for a booking or a cancellation, built only from the
// interaction (the Intents extension runs in another process), and shows the room, who booked it and the outcome in
// one view, so Siri does not ask it again for the other parameters.
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
    let who: String = { if case .string(let name)? = intent["bookedBy"] { return name } else { return "nobody" } }()
    let cancelling: Bool = {
      if case .boolean(let flag)? = intent["isCancellationOfBooking"] { return flag } else { return false }
    }()
    let succeeded = interaction.handlingStatus == "success"
    let status: String
    switch (cancelling, succeeded) {
    case (false, true): status = "Booked by \(who)"
    case (true, true): status = "Free (\(who)'s booking cancelled)"
    case (false, false): status = "Not booked for \(who)"
    case (true, false): status = "Unchanged (\(who)'s cancellation refused)"
    }
    let card = SnippetNode.stack([.text("Room \(room)"), .row(label: "Status", value: status)])
    return ConfiguredView(
      success: true, parameters: ["roomNumber", "bookedBy", "isCancellationOfBooking"],
      size: ViewSize(width: min(320, context.maximumSize.width), height: 88), snippet: card)
  }
}
