import AppIntents
import FuelOrderKit

/// The order the user is asked to confirm: the vehicle, the fuel, where and when.
struct OrderSummaryView: View {
  let order: Order

  var body: some View {
    VStack {
      HStack {
        Image(systemName: "fuelpump")
        Text("Fuel order")
      }
      LabeledContent("Vehicle", value: "\(order.vehicle.name) (\(order.vehicle.id))")
      LabeledContent("Fuel", value: order.product)
      LabeledContent("Location", value: Location(order.address).rawValue + (order.street.map { ", \($0)" } ?? ""))
      LabeledContent("Time slot", value: "\(order.timeSlot)")
    }
  }
}
