// SPDX-License-Identifier: Apache-2.0
// Typed views of callback data (ae_callback_payload, ae_payload_*; docs/DECISIONS.md, "Typed
// callback data"): what a callback carries, read field by field on its thread while it runs.
import AccessEnabler
import CAccessEnabler
import Glibc

/// The fields a host can name (AE_FIELD_*) and the JSON key each one reads: the one table that
/// binds the header's constants to the callbacks' JSON.
enum PayloadField {
    static let keys: [Int32: [String]] = [
        Int32(AE_FIELD_ERROR_ID): ["errorId"], Int32(AE_FIELD_LEVEL): ["level"], Int32(AE_FIELD_MESSAGE): ["message"],
        Int32(AE_FIELD_DETAILS): ["details"], Int32(AE_FIELD_CAUSE): ["cause"], Int32(AE_FIELD_ALIASES): ["aliases"],
        Int32(AE_FIELD_ENHANCED_ERROR): ["enhancedError"], Int32(AE_FIELD_CODE): ["code"], Int32(AE_FIELD_URL): ["url"],
        Int32(AE_FIELD_ACTIVATION_URL): ["activationUrl"], Int32(AE_FIELD_NOT_AFTER): ["notAfter"],
        Int32(AE_FIELD_STATUS): ["status"], Int32(AE_FIELD_ACTION): ["action"], Int32(AE_FIELD_HELP_URL): ["helpUrl"],
        Int32(AE_FIELD_TRACE): ["trace"], Int32(AE_FIELD_ID): ["ID", "id"], Int32(AE_FIELD_DISPLAY_NAME): ["displayName"],
        Int32(AE_FIELD_LOGO_URL): ["logoURL"], Int32(AE_FIELD_IS_TEMP_PASS): ["isTempPass"],
        Int32(AE_FIELD_ENABLE_PLATFORM_SERVICES): ["enablePlatformServices"],
        Int32(AE_FIELD_BOARDING_STATUS): ["boardingStatus"], Int32(AE_FIELD_TOKEN): ["token"],
        Int32(AE_FIELD_RESOURCE): ["resource"], Int32(AE_FIELD_ERROR_CODE): ["errorCode"],
        Int32(AE_FIELD_ERROR_DESCRIPTION): ["errorDescription"], Int32(AE_FIELD_KEY): ["key"],
        Int32(AE_FIELD_ENCRYPTED): ["encrypted"], Int32(AE_FIELD_VALUE): ["value"], Int32(AE_FIELD_ARGUMENTS): ["arguments"],
        Int32(AE_FIELD_EVENT_TYPE): ["eventType"], Int32(AE_FIELD_DATA): ["data"], Int32(AE_FIELD_PARTNER): ["partner"],
        Int32(AE_FIELD_SUPPORTED_PROVIDERS): ["supportedAccountProviderIdentifiers"],
        Int32(AE_FIELD_FEATURED_PROVIDERS): ["featuredAccountProviderIdentifiers"],
        Int32(AE_FIELD_DECISIONS): ["decisions"], Int32(AE_FIELD_AUTHORIZED): ["authorized"],
        Int32(AE_FIELD_ERROR): ["error"], Int32(AE_FIELD_OP_CODE): ["opCode"], Int32(AE_FIELD_RESOURCE_ID): ["resource_id"],
        Int32(AE_FIELD_USER_METADATA_NAME): ["user_metadata_name"],
    ]

    /// The kind of the view a field's object or list gets, under a parent of `kind`.
    static func childKind(of field: Int32, in kind: Int32, _ value: JSONValue) -> Int32 {
        switch (field, value) {
        case (Int32(AE_FIELD_ENHANCED_ERROR), .object), (Int32(AE_FIELD_ERROR), .object),
            (Int32(AE_FIELD_STATUS), .object):
            Int32(AE_PAYLOAD_ENHANCED_ERROR)
        case (_, .array): Int32(AE_PAYLOAD_LIST)
        default: Int32(AE_PAYLOAD_OBJECT)
        }
    }

    /// The kind of item `value` of a list view of `kind` reached through `field` (nil: the root).
    static func itemKind(in kind: Int32, field: Int32?, _ value: JSONValue) -> Int32 {
        switch value {
        case .string: return Int32(AE_PAYLOAD_STRING)
        case .object:
            if kind == Int32(AE_PAYLOAD_PROVIDERS) { return Int32(AE_PAYLOAD_PROVIDER) }
            if field == Int32(AE_FIELD_DECISIONS) { return Int32(AE_PAYLOAD_DECISION) }
            return Int32(AE_PAYLOAD_OBJECT)
        case .array: return Int32(AE_PAYLOAD_LIST)
        default: return Int32(AE_PAYLOAD_NONE)
        }
    }
}

/// One callback's data while the callback runs: its JSON value, the views of its parts (numbered
/// in the order the host asks for them, so each part keeps one handle) and the C strings handed
/// out. Used on the callback's thread only; its strings are freed when the callback returns.
final class PayloadScope {
    struct View {
        let kind: Int32
        let value: JSONValue
        /// How this view was reached: the field of its parent, for the kinds of its items.
        let field: Int32?
    }

    let generation: UInt
    private let make: () -> (kind: Int32, value: JSONValue)?
    private var made = false
    private(set) var views: [View] = []
    private var children: [Int: [Int32: Int]] = [:]
    private var items: [Int: [Int: Int]] = [:]
    private var texts: [Int: [Int32: (UnsafeMutablePointer<CChar>, Int)]] = [:]

    init(generation: UInt, _ make: @escaping () -> (kind: Int32, value: JSONValue)?) {
        self.generation = generation
        self.make = make
    }

