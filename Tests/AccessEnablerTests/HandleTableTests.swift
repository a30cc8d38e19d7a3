// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
@testable import AccessEnablerCABI
import Foundation
import Testing

/// The C boundary's handle table: stale, foreign and made-up handles are recognised, never used.
@Suite struct HandleTableTests {
    @Test func aRemovedHandleIsStaleEvenWhenItsSlotIsReused() throws {
        let table = HandleTable<String>(kind: 5, noun: "thing")
        let first = try #require(table.insert("first"))
        #expect(try table.value(first) == "first")
        #expect(table.remove(first) == "first")
        #expect(throws: AccessEnablerError.invalidHandle("unknown or stale thing handle (answered, cancelled or timed out)")) {
            try table.value(first)
        }
        let second = try #require(table.insert("second"))  // the same slot, its next generation
        #expect(second != first)
        #expect(throws: AccessEnablerError.self) { try table.value(first) }
        #expect(table.remove(first) == nil)
        #expect(try table.value(second) == "second")
    }

    @Test func nullForeignAndMadeUpHandlesAreUnknown() throws {
        let table = HandleTable<Int>(kind: 5, noun: "thing")
        let other = HandleTable<Int>(kind: 6, noun: "other")
        let handle = try #require(table.insert(1))
        let foreign = try #require(other.insert(1))
        #expect(throws: AccessEnablerError.invalidHandle("thing is NULL")) { try table.value(nil) }
        #expect(throws: AccessEnablerError.invalidHandle("not a thing handle")) { try table.value(foreign) }
        for made in [0x1008, 0x1234, 0xdead_beef, Int(bitPattern: UInt.max), Int(bitPattern: UInt(bitPattern: handle) ^ 0x10)] {
            #expect(throws: AccessEnablerError.self) { try table.value(OpaquePointer(bitPattern: made)) }
        }
        #expect(other.remove(handle) == nil)  // not the other table's
        #expect(try table.value(handle) == 1)
    }

    @Test func handlesAreNeverIssuedTwice() throws {
        let table = HandleTable<Int>(kind: 5, noun: "thing")
        var seen = Set<UInt>()
        for index in 0..<1_000 {
            let handle = try #require(table.insert(index))
            #expect(seen.insert(UInt(bitPattern: handle)).inserted)
            if index % 3 != 0 { _ = table.remove(handle) }
        }
        #expect(table.removeAll { $0 % 3 == 0 }.count == 334)
    }

    @Test func concurrentInsertsLookupsAndRemovals() async {
        let table = HandleTable<Int>(kind: 5, noun: "thing")
        let failures = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        guard let handle = table.insert(worker * 1_000 + index) else { return failures.withLock { $0 += 1 } }
                        if (try? table.value(handle)) != worker * 1_000 + index { failures.withLock { $0 += 1 } }
                        if table.remove(handle) == nil || table.remove(handle) != nil { failures.withLock { $0 += 1 } }
                        if (try? table.value(handle)) != nil { failures.withLock { $0 += 1 } }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
