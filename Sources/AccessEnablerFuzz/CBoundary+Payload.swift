// SPDX-License-Identifier: Apache-2.0
// fuzzCBoundary's typed views of callback data (ae_callback_payload, ae_payload_*; issue 31): inside
// every callback, every accessor on every field, known or not, of every part of the view, and the
// previous callback's view read after its callback returned.
import CAccessEnabler
import Glibc

extension CBoundaryFuzz.Host {
    /// The view each callback kind gives (nil: a callback with no data; the log sink, partner and
    /// identity requests and the host transport are no delegate callbacks: no check of the kind).
    static func payloadKind(_ kind: Inside) -> Int32?? {
        switch kind {
        case .status: Int32(AE_PAYLOAD_STATUS)
        case .token: Int32(AE_PAYLOAD_TOKEN)
        case .tokenFailed: Int32(AE_PAYLOAD_TOKEN_FAILURE)
        case .selected: .some(nil)  // a provider, or none when nothing is selected
        case .dialog: Int32(AE_PAYLOAD_PROVIDERS)
        case .tracking: Int32(AE_PAYLOAD_TRACKING)
        case .metadata: Int32(AE_PAYLOAD_METADATA)
        case .preauthorized: Int32(AE_PAYLOAD_RESOURCES)
        case .preauthorizeCompletion: Int32(AE_PAYLOAD_PREAUTHORIZE)
        case .requestorComplete, .authenticationStatus, .navigate: .some(Int32(AE_PAYLOAD_NONE))
        case .log, .send, .partner, .identity: nil
        }
    }

    /// Reads the running callback's view through every accessor, and the previous callback's view,
    /// which must read as absent now (its callback returned). Problems go to `problem`.
    func readPayload(_ kind: Inside, _ place: String) {
        guard let expected = Self.payloadKind(kind) else { return }
        let previous = lastPayload.withLock { $0 }
        // (Not while a destroy runs: the completions it calls run inside the callback that called it.)
        if let previous, !destroying.withLock({ $0 }),
            ae_payload_kind(OpaquePointer(bitPattern: previous)) != Int32(AE_PAYLOAD_NONE)
        {
            problem("\(place): the previous callback's view still reads after its callback returned")
        }
        let view = ae_callback_payload()
        lastPayload.withLock { $0 = view.map { UInt(bitPattern: Int(bitPattern: UnsafeRawPointer($0))) } }
        let kindNow = ae_payload_kind(view)
        if let expected, kindNow != expected, !(expected == Int32(AE_PAYLOAD_NONE) && view == nil) {
            problem("\(place): view kind \(kindNow), expected \(expected)")
        }
        if expected == nil, view != nil, kindNow != Int32(AE_PAYLOAD_PROVIDER) {
            problem("\(place): view kind \(kindNow), expected a provider or none")
        }
        var budget = 20_000
        walk(view, place, depth: 0, budget: &budget)
    }

    /// Every accessor on `view` (fields 0 to 44 and two past the range), its children and items.
    private func walk(_ view: OpaquePointer?, _ place: String, depth: Int, budget: inout Int) {
        guard let view, depth < 8, budget > 0 else { return }
        for field in Array(Int32(0)...44) + [-1, Int32.max] {
            budget -= 1
            var length = 99
            let text = ae_payload_string(view, field, &length)
            var number: Int64 = 0
            let isInteger = ae_payload_int64(view, field, &number) == Int32(AE_OK)
            var flag: Int32 = 7
            let isBoolean = ae_payload_bool(view, field, &flag) == Int32(AE_OK)
            let child = ae_payload_child(view, field)
            let type = ae_payload_type(view, field)
            let agrees =
                switch type {
                case Int32(AE_VALUE_STRING): text != nil && !isInteger && !isBoolean && child == nil
                case Int32(AE_VALUE_INTEGER): text == nil && isInteger && !isBoolean && child == nil
                case Int32(AE_VALUE_BOOLEAN): text == nil && !isInteger && isBoolean && (flag == 0 || flag == 1) && child == nil
                case Int32(AE_VALUE_LIST), Int32(AE_VALUE_OBJECT): text == nil && !isInteger && !isBoolean && child != nil
                default: text == nil && !isInteger && !isBoolean && child == nil && flag == 7
                }
            if !agrees { problem("\(place): field \(field) of type \(type) disagrees with its accessors") }
            if let text, strlen(text) > length { problem("\(place): field \(field): a string longer than its length") }
            if text == nil, length != 0 { problem("\(place): field \(field): a length for no string") }
            if let child, ae_payload_child(view, field) != child { problem("\(place): field \(field): a new view each time") }
            walk(child, place, depth: depth + 1, budget: &budget)
        }
        let count = ae_payload_count(view)
        for index in 0..<min(count, 64) {
            budget -= 1
            let item = ae_payload_at(view, index)
            if item == nil { problem("\(place): item \(index) of \(count) is missing") }
            if ae_payload_kind(item) == Int32(AE_PAYLOAD_STRING) {
                var length = 0
                if ae_payload_text(item, &length) == nil { problem("\(place): a string item without its text") }
            } else {
                walk(item, place, depth: depth + 1, budget: &budget)
            }
        }
        if ae_payload_at(view, count) != nil || ae_payload_at(view, Int.max) != nil {
            problem("\(place): an item past the end of a list")
        }
    }
}
