// SPDX-License-Identifier: Apache-2.0
import AccessEnabler
import AccessEnablerCABI
import CAccessEnabler
import Testing

/// AccessEnablerError's kinds and the header's status codes: each kind has its own AE_E_* value, and the
/// C boundary returns it and names it (the numbers live in Include/accessenabler.h only).
@Suite struct ErrorKindTests {
    @Test func everyKindHasItsOwnCodeOfTheHeader() {
        let codes = AccessEnablerError.Kind.allCases.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(!codes.contains(Int32(AE_OK)))
        #expect(AccessEnablerError.invalidArgument("x").code == Int32(AE_E_INVALID_ARG))
        #expect(AccessEnablerError.queueFull("x").code == Int32(AE_E_QUEUE_FULL))
        for kind in AccessEnablerError.Kind.allCases {
            #expect(AccessEnablerError.Kind(code: kind.code) == kind)
        }
        #expect(AccessEnablerError.Kind(code: Int32(AE_OK)) == nil)
        #expect(AccessEnablerError.Kind(code: 9999) == nil)
    }

    @Test func everyKindHasItsOwnStatusString() throws {
        let unknown = String(cString: try #require(ae_status_string(9999)))
        var texts = Set<String>()
        for kind in AccessEnablerError.Kind.allCases {
            let text = String(cString: try #require(ae_status_string(kind.code)))
            #expect(text != unknown && !text.isEmpty, "\(kind)")
            texts.insert(text)
        }
        #expect(texts.count == AccessEnablerError.Kind.allCases.count)
    }

    @Test func aRefusedCallReturnsTheCodeOfItsKind() {
        #expect(ae_set_options(nil, "{}") == AccessEnablerError.Kind.invalidHandle.code)
        #expect(ae_config_init(nil, UInt32(AE_CONFIG_VERSION)) == AccessEnablerError.Kind.invalidArgument.code)
    }

    @Test func theVersionIsTheHeaders() {
        #expect(Version.string == "\(AE_VERSION_MAJOR).\(AE_VERSION_MINOR).\(AE_VERSION_PATCH)")
        #expect(ae_version_number() == Version.number)
    }
}
