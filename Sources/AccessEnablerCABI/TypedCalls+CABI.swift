// SPDX-License-Identifier: Apache-2.0
// The AccessEnabler calls with typed arguments (1.4): each builds its call's JSON form and goes the
// same way as that call (the same checks, statuses and callbacks), after the handle's check.
import AccessEnabler
public import CAccessEnabler

extension CInput {
    /// `count` C strings of `array` (NULL only with a count of 0).
    static func strings(
        _ array: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ name: String
    ) throws(AccessEnablerError) -> [String] {
        guard count >= 0, count <= maxLength else { throw .invalidArgument("\(name): \(count) strings is too many") }
        guard count == 0 || array != nil else { throw .invalidArgument("\(name) is NULL with a count of \(count)") }
        var strings: [String] = []
        strings.reserveCapacity(count)
        for index in 0..<count { strings.append(try string(array?[index], "\(name)[\(index)]")) }
        return strings
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_set_option_string")
#endif
public func ae_set_option_string(_ client: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        try enabler.setOptions([try CInput.string(key, "key"): .string(try CInput.string(value, "value"))])
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_set_option_bool")
#endif
public func ae_set_option_bool(_ client: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ value: Int32) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        try enabler.setOptions([try CInput.string(key, "key"): .bool(value != 0)])
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_check_preauthorized_resources_list")
#endif
public func ae_check_preauthorized_resources_list(
    _ client: OpaquePointer?, _ resources: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ cache: Int32
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        try enabler.checkPreauthorizedResources(try CInput.strings(resources, count, "resources"), cache: cache != 0)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_get_metadata_key")
#endif
public func ae_get_metadata_key(_ client: OpaquePointer?, _ op_code: Int32, _ argument: UnsafePointer<CChar>?) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        var key: [String: JSONValue] = [AE_METADATA_OPCODE_KEY: .int(Int64(op_code))]
        let text = try CInput.optionalString(argument, "argument")
        switch op_code {
        case Int32(AE_METADATA_AUTHORIZATION): key[AE_METADATA_RESOURCE_ID_KEY] = text.map { .string($0) }
        case Int32(AE_METADATA_USER_META): key[AE_METADATA_USER_META_KEY] = text.map { .string($0) }
        default:
            guard text == nil else { throw .invalidArgument("argument must be NULL for opcode \(op_code)") }
        }
        guard let parsed = MetadataKey(json: .object(key)) else {
            throw .invalidArgument("op_code \(op_code) with this argument is no getMetadata key")
        }
        try enabler.getMetadata(parsed)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_preauthorize_list")
#endif
public func ae_preauthorize_list(
    _ client: OpaquePointer?, _ resources: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int, _ flags: Int32,
    _ callback: ae_preauthorize_fn?, _ user_data: UnsafeMutableRawPointer?
) -> Int32 {
    call(client) { enabler throws(AccessEnablerError) in
        guard let callback else { throw .invalidArgument("callback is NULL") }
        let known = Int32(AE_PREAUTHORIZE_NO_LOCAL_CACHE) | Int32(AE_PREAUTHORIZE_NO_REMOTE_CACHE)
        guard flags & ~known == 0 else { throw .invalidArgument("flags \(flags): unknown bits") }
        var disabled: [JSONValue] = []
        if flags & Int32(AE_PREAUTHORIZE_NO_LOCAL_CACHE) != 0 { disabled.append("LOCAL_CACHE") }
        if flags & Int32(AE_PREAUTHORIZE_NO_REMOTE_CACHE) != 0 { disabled.append("REMOTE_CACHE") }
        let list = try CInput.strings(resources, count, "resources")
        guard
            let request = PreauthorizeRequest(
                json: .object(["resources": .array(list.map { .string($0) }), "disableFeatures": .array(disabled)]))
        else { throw .invalidArgument("resources: at least one non-empty resource id") }
        try preauthorize(enabler, request, callback, user_data)
    }
}