    deinit {
        for byField in texts.values { for (text, _) in byField.values { text.deallocate() } }
    }

    /// The root view's index, made on first use (nil: the callback carries nothing).
    func root() -> Int? {
        if !made {
            made = true
            if let (kind, value) = make() { views.append(View(kind: kind, value: value, field: nil)) }
        }
        return views.isEmpty ? nil : 0
    }

    /// The value of `field` in view `index` (nil: absent, or the view is no object).
    func value(_ index: Int, _ field: Int32) -> JSONValue? {
        guard case .object(let object) = views[index].value, let keys = PayloadField.keys[field] else { return nil }
        return keys.lazy.compactMap { object[$0] }.first
    }

    /// The view of the object or list in `field` of view `index`.
    func child(_ index: Int, _ field: Int32) -> Int? {
        if let known = children[index]?[field] { return known }
        guard let value = value(index, field) else { return nil }
        switch value {
        case .object, .array: break
        default: return nil
        }
        let kind = PayloadField.childKind(of: field, in: views[index].kind, value)
        views.append(View(kind: kind, value: value, field: field))
        children[index, default: [:]][field] = views.count - 1
        return views.count - 1
    }

    /// The items of view `index` when it is a list (nil otherwise).
    func list(_ index: Int) -> [JSONValue]? {
        guard case .array(let items) = views[index].value else { return nil }
        return items
    }

    /// The view of item `position` of list view `index`.
    func item(_ index: Int, _ position: Int) -> Int? {
        if let known = items[index]?[position] { return known }
        guard let list = list(index), position >= 0, position < list.count else { return nil }
        let parent = views[index]
        let kind = PayloadField.itemKind(in: parent.kind, field: parent.field, list[position])
        views.append(View(kind: kind, value: list[position], field: nil))
        items[index, default: [:]][position] = views.count - 1
        return views.count - 1
    }

    /// `text` as a C string that lives as long as this scope (one copy per view and field; field
    /// 0: the view's own text).
    func cString(_ index: Int, _ field: Int32, _ text: String) -> (UnsafePointer<CChar>, Int) {
        if let known = texts[index]?[field] { return (UnsafePointer(known.0), known.1) }
        let bytes = Array(text.utf8)
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        bytes.withUnsafeBufferPointer { source in
            for (offset, byte) in source.enumerated() { copy[offset] = CChar(bitPattern: byte) }
        }
        copy[bytes.count] = 0
        texts[index, default: [:]][field] = (copy, bytes.count)
        return (UnsafePointer(copy), bytes.count)
    }
}

/// The payload scopes of the callbacks running on this thread (innermost last: a callback may run
/// inside another's, e.g. preauthorize completions inside a destroy called from a callback).
enum Payloads {
    /// The thread's stack of scopes; released when the thread ends (a client's callback thread ends
    /// at destroy: nothing of it stays behind).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in if let raw { Unmanaged<Stack>.fromOpaque(raw).release() } }
        return key
    }()
    private static let generations = Locked<UInt>(0)

    /// The handle layout (HandleTable's): 4 bits of kind, 20 of view index, the scope's generation.
    private static let kind: UInt = 5
    private static let indexBits: UInt = 20

    private final class Stack { var scopes: [PayloadScope] = [] }

    private static var stack: Stack {
        if let raw = pthread_getspecific(key) { return Unmanaged<Stack>.fromOpaque(raw).takeUnretainedValue() }
        let stack = Stack()
        pthread_setspecific(key, Unmanaged.passRetained(stack).toOpaque())  // released at the thread's end (key)
        return stack
    }

    /// Runs `body` (the host's callback) with the typed view `make` gives, made only if the host
    /// asks for it (ae_callback_payload).
    static func during<T>(_ make: @escaping () -> (kind: Int32, value: JSONValue)?, _ body: () -> T) -> T {
        let generation = generations.withLock { count -> UInt in
            count = count &+ 1 == 0 ? 1 : count &+ 1
            return count
        }
        let stack = stack
        stack.scopes.append(PayloadScope(generation: generation, make))
        defer { stack.scopes.removeLast() }
        return body()
    }

    /// `during` for a callback that passes `json` (the view reads that text itself).
    static func during<T>(_ kind: Int32, json: String, _ body: () -> T) -> T {
        during({ (try? JSON.decode(JSONValue.self, from: Array(json.utf8))).map { (kind, $0) } }, body)
    }

    /// The handle of view `index` of `scope`.
    static func handle(_ scope: PayloadScope, _ index: Int) -> OpaquePointer? {
        guard UInt(index) < (1 << indexBits) - 1, scope.generation <= UInt.max >> (4 + indexBits) else { return nil }
        return OpaquePointer(bitPattern: kind | (UInt(index + 1) << 4) | (scope.generation << (4 + indexBits)))
    }

    /// The scope and view of `handle`: nil for NULL, another kind of handle, or a view whose
    /// callback has returned (or that runs on another thread).
    static func view(_ handle: OpaquePointer?) -> (PayloadScope, Int)? {
        guard let handle, pthread_getspecific(key) != nil else { return nil }
        let bits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(handle)))
        guard bits & 0xF == kind else { return nil }
        let index = Int((bits >> 4) & ((1 << indexBits) - 1)) - 1
        let generation = bits >> (4 + indexBits)
        guard index >= 0, let scope = stack.scopes.last(where: { $0.generation == generation }),
            index < scope.views.count
        else { return nil }
        return (scope, index)
    }

    /// The innermost callback's scope on this thread.
    static var current: PayloadScope? { pthread_getspecific(key) == nil ? nil : stack.scopes.last }
}
