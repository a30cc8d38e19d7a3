// SPDX-License-Identifier: Apache-2.0
// ae_callback_payload and the ae_payload_* accessors: thin thunks over Payloads (Payload.swift).
import CAccessEnabler
import AccessEnabler

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_callback_payload")
#endif
public func ae_callback_payload() -> OpaquePointer? {
    guard let scope = Payloads.current, let root = scope.root() else { return nil }
    return Payloads.handle(scope, root)
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_kind")
#endif
public func ae_payload_kind(_ payload: OpaquePointer?) -> Int32 {
    guard let (scope, index) = Payloads.view(payload) else { return Int32(AE_PAYLOAD_NONE) }
    return scope.views[index].kind
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_type")
#endif
public func ae_payload_type(_ payload: OpaquePointer?, _ field: Int32) -> Int32 {
    guard let (scope, index) = Payloads.view(payload), let value = scope.value(index, field) else {
        return Int32(AE_VALUE_ABSENT)
    }
    switch value {
    case .string: return Int32(AE_VALUE_STRING)
    case .int: return Int32(AE_VALUE_INTEGER)
    case .bool: return Int32(AE_VALUE_BOOLEAN)
    case .array: return Int32(AE_VALUE_LIST)
    case .object: return Int32(AE_VALUE_OBJECT)
    case .null, .double: return Int32(AE_VALUE_OTHER)
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_string")
#endif
public func ae_payload_string(
    _ payload: OpaquePointer?, _ field: Int32, _ length: UnsafeMutablePointer<Int>?
) -> UnsafePointer<CChar>? {
    length?.pointee = 0
    guard let (scope, index) = Payloads.view(payload), case .string(let text) = scope.value(index, field) else {
        return nil
    }
    let (string, count) = scope.cString(index, field, text)
    length?.pointee = count
    return string
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_int64")
#endif
public func ae_payload_int64(_ payload: OpaquePointer?, _ field: Int32, _ value: UnsafeMutablePointer<Int64>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        guard let (scope, index) = Payloads.view(payload) else { throw Payloads.stale }
        guard let value else { throw .invalidArgument("value is NULL") }
        guard case .int(let number) = scope.value(index, field) else {
            throw .invalidArgument("field \(field) is absent or not an integer")
        }
        value.pointee = number
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_bool")
#endif
public func ae_payload_bool(_ payload: OpaquePointer?, _ field: Int32, _ value: UnsafeMutablePointer<Int32>?) -> Int32 {
    status { () throws(AccessEnablerError) in
        guard let (scope, index) = Payloads.view(payload) else { throw Payloads.stale }
        guard let value else { throw .invalidArgument("value is NULL") }
        guard case .bool(let flag) = scope.value(index, field) else {
            throw .invalidArgument("field \(field) is absent or not a boolean")
        }
        value.pointee = flag ? 1 : 0
    }
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_child")
#endif
public func ae_payload_child(_ payload: OpaquePointer?, _ field: Int32) -> OpaquePointer? {
    guard let (scope, index) = Payloads.view(payload), let child = scope.child(index, field) else { return nil }
    return Payloads.handle(scope, child)
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_count")
#endif
public func ae_payload_count(_ list: OpaquePointer?) -> Int {
    guard let (scope, index) = Payloads.view(list) else { return 0 }
    return scope.list(index)?.count ?? 0
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_at")
#endif
public func ae_payload_at(_ list: OpaquePointer?, _ index: Int) -> OpaquePointer? {
    guard let (scope, view) = Payloads.view(list), let item = scope.item(view, index) else { return nil }
    return Payloads.handle(scope, item)
}

#if compiler(>=6.3)
    @c @implementation
#else
    @_cdecl("ae_payload_text")
#endif
public func ae_payload_text(_ item: OpaquePointer?, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    length?.pointee = 0
    guard let (scope, index) = Payloads.view(item), case .string(let text) = scope.views[index].value else { return nil }
    let (string, count) = scope.cString(index, 0, text)
    length?.pointee = count
    return string
}

extension Payloads {
    static var stale: AccessEnablerError {
        .invalidHandle("not a view of the running callback's data (NULL, stale, or another thread's)")
    }
}
