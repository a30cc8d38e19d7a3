// SPDX-License-Identifier: Apache-2.0
// The C boundary's one handle table: clients, partner requests and host HTTP requests are all
// handed to the host as numbers looked up here, never as addresses.
import AccessEnabler

/// Values the host refers to by an opaque handle (`ae_client *`, `ae_partner_request *`,
/// `ae_http_request *`), thread-safe. A handle is a number, never an address: it is decoded and
/// checked, never dereferenced, so a made-up, destroyed, answered or timed-out handle is a failed
/// lookup (AE_E_INVALID_HANDLE), not a use after free.
///
/// Layout (bits, low to high): the table's `kind` (4; never 0, so no handle is NULL), the slot
/// index, the slot's generation. A slot is reused once its value is removed, under the next
/// generation, so a stale handle of that slot no longer matches; a slot whose generation is
/// exhausted is retired, so no handle is ever issued twice (the header's "handles are never
/// reused"). A handle of another table has another kind and is unknown here.
final class HandleTable<Value>: @unchecked Sendable {
    private struct Slot {
        var generation: UInt
        var value: Value?
    }

    private struct State {
        var slots: [Slot] = []
        var free: [Int] = []
    }

    private static var kindBits: UInt { 4 }
    /// 64-bit: a million live handles, a trillion generations each; 32-bit: 4096 and 65 536.
    private static var slotBits: UInt { UInt.bitWidth == 64 ? 20 : 12 }
    private static var kindMask: UInt { (1 << kindBits) - 1 }
    private static var slotMask: UInt { (1 << slotBits) - 1 }
    private static var maxGeneration: UInt { UInt.max >> (kindBits + slotBits) }

    /// The handle's 4-bit tag (1–15), different for each table.
    let kind: UInt
    /// What the handles are, for messages ("client", "partner request").
    let noun: String
    private let state = Locked(State())

    init(kind: UInt, noun: String) {
        precondition(kind != 0 && kind <= Self.kindMask, "a handle kind is 1-15")
        self.kind = kind
        self.noun = noun
    }

    /// Stores `value` and returns its new handle; nil when every slot is live or retired.
    func insert(_ value: Value) -> OpaquePointer? {
        let code = state.withLock { state -> UInt? in
            let index: Int
            if let reused = state.free.popLast() {
                index = reused
            } else {
                guard UInt(state.slots.count) <= Self.slotMask else { return nil }
                index = state.slots.count
                state.slots.append(Slot(generation: 1, value: nil))
            }
            state.slots[index].value = value
            return encode(index, state.slots[index].generation)
        }
        return code.flatMap { OpaquePointer(bitPattern: $0) }
    }

    /// The value of `handle`; `invalidHandle` (naming what was expected) when it is NULL, of
    /// another table, made up, or its value was removed. Every C function that takes a handle
    /// calls this first, before reading its other arguments (the header's rule).
    func value(_ handle: OpaquePointer?) throws(AccessEnablerError) -> Value {
        guard let handle else { throw .invalidHandle("\(noun) is NULL") }
        guard let value = state.withLock({ state in locate(handle, in: state).map { state.slots[$0].value! } }) else {
            throw .invalidHandle(unknown(handle))
        }
        return value
    }

    /// Removes the value of `handle` (a destroyed client, a request that is over); nil when the
    /// handle is not live. Its slot's next value gets a new handle.
    func remove(_ handle: OpaquePointer?) -> Value? {
        guard let handle else { return nil }
        return state.withLock { state in
            guard let index = locate(handle, in: state), let value = state.slots[index].value else { return nil }
            Self.release(index, in: &state)
            return value
        }
    }

    /// Removes and returns every value that `matches` (a transport shutting down takes its own).
    func removeAll(where matches: (Value) -> Bool) -> [Value] {
        state.withLock { state in
            var removed: [Value] = []
            for index in state.slots.indices {
                guard let value = state.slots[index].value, matches(value) else { continue }
                removed.append(value)
                Self.release(index, in: &state)
            }
            return removed
        }
    }

    /// The message for a handle that is not live: NULL, another table's, or a stale one.
    private func unknown(_ handle: OpaquePointer) -> String {
        let code = UInt(bitPattern: handle)
        if code & Self.kindMask != kind { return "not a \(noun) handle" }
        return "unknown or stale \(noun) handle (\(noun == "client" ? "destroyed" : "answered, cancelled or timed out"))"
    }

    private func encode(_ index: Int, _ generation: UInt) -> UInt {
        generation << (Self.kindBits + Self.slotBits) | UInt(index) << Self.kindBits | kind
    }

    /// The live slot `handle` names, if any: the kind, the slot and its current generation must all match.
    private func locate(_ handle: OpaquePointer, in state: State) -> Int? {
        let code = UInt(bitPattern: handle)
        guard code & Self.kindMask == kind else { return nil }
        let index = Int((code >> Self.kindBits) & Self.slotMask)
        let generation = code >> (Self.kindBits + Self.slotBits)
        guard index < state.slots.count, state.slots[index].generation == generation, state.slots[index].value != nil
        else { return nil }
        return index
    }

    /// Empties slot `index` under its next generation (or retires it when none is left).
    private static func release(_ index: Int, in state: inout State) {
        state.slots[index].value = nil
        guard state.slots[index].generation < maxGeneration else { return }
        state.slots[index].generation += 1
        state.free.append(index)
    }
}

/// The boundary's tables, one handle kind each.
enum Handles {
    /// `ae_client *`: from ae_client_create to ae_client_destroy.
    static let clients = HandleTable<CClient>(kind: 1, noun: "client")
    /// `ae_partner_request *`: from the partner callback to its reply, timeout or cancellation.
    static let partnerRequests = HandleTable<PartnerRequest>(kind: 2, noun: "partner request")
    /// `ae_http_request *`: from the transport's `send` to its reply, timeout or cancellation.
    static let httpRequests = HandleTable<PendingExchange>(kind: 3, noun: "HTTP request")
    /// ae_identity_request handles: pending token requests of the host's identity provider.
    static let identityRequests = HandleTable<IdentityTokenReply>(kind: 4, noun: "identity request")
}
