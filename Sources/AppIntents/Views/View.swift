// Snippet views spelled as SwiftUI spells them, which build the snippet tree the assistant draws (SnippetNode).
import ExtensionProtocol

/// A snippet view: a `body` of other views, down to the primitives `Text`, `VStack`, `HStack`, `LabeledContent` and
/// `Image(systemName:)`. It is not SwiftUI: it builds the text tree the assistant draws in a terminal.
///
/// ```swift
/// struct OrderSummaryView: View {
///   let order: Order
///   var body: some View {
///     VStack {
///       Text("Full tank of \(order.fuel)")
///       LabeledContent("Delivery", value: order.slot)
///     }
///   }
/// }
/// ```
public protocol View: Sendable {
  associatedtype Body: View
  @ViewBuilder var body: Body { get }
}

extension Never: View {
  public var body: Never { return fatalError("Never has no body") }
}

/// A view that draws itself: its nodes, with no body. The module's primitives conform; a view of yours has a body.
public protocol _PrimitiveView: View where Body == Never {
  var _snippetNodes: [SnippetNode] { get }
}

extension _PrimitiveView {
  public var body: Never { return fatalError("\(Self.self) is a primitive view") }
}

/// The snippet tree of `view`: one node, a stack when the view has several.
public func snippetTree(of view: some View) -> SnippetNode {
  let nodes = snippetNodes(of: view)
  return nodes.count == 1 ? nodes[0] : .stack(nodes)
}

func snippetNodes(of view: some View) -> [SnippetNode] {
  if let primitive = view as? any _PrimitiveView { return primitive._snippetNodes }
  return snippetNodes(of: view.body)
}

/// Builds a view from the views listed in a `body` or a stack's closure.
@resultBuilder
public enum ViewBuilder {
  public static func buildExpression(_ view: some View) -> ViewList { ViewList(nodes: snippetNodes(of: view)) }
  public static func buildBlock(_ parts: ViewList...) -> ViewList { ViewList(nodes: parts.flatMap(\.nodes)) }
  public static func buildOptional(_ part: ViewList?) -> ViewList { part ?? ViewList(nodes: []) }
  public static func buildEither(first: ViewList) -> ViewList { first }
  public static func buildEither(second: ViewList) -> ViewList { second }
  public static func buildArray(_ parts: [ViewList]) -> ViewList { ViewList(nodes: parts.flatMap(\.nodes)) }
}

/// Views one after another, as a `@ViewBuilder` lists them.
public struct ViewList: _PrimitiveView {
  let nodes: [SnippetNode]
  public var _snippetNodes: [SnippetNode] { nodes }
}

/// A line of text.
public struct Text: _PrimitiveView {
  let string: String
  public init(_ string: String) { self.string = string }
  public init(_ resource: LocalizedStringResource) { string = resource.defaultValue }
  public var _snippetNodes: [SnippetNode] { [.text(string)] }
}

/// Views one above the other.
public struct VStack: _PrimitiveView {
  let content: ViewList
  public init(@ViewBuilder content: () -> ViewList) { self.content = content() }
  public var _snippetNodes: [SnippetNode] { [.stack(content.nodes)] }
}

/// Views side by side: in a terminal, one line of their texts separated by two spaces.
public struct HStack: _PrimitiveView {
  let content: ViewList
  public init(@ViewBuilder content: () -> ViewList) { self.content = content() }
  public var _snippetNodes: [SnippetNode] { [.text(content.nodes.flatMap(\.lines).joined(separator: "  "))] }
}

/// A label and its value, one row.
public struct LabeledContent: _PrimitiveView {
  let label: String
  let value: String
  public init(_ label: String, value: String) {
    self.label = label
    self.value = value
  }
  public init(_ label: LocalizedStringResource, value: LocalizedStringResource) {
    self.init(label.defaultValue, value: value.defaultValue)
  }
  public var _snippetNodes: [SnippetNode] { [.row(label: label, value: value)] }
}

/// An SF Symbol, drawn in a terminal as its name in brackets: `[fuelpump]`.
public struct Image: _PrimitiveView {
  let systemName: String
  public init(systemName: String) { self.systemName = systemName }
  public var _snippetNodes: [SnippetNode] { [.text("[\(systemName)]")] }
}
