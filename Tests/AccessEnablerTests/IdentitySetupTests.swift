// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import AccessEnablerTesting
import Foundation
import Testing

/// setRequestor with single sign-on tokens against the in-memory Adobe: when the stored profiles
/// are asked for again although synced within the cache age (RequestorSetupFlow.storedProfilesStand).
@Suite struct IdentitySetupTests {
    let adobe = InMemoryAdobe()
    let recorder = Recorder()

    func client(clock: ManualClock) throws -> AccessEnabler {
        let enabler = try AccessEnabler(settings: .test(), transport: adobe, clock: clock)
        enabler.delegate = recorder
        enabler.statusDelegate = recorder
        return enabler
    }

    /// A platform token (JWS with a placeholder signature) that expires `seconds` after `clock`'s now.
    func token(expiringIn seconds: Int64, clock: ManualClock) -> String {
        let claims = #"{"iss":"platform","sub":"household-1","exp":\#(clock.nowMillis() / 1_000 + seconds)}"#
        return IdentityTokenTests.jws(claims: claims)
    }

    func setRequestor(_ enabler: AccessEnabler, round: Int) async throws {
        try enabler.setRequestor("REF30")
        try await recorder.waitCount(round) { $0.isRequestorComplete }
        #expect(recorder.all.filter { $0.isRequestorComplete }.allSatisfy { $0 == .requestorComplete(1) })
    }

    var profileSyncs: Int { adobe.requests(matching: "/REF30/profiles").count }

    /// A token past its `exp` is not sent, so it does not make the fresh (empty) stored list stale;
    /// a valid one does: Adobe may hold an SSO profile another app of the subject made since.
    @Test func onlyATokenThatWouldBeSentMakesAFreshEmptyListStale() async throws {
        let clock = ManualClock()
        let enabler = try client(clock: clock)
        try enabler.setIdentityToken(token(expiringIn: 120, clock: clock), kind: .platformIdentity)
        try await setRequestor(enabler, round: 1)
        #expect(profileSyncs == 1)
        #expect(adobe.requests(matching: "/REF30/profiles").last?.headers.contains { $0.name == "Adobe-Subject-Token" } == true)
        clock.advance(130_000)  // the token expired; the stored (empty) list is 130 s old: fresh
        try await setRequestor(enabler, round: 2)
        #expect(profileSyncs == 1)
        try enabler.setIdentityToken(token(expiringIn: 3_600, clock: clock), kind: .platformIdentity)
        try await setRequestor(enabler, round: 3)
        #expect(profileSyncs == 2)
    }

    /// Stored profiles that have all expired count as none: with a token, Adobe is asked again.
    @Test func aFreshListOfExpiredProfilesIsAskedAgainWithAToken() async throws {
        let clock = ManualClock(realSleeps: true)  // the login polls in real time
        let enabler = try client(clock: clock)
        adobe.profileNotAfter = clock.nowMillis() + 60_000  // within the cache age (5 min)
        try await setRequestor(enabler, round: 1)
        try enabler.getAuthentication()
        try await recorder.wait { if case .dialog = $0 { true } else { false } }
        try enabler.setSelectedProvider("Cablevision")
        try await recorder.wait { $0 == .authenticationStatus(1, "") }
        try enabler.setIdentityToken(token(expiringIn: 3_600, clock: clock), kind: .platformIdentity)
        try await setRequestor(enabler, round: 2)  // a valid stored profile, synced just now: nothing asked
        let synced = profileSyncs
        // The profile expires; its list is still within the cache age.
        clock.advance(60_000)
        try await setRequestor(enabler, round: 3)
        #expect(profileSyncs == synced + 1)
    }
}
