/// The writer: a document as `extract.actionsdata` in Xcode's shape, in the canonical encoding (`CanonicalJSON`), and
/// the digest of those bytes.
///
/// Every key the document models is written, defaults included (`"openAppWhenRun": false`), and nothing else; the
/// reader reads the bytes back to an equal document. So the bytes, and the digest, depend only on what the document
/// says: a file that leaves defaults out and one that spells them out have the same digest.
extension MetadataDocument {
  /// The canonical bytes of the document: the `extract.actionsdata` IntentHost writes.
  public func canonicalEncoding() -> [UInt8] { CanonicalJSON.encode(json) }

  /// SHA-256 of `canonicalEncoding()`, in 64 lower-case hexadecimal digits: what an extension reports in
  /// `initialize` (the intents it registers) so that the host can name a file that has drifted from the code.
  public var digest: String { SHA256.hexDigest(canonicalEncoding()) }

  /// The document as a JSON tree in Xcode's shape.
  public var json: MetadataJSON {
    var fields: [String: MetadataJSON] = [
      "version": .integer(version),
      "actions": .object(Dictionary(uniqueKeysWithValues: actions.map { ($0.key.rawValue, $0.value.json) })),
      "entities": .object(Dictionary(uniqueKeysWithValues: entities.map { ($0.key.rawValue, $0.value.json) })),
      "queries": .object(Dictionary(uniqueKeysWithValues: queries.map { ($0.key.rawValue, $0.value.json) })),
      "enums": .array(enums.map(\.json)),
      "autoShortcuts": .array(autoShortcuts.map(\.json)),
      "negativePhrases": .array(negativePhrases.map(\.json)),
    ]
    fields["autoShortcutProviderMangledName"] = autoShortcutProviderMangledName.map { .string($0) }
    return .object(fields)
  }
}

extension MetadataDocument.LocalizedText {
  var json: MetadataJSON { .object(["key": .string(key), "alternatives": .array(alternatives.map { .string($0) })]) }
}

extension MetadataDocument.Action {
  var json: MetadataJSON {
    var fields: [String: MetadataJSON] = [
      "identifier": .string(identifier.rawValue),
      "parameters": .array(parameters.map(\.json)),
      "openAppWhenRun": .bool(openAppWhenRun),
      "authenticationPolicy": .integer(authenticationPolicy.rawValue),
      "visibilityMetadata": .object(["isDiscoverable": .bool(isDiscoverable)]),
    ]
    fields["title"] = title?.json
    fields["supportedModes"] = supportedModes.map { .integer($0) }
    fields["actionConfiguration"] = actionConfiguration
    if let description {
      var metadata: [String: MetadataJSON] = [
        "descriptionText": description.descriptionText.json,
        "searchKeywords": .array(description.searchKeywords.map(\.json)),
      ]
      metadata["categoryName"] = description.categoryName?.json
      fields["descriptionMetadata"] = .object(metadata)
    }
    return .object(fields)
  }
}

extension MetadataDocument.Parameter {
  var json: MetadataJSON {
    var fields: [String: MetadataJSON] = [
      "name": .string(name.rawValue),
      "isOptional": .bool(isOptional),
      "valueType": valueType.json,
      "typeSpecificMetadata": .array(typeSpecificMetadata.entries.flatMap { [.string($0.key), $0.value] }),
    ]
    fields["title"] = title?.json
    fields["parameterDescription"] = description?.json
    fields["dynamicOptionsSupport"] = dynamicOptionsSupport.map { .integer($0) }
    if let intentHost {
      var dialogs: [String: MetadataJSON] = [:]
      dialogs["requestValueDialog"] = intentHost.requestValueDialog?.json
      dialogs["requestDisambiguationDialog"] = intentHost.requestDisambiguationDialog?.json
      fields[MetadataDocument.ParameterDialogs.key] = .object(dialogs)
    }
    return .object(fields)
  }
}

extension MetadataDocument.ValueType {
  var json: MetadataJSON {
    func tagged(_ tag: String, _ wrapper: [String: MetadataJSON]) -> MetadataJSON {
      .object([tag: .object(["wrapper": .object(wrapper)])])
    }
    switch self {
    case .primitive(let type): return tagged("primitive", ["typeIdentifier": .integer(type.typeIdentifier)])
    case .entity(let name): return tagged("entity", ["typeName": .string(name.rawValue)])
    case .enumeration(let name): return tagged("linkEnumeration", ["identifier": .string(name.rawValue)])
    case .array(let member): return tagged("array", ["memberValueType": member.json])
    case .measurement(let content): return .object(["measurement": content])
    case .intents(let identifier): return tagged("intents", ["typeIdentifier": .integer(identifier)])
    case .unknown(let tag, let content): return .object([tag: content])
    }
  }
}

extension MetadataDocument.Entity {
  var json: MetadataJSON {
    var fields: [String: MetadataJSON] = [
      "typeName": .string(typeName.rawValue),
      "properties": .array(
        properties.map { property in
          var fields: [String: MetadataJSON] = [
            "identifier": .string(property.identifier.rawValue), "isOptional": .bool(property.isOptional),
            "valueType": property.valueType.json,
          ]
          fields["title"] = property.title?.json
          return .object(fields)
        }),
    ]
    fields["displayTypeName"] = displayTypeName?.json
    fields["defaultQueryIdentifier"] = defaultQueryIdentifier.map { .string($0.rawValue) }
    return .object(fields)
  }
}

extension MetadataDocument.Query {
  var json: MetadataJSON {
    var fields: [String: MetadataJSON] = [
      "identifier": .string(identifier.rawValue),
      "entityType": .string(entityType.rawValue),
      "defaultQueryForEntity": .bool(isDefaultQueryForEntity),
    ]
    fields["fullyQualifiedIdentifier"] = fullyQualifiedIdentifier.map { .string($0.rawValue) }
    if let answers {
      fields[MetadataDocument.ParameterDialogs.key] = .object(["answers": .array(answers.map { .string($0.rawValue) })])
    }
    return .object(fields)
  }
}

extension MetadataDocument.Enumeration {
  var json: MetadataJSON {
    var fields: [String: MetadataJSON] = [
      "identifier": .string(identifier.rawValue),
      "cases": .array(
        cases.map { enumCase in
          var display: [String: MetadataJSON] = ["synonyms": .array(enumCase.synonyms.map(\.json))]
          display["title"] = enumCase.title?.json
          display["subtitle"] = enumCase.subtitle?.json
          return .object([
            "identifier": .string(enumCase.identifier.rawValue), "displayRepresentation": .object(display),
          ])
        }),
    ]
    fields["displayTypeName"] = displayTypeName?.json
    return .object(fields)
  }
}

extension MetadataDocument.AutoShortcut {
  var json: MetadataJSON {
    var fields: [String: MetadataJSON] = [
      "actionIdentifier": .string(actionIdentifier.rawValue),
      "phraseTemplates": .array(phraseTemplates.map(\.json)),
    ]
    fields["shortTitle"] = shortTitle?.json
    fields["systemImageName"] = systemImageName.map { .string($0) }
    return .object(fields)
  }
}
