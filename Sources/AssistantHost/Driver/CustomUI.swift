// The driver's custom UI: the Intents UI extension that draws the snippet of each interaction.
import BundleManifest
import ExtensionProtocol
import Foundation
import IntentHostSystem
import Synchronization
import UntrustedText

extension IntentDriver {
  /// The UI extension of one run: taken from its slot when it first draws, used for every interaction, finished
  /// once. A UI extension that failed to start or to draw is reported once and not asked again.
  struct UIDrawing {
    let ui: ExtensionBundle?
    let slot: SessionSlot
    private var session: ExtensionSession?
    private var taken = false

    init(ui: ExtensionBundle?, slot: SessionSlot) {
      self.ui = ui
      self.slot = slot
    }

    /// Draws `interaction` (nothing without a UI extension, or after it failed).
    mutating func present(_ interaction: Interaction, driver: IntentDriver, spec: IntentSpec?) async
      -> [ConfiguredView]
    {
      guard let ui else { return [] }
      if !taken {
        taken = true
        switch await slot.take() {
        case .success(let started)?: session = started
        case .failure(let error)?: await driver.reportUIFailure(error.message)
        case nil: break
        }
      }
      guard let running = session else { return [] }
      let (views, usable) = await driver.presentCustomUI(interaction, ui: ui, session: running, spec: spec)
      if !usable { session = nil }
      return views
    }

    /// The end of the run for the UI extension: kept warm or shut down.
    mutating func finish(driver: IntentDriver) async {
      await driver.finish(session)
      session = nil
    }

    /// A failed run: the UI extension is stopped (one not taken yet is left to the run's cleanup).
    mutating func stop() async {
      if let session, session.peer.termination == nil { await session.shutdown() }
      session = nil
    }
  }

  /// Shows one interaction through the app's Intents UI extension, as Siri does: first the header (a
  /// `configureView` with the empty parameter set), then one `configureView` per parameter (with a value) in the
  /// definition's order, each to a fresh view controller, skipping parameters an earlier view of this interaction
  /// already showed (the ledger, one per interaction). A view asking for a size outside the limits is reported and
  /// clamped. A UI extension that fails is reported in one line and Siri's default UI (the dialog) stands alone;
  /// the intent's result does not change.
  /// - Returns: the views drawn, and whether the session may draw again (false after a failure).
  func presentCustomUI(
    _ interaction: Interaction, ui: ExtensionBundle, session: ExtensionSession, spec: IntentSpec?
  ) async -> (views: [ConfiguredView], usable: Bool) {
    let className = interaction.intent.name
    let names = (spec?.parameters.map(\.name) ?? interaction.intent.parameters.keys.sorted())
      .filter { interaction.intent[$0] != nil }
    let sets: [[String]] = [[]] + names.map { [$0] }
    var ledger = Set<String>()
    var views: [ConfiguredView] = []
    for parameters in sets where !parameters.contains(where: ledger.contains) {
      if Task.isCancelled { return (views, false) }
      do {
        var view = try await session.request(
          ConfigureViewRequest(
            interaction: interaction, parameters: parameters, minimumSize: viewSizeLimits.minimum,
            maximumSize: viewSizeLimits.maximum),
          phase: .ui,
          what:
            "configureView of \(parameters.isEmpty ? "\(className) (the header)" : parameters.joined(separator: ", "))")
        guard view.success else { continue }  // left to the default UI
        ledger.formUnion(view.parameters.isEmpty ? parameters : view.parameters)
        if view.size == .zero { continue }  // hidden
        let clamped = ViewSize(
          width: min(max(view.size.width, viewSizeLimits.minimum.width), viewSizeLimits.maximum.width),
          height: min(max(view.size.height, viewSizeLimits.minimum.height), viewSizeLimits.maximum.height))
        if clamped != view.size {
          let warning =
            "\(session.label) asked for a \(Int(view.size.width))×\(Int(view.size.height)) view, outside "
            + "\(Int(viewSizeLimits.minimum.width))×\(Int(viewSizeLimits.minimum.height))–"
            + "\(Int(viewSizeLimits.maximum.width))×\(Int(viewSizeLimits.maximum.height)) points; it was clamped to "
            + "\(Int(clamped.width))×\(Int(clamped.height))"
          session.appendToLog("warning: \(warning)")
          await reportUIFailure(warning, isFault: false)
          view.size = clamped
        }
        views.append(view)
        await conversation.show(view, from: ui.name)
      } catch let error as HostError {
        await reportUIFailure(error.message)
        return (views, false)
      } catch {
        // Cancelled: the session was stopped by `request`.
        return (views, false)
      }
    }
    return (views, true)
  }

  func reportUIFailure(_ message: String, isFault: Bool = true) async {
    let suffix = isFault ? "; Siri's default UI is shown instead" : ""
    await writeHostMessage("\(message)\(suffix)")
  }
}
