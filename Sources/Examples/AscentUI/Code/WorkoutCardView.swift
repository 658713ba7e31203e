// AscentUI: the Ascent Intents UI extension. It draws a card for each workout intent, built only from the interaction
// (the Intents extension and the app run in other processes): the obstacle, the goal, the location and the state, at
// the confirmation step ("Ready to start") and after handling ("Started", "Paused", ... or why not). The card claims
// every parameter in the header, so Siri does not ask it again for each of them. AscentKit's `WorkoutCard` words it
// (in English: Ascent's vocabulary is English only).
import AscentKit
import ExtensionSDK

@main
struct WorkoutCardView: IntentViewController {
  func configureView(for parameters: [String], of interaction: Interaction, in context: ViewContext) async throws
    -> ConfiguredView
  {
    guard let card = WorkoutCard(interaction: interaction) else {
      // Not a workout intent, or a status the card does not word: Siri's default UI shows the dialog.
      return ConfiguredView(success: false, parameters: [], size: .zero, snippet: nil)
    }
    let snippet = card.snippet
    return ConfiguredView(
      success: true, parameters: WorkoutCard.parameters,
      size: ViewSize(
        width: min(320, context.maximumSize.width),
        height: min(Double(22 * snippet.lines.count + 22), context.maximumSize.height)),
      snippet: snippet)
  }
}
