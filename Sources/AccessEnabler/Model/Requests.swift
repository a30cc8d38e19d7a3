// SPDX-License-Identifier: Apache-2.0

/// getMetadata's key (iOS's dictionary: `opCode`, `resource_id`, `user_metadata_name`).
public struct MetadataKey: Sendable, Hashable {
    public static let authentication: Int32 = 0
    public static let authorization: Int32 = 1
    public static let deviceID: Int32 = 2
    public static let userMetadata: Int32 = 3

    public var opCode: Int32
    public var resourceID: String?
    public var userMetadataName: String?
    /// The key object as given, passed back as setMetadataStatus's `arguments`.
    public var arguments: JSONValue

    public init(opCode: Int32, resourceID: String? = nil, userMetadataName: String? = nil) {
        self.opCode = opCode
        self.resourceID = resourceID
        self.userMetadataName = userMetadataName
        var object: [String: JSONValue] = ["opCode": .int(Int64(opCode))]
        if let resourceID { object["resource_id"] = .string(resourceID) }
        if let userMetadataName { object["user_metadata_name"] = .string(userMetadataName) }
        arguments = .object(object)
    }

    /// Reads the key object; nil when it is not one (missing or unknown opCode, an opCode that is not
    /// a JSON number — `"0"` is refused, as the header documents numbers —, missing name).
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let given = object["opCode"] else { return nil }
        let number: Int64? =
            switch given {
            case .int, .double: given.int64Value
            default: nil
            }
        guard let code = number, (0...3).contains(code) else { return nil }
        opCode = Int32(code)
        resourceID = object["resource_id"]?.stringValue
        userMetadataName = object["user_metadata_name"]?.stringValue
        arguments = json
        if opCode == Self.authorization && resourceID == nil { return nil }
        if opCode == Self.userMetadata && userMetadataName == nil { return nil }
    }
}

/// preauthorize's request (AccessEnabler 3.6+ `PreauthorizeRequest`).
public struct PreauthorizeRequest: Sendable, Hashable {
    public enum Feature: String, Sendable { case localCache = "LOCAL_CACHE", remoteCache = "REMOTE_CACHE" }
    public var resources: [String]
    public var disabledFeatures: Set<Feature>

    public init(resources: [String], disabledFeatures: Set<Feature> = []) {
        self.resources = resources
        self.disabledFeatures = disabledFeatures
    }

    /// Reads `{"resources": [...], "disableFeatures": [...]}`; nil when malformed.
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let list = object["resources"]?.arrayValue else { return nil }
        let resources = list.compactMap(\.stringValue)
        guard resources.count == list.count, !resources.isEmpty, !resources.contains(where: \.isEmpty) else { return nil }
        var features = Set<Feature>()
        if let disabled = object["disableFeatures"] {
            guard let names = disabled.arrayValue else { return nil }
            for name in names {
                guard let feature = name.stringValue.flatMap(Feature.init(rawValue:)) else { return nil }
                features.insert(feature)
            }
        }
        self.init(resources: resources, disabledFeatures: features)
    }
}

/// preauthorize's answer: one decision per resource, with Adobe's enhanced error when denied,
/// and `status` when the whole call failed (status 0 for SDK-side failures).
public struct PreauthorizeResponse: Sendable, Hashable, Encodable {
    public struct Decision: Sendable, Hashable, Encodable {
        public var id: String
        public var authorized: Bool
        public var error: EnhancedError?
    }

    public var decisions: [Decision]
    public var status: EnhancedError?

    public var jsonText: String { JSON.text(self) }
}
