// SPDX-License-Identifier: Apache-2.0
import AccessEnabler
@testable import AccessEnablerCABI
import CAccessEnabler
import Testing

/// The structs' version tables (StructVersions.swift) and the reader on a struct of an earlier
/// version followed by garbage. The C side (hosts of every earlier layout under ASan) is
/// Tests/c/abi/old_hosts.c.
@Suite struct StructVersionsTests {
    @Test func eachVersionSpansMoreThanTheOneBeforeAndTheCurrentOneIsTheWholeStruct() throws {
        let tables: [(String, UInt32, [Int], Int)] = [
            ("config", Layouts.config.current, try spans(Layouts.config), MemoryLayout<ae_config>.size),
            ("delegate", Layouts.delegate.current, try spans(Layouts.delegate), MemoryLayout<ae_delegate>.size),
            ("partner", Layouts.partner.current, try spans(Layouts.partner), MemoryLayout<ae_partner_framework>.size),
            ("transport", Layouts.transport.current, try spans(Layouts.transport), MemoryLayout<ae_http_transport>.size),
            ("identity", Layouts.identity.current, try spans(Layouts.identity), MemoryLayout<ae_identity_provider>.size),
        ]
        #expect(tables.map(\.1) == [6, 1, 2, 1, 1])  // the header's AE_*_VERSION
        for (name, _, spans, size) in tables {
            #expect(spans == spans.sorted() && Set(spans).count == spans.count, "\(name): \(spans)")
            #expect(spans.last == size, "\(name)")
            #expect(spans.first! > MemoryLayout<UInt32>.size, "\(name)")
        }
        // The versions the header's "version N" markers name: ae_config v1 ends where partner starts.
        #expect(try Layouts.config.span(of: 1) == MemoryLayout<ae_config>.offset(of: \.partner)!)
        #expect(try Layouts.config.span(of: 3) == MemoryLayout<ae_config>.offset(of: \.store_key)!)
    }

    @Test func versionsItDoesNotKnowAreRefusedNamingBoth() {
        let current = Layouts.config.current
        for version: UInt32 in [0, current + 1, current + 2, .max] {
            #expect(throws: AccessEnablerError.self) { try Layouts.config.span(of: version) }
        }
        do {
            _ = try Layouts.config.span(of: current + 1)
        } catch {
            #expect(
                error.code == 3 && error.message.contains("ae_config version \(current + 1)") && error.message.contains("1...\(current)"),
                "\(error.message)")
        }
    }

    @Test func aStructOfAnEarlierVersionIsReadUpToItsLastFieldAndTheRestIsTheDefault() throws {
        let span = try Layouts.config.span(of: 1)
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: MemoryLayout<ae_config>.size, alignment: 8)
        defer { block.deallocate() }
        block.initializeMemory(as: UInt8.self, repeating: 0xFF)  // garbage where v2-v4 fields would be
        let config = block.baseAddress!.assumingMemoryBound(to: ae_config.self)
        try Layouts.config.initialize(config, version: 1)
        #expect(block[span...].allSatisfy { $0 == 0xFF }, "init wrote past version 1")
        config.pointee.log_level = 3
        let copy = try Layouts.config.copy(config)
        #expect(copy.version == 1 && copy.log_level == 3)
        #expect(copy.partner == nil && copy.callback_mode == 0 && copy.transport == nil)
        #expect(copy.store_key == nil && copy.store_key_length == 0 && copy.store_check == 0)
    }

    private func spans<T>(_ table: StructVersions<T>) throws -> [Int] {
        try (1...table.current).map { try table.span(of: $0) }
    }
}
