// SPDX-License-Identifier: Apache-2.0
@testable import AccessEnabler
import Testing

/// RequestorGate without I/O: the calls around setRequestor and the partner status wait, with the
/// callbacks the engine sends for them (FlowTests' queued / failed setRequestor cases).
@Suite struct RequestorGateTests {
    static let partnerStale = RequestorGate.PartnerFacts(partnerConfigured: true, statusFresh: false, partnerProfileStored: true)
    static let partnerFresh = RequestorGate.PartnerFacts(partnerConfigured: true, statusFresh: true, partnerProfileStored: true)
    static let cfg400 = CallFailure.enhanced(.adobe("invalid_parameter_service_provider", status: 400))

    static func describe(_ actions: [RequestorGate.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .startSetup(let call): "startSetup#\(call.id.value)"
            case .askPartnerStatus(let call): "askPartnerStatus#\(call.id.value)"
            case .perform(let call, let explanation):
                "perform#\(call.id.value)" + (explanation.map { " <- \($0.errorID)" } ?? "")
            case .emit(let emission): Summary.of(emission)
            case .refuse(let id, .noRequestor): "refuse#\(id.value)"
            case .refuse(let id, .queueFull): "queueFull#\(id.value)"
            }
        }
    }

    static let preauthorize = Command.preauthorize(PreauthorizeRequest(resources: ["A", "B"]), completion: { _ in })
    static let metadata = Command.getMetadata(MetadataKey(opCode: MetadataKey.authentication))

    // MARK: none

    @Test func callsBeforeAnySetRequestorAreRefusedSynchronously() {
        var h = GateHarness()
        #expect(!h.gate.admits(.checkAuthentication))
        #expect(h.gate.admits(.setRequestor(id: "REF30", serviceProviders: nil)))
        #expect(h.arrive(.checkAuthentication) == ["refuse#1"])
        #expect(h.arrive(.authorization(resource: "R", check: false)) == ["refuse#2"])
        #expect(h.arrive(.logout) == ["refuse#3"])
        guard case .none = h.gate.state else { Issue.record("\(h.gate.state)"); return }
        #expect(h.gate.queue.isEmpty)
    }

    // MARK: settingUp

    @Test func callsDuringSetRequestorQueueAndRunAfterItInCallOrder() {
        var h = GateHarness()
        #expect(h.arrive(.setRequestor(id: "REF30", serviceProviders: nil)) == ["startSetup#1"])
        #expect(h.gate.admits(.checkAuthentication))
        #expect(h.arrive(.checkAuthentication) == [])
        #expect(h.arrive(.getSelectedProvider) == [])
        #expect(h.gate.nextQueuedCall == nil)  // setRequestor still runs
        #expect(Self.describe(h.gate.setupFinished(CallID(1), .success(()))) == ["end#1 setRequestorComplete(1)"])
        #expect(h.gate.nextQueuedCall?.id == CallID(2))
        #expect(h.drain() == ["perform#2", "perform#3"])
        #expect(h.arrive(.logout) == ["perform#4"])
    }

    /// Issue 28 item 7: the calls waiting behind a setRequestor are bounded; the next one is refused
    /// by name (not queued, not dropped), and the queue takes calls again once it drains.
    @Test func callsBeyondTheQueueBoundAreRefusedAsQueueFull() {
        var h = GateHarness()
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        for _ in 0..<RequestorGate.maxQueued { #expect(h.arrive(.getSelectedProvider) == []) }
        #expect(h.gate.queue.count == RequestorGate.maxQueued)
        let refused = h.arrive(.checkAuthentication)
        #expect(refused == ["queueFull#\(RequestorGate.maxQueued + 2)"])
        #expect(h.gate.queue.count == RequestorGate.maxQueued)
        _ = h.gate.setupFinished(CallID(1), .success(()))
        #expect(h.drain().count == RequestorGate.maxQueued)
        #expect(h.arrive(.logout) == ["perform#\(RequestorGate.maxQueued + 3)"])
    }

    @Test func aSuccessfulSetupCarriesTheLastStatusOfTheSetupAsExplanation() {
        var h = GateHarness()
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        let warning = AdvancedStatus("SEC412", .warning, "device id changed")
        #expect(
            Self.describe(h.gate.setupFinished(CallID(1), .success(()), explanation: warning))
                == ["end#1 setRequestorComplete(1) <- SEC412"])
    }

    @Test func aSecondSetRequestorQueuesBehindTheFirstAndStartsWhenItEnds() {
        var h = GateHarness()
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        #expect(h.arrive(.setRequestor(id: "OTHER", serviceProviders: nil)) == [])
        #expect(h.arrive(.checkAuthentication) == [])
        // The first fails: the second is still pending, so calls are still admitted.
        #expect(
            Self.describe(h.gate.setupFinished(CallID(1), .failure(Self.cfg400)))
                == ["emit[1] status(CFG400 invalid_parameter_service_provider)", "end#1 setRequestorComplete(0) <- CFG400"])
        #expect(h.gate.admits(.checkAuthentication))
        #expect(h.drain() == ["startSetup#2"])
        #expect(h.gate.queue.map(\.id) == [CallID(3)])
        #expect(Self.describe(h.gate.setupFinished(CallID(2), .success(()))) == ["end#2 setRequestorComplete(1)"])
        #expect(h.drain() == ["perform#3"])
    }

    @Test func lateOrForeignSetupAnswersAreIgnored() {
        var h = GateHarness()
        #expect(h.gate.setupFinished(CallID(9), .success(())).isEmpty)  // none
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        #expect(h.gate.setupFinished(CallID(9), .success(())).isEmpty)  // another call's
        #expect(!h.gate.setupFinished(CallID(1), .success(())).isEmpty)
        #expect(h.gate.setupFinished(CallID(1), .failure(Self.cfg400)).isEmpty)  // a second answer
        guard case .ready = h.gate.state else { Issue.record("\(h.gate.state)"); return }
    }

    // MARK: failed

    @Test func queuedCallsEndWithTheirOwnFailureCallbacksWhenSetRequestorFails() {
        var h = GateHarness()
        _ = h.arrive(.setRequestor(id: "UNKNOWN", serviceProviders: nil))
        let commands: [Command] = [
            .checkAuthentication, .getAuthentication(force: false, data: nil, filter: nil), .setSelectedProvider("X"),
            .handleExternalURL("app://done"), .getSelectedProvider, .authorization(resource: "R1", check: false),
            .checkPreauthorizedResources(["A"], cache: true), Self.preauthorize, Self.metadata, .logout,
        ]
        for command in commands { #expect(h.arrive(command) == []) }
        #expect(
            Self.describe(h.gate.setupFinished(CallID(1), .failure(Self.cfg400)))
                == ["emit[1] status(CFG400 invalid_parameter_service_provider)", "end#1 setRequestorComplete(0) <- CFG400"])
        #expect(!h.gate.admits(.checkAuthentication))
        #expect(
            h.drain() == [
                "end#2 setAuthenticationStatus(0, User Not Authenticated Error)",
                "emit[] tracking(0: false,,,false,\(trackingDevice))",
                "end#3 setAuthenticationStatus(0, Generic Authentication Error)",
                "end#4 setAuthenticationStatus(0, Generic Authentication Error)",
                "end#5 setAuthenticationStatus(0, Generic Authentication Error)",
                "end#6 selectedProvider(nil)",
                "end#7 tokenRequestFailed(R1, Generic Authorization Error, setRequestor did not complete successfully.)",
                "end#8 preauthorizedResources([])",
                "end#9 preauthorizeResponse({\"decisions\":[{\"authorized\":false,\"error\":{\"action\":\"retry\",\"code\":"
                    + "\"requestor_not_configured\",\"message\":\"setRequestor did not complete successfully.\",\"status\":0},"
                    + "\"id\":\"A\"},{\"authorized\":false,\"error\":{\"action\":\"retry\",\"code\":\"requestor_not_configured\","
                    + "\"message\":\"setRequestor did not complete successfully.\",\"status\":0},\"id\":\"B\"}],\"status\":"
                    + "{\"action\":\"retry\",\"code\":\"requestor_not_configured\",\"message\":\"setRequestor did not complete "
                    + "successfully.\",\"status\":0}})",
                "end#10 setMetadataStatus(nil, false, 0, {\"opCode\":0})",
                "end#11 setAuthenticationStatus(0, User Not Authenticated Error)",
            ])
        // Then a new call is refused at once (no callback), and setRequestor may be tried again.
        #expect(h.arrive(.checkAuthentication) == ["refuse#12"])
        #expect(h.arrive(.setRequestor(id: "REF30", serviceProviders: nil)) == ["startSetup#13"])
    }

    @Test func aCallAfterAFailedSetupButBehindAQueuedSetRequestorIsAdmittedAndQueued() {
        var h = GateHarness()
        _ = h.arrive(.setRequestor(id: "A", serviceProviders: nil))
        _ = h.arrive(.setRequestor(id: "B", serviceProviders: nil))
        _ = h.gate.setupFinished(CallID(1), .failure(Self.cfg400))
        // Mid-drain (the driver has not run the queued setRequestor yet): a new call queues behind it.
        #expect(h.arrive(.checkAuthentication) == [])
        #expect(h.drain() == ["startSetup#2"])
        #expect(h.gate.queue.map(\.id) == [CallID(3)])
    }

    // MARK: ready and the partner status

    @Test(arguments: [
        (RequestorGate.PartnerFacts.noPartner, false, false),
        (RequestorGateTests.partnerFresh, true, false),
        (RequestorGateTests.partnerStale, true, true),
        (RequestorGate.PartnerFacts(partnerConfigured: true, statusFresh: false, partnerProfileStored: false), true, false),
    ])
    func whichCallsWaitForThePartnerStatus(facts: RequestorGate.PartnerFacts, checkWaits: Bool, profileCallsWait: Bool) {
        #expect(RequestorGate.waitsForPartner(.checkAuthentication, facts) == checkWaits)
        let profileCalls: [Command] = [
            .getAuthentication(force: true, data: nil, filter: nil), .authorization(resource: "R", check: true),
            .checkPreauthorizedResources(["A"], cache: false), Self.preauthorize, Self.metadata,
        ]
        for command in profileCalls { #expect(RequestorGate.waitsForPartner(command, facts) == profileCallsWait) }
        let never: [Command] = [
            .setRequestor(id: "R", serviceProviders: nil), .setSelectedProvider(nil), .getSelectedProvider,
            .logout, .handleExternalURL("x"),
        ]
        for command in never { #expect(!RequestorGate.waitsForPartner(command, facts)) }
    }

    @Test func checkAuthenticationWaitsForThePartnerStatusAndLaterCallsQueueBehindIt() {
        var h = GateHarness()
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        _ = h.gate.setupFinished(CallID(1), .success(()))
        #expect(h.arrive(.checkAuthentication, Self.partnerFresh) == ["askPartnerStatus#2"])
        #expect(h.arrive(.getSelectedProvider) == [])
        #expect(h.arrive(.setRequestor(id: "REF30", serviceProviders: nil)) == [])
        #expect(h.arrive(.getAuthentication(force: false, data: nil, filter: nil)) == [])
        #expect(h.gate.nextQueuedCall == nil)
        #expect(h.gate.admits(.logout))
        let denied = AdvancedStatus("VSA403", .info, "denied")
        #expect(
            Self.describe(h.gate.partnerStatusAnswered(for: CallID(2), advisory: denied))
                == ["emit[2] status(VSA403)", "perform#2 <- VSA403"])
        #expect(h.drain(Self.partnerStale) == ["perform#3", "startSetup#4"])
        _ = h.gate.setupFinished(CallID(4), .success(()))
        #expect(h.drain(Self.partnerStale) == ["askPartnerStatus#5"])
        // The advisory is checkAuthentication's only.
        #expect(Self.describe(h.gate.partnerStatusAnswered(for: CallID(5), advisory: denied)) == ["perform#5"])
    }

    @Test func lateOrForeignPartnerAnswersAreIgnored() {
        var h = GateHarness()
        #expect(h.gate.partnerStatusAnswered(for: CallID(1), advisory: nil).isEmpty)
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        #expect(h.gate.partnerStatusAnswered(for: CallID(1), advisory: nil).isEmpty)
        _ = h.gate.setupFinished(CallID(1), .success(()))
        _ = h.arrive(.checkAuthentication, Self.partnerFresh)
        #expect(h.gate.partnerStatusAnswered(for: CallID(9), advisory: nil).isEmpty)
        #expect(Self.describe(h.gate.partnerStatusAnswered(for: CallID(2), advisory: nil)) == ["perform#2"])
        #expect(h.gate.partnerStatusAnswered(for: CallID(2), advisory: nil).isEmpty)
        #expect(h.gate.runQueued(facts: .noPartner).isEmpty)
    }

    // MARK: Every state × event

    /// The gate in `state`: none, settingUp (setRequestor #1), ready, awaitingPartner (#2 waits),
    /// failed, shutDown.
    private static func gate(in state: String) -> GateHarness {
        var h = GateHarness()
        if state == "none" { return h }
        if state == "shutDown" {
            _ = h.gate.shutdown()
            return h
        }
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        switch state {
        case "ready": _ = h.gate.setupFinished(CallID(1), .success(()))
        case "awaitingPartner":
            _ = h.gate.setupFinished(CallID(1), .success(()))
            _ = h.arrive(.checkAuthentication, partnerFresh)
        case "failed": _ = h.gate.setupFinished(CallID(1), .failure(cfg400))
        default: break
        }
        return h
    }

    @Test(
        arguments: [
            // state, setRequestor arrives, checkAuthentication arrives, setupFinished(#1), partnerStatusAnswered(#2)
            ("none", ["startSetup#1"], ["refuse#1"], [], []),
            ("settingUp", [], [], ["end#1 setRequestorComplete(1)"], []),
            ("ready", ["startSetup#2"], ["perform#2"], [], []),
            ("awaitingPartner", [], [], [], ["perform#2"]),
            ("failed", ["startSetup#2"], ["refuse#2"], [], []),
            ("shutDown", [], [], [], []),
        ] as [(String, [String], [String], [String], [String])])
    func everyStateAndEvent(state: String, setRequestor: [String], check: [String], setupDone: [String], partner: [String]) {
        var h = Self.gate(in: state)
        #expect(h.arrive(.setRequestor(id: "REF30", serviceProviders: nil)) == setRequestor)
        h = Self.gate(in: state)
        #expect(h.arrive(.checkAuthentication) == check)
        h = Self.gate(in: state)
        #expect(Self.describe(h.gate.setupFinished(CallID(1), .success(()))) == setupDone)
        h = Self.gate(in: state)
        #expect(Self.describe(h.gate.partnerStatusAnswered(for: CallID(2), advisory: nil)) == partner)
        h = Self.gate(in: state)
        #expect(h.gate.runQueued(facts: .noPartner).isEmpty)  // nothing queued in any of them
        #expect(h.gate.shutdown().isEmpty)
        #expect(h.arrive(.checkAuthentication).isEmpty)
    }

    // MARK: shutDown

    @Test func afterShutdownEveryEventIsIgnoredAndQueuedCallsGetNoCallback() {
        var h = GateHarness()
        _ = h.arrive(.setRequestor(id: "REF30", serviceProviders: nil))
        _ = h.arrive(.checkAuthentication)
        #expect(h.gate.shutdown().isEmpty)
        #expect(h.gate.queue.isEmpty)
        #expect(!h.gate.admits(.checkAuthentication) && !h.gate.admits(.setRequestor(id: "R", serviceProviders: nil)))
        #expect(h.arrive(.checkAuthentication) == [])
        #expect(h.arrive(.setRequestor(id: "REF30", serviceProviders: nil)) == [])
        #expect(h.gate.setupFinished(CallID(1), .success(())).isEmpty)
        #expect(h.gate.partnerStatusAnswered(for: CallID(2), advisory: nil).isEmpty)
        #expect(h.gate.nextQueuedCall == nil && h.gate.runQueued(facts: .noPartner).isEmpty)
    }
}

/// The driver's part: call ids, and the drain loop.
private struct GateHarness {
    var gate = RequestorGate(tracking: .test)
    var nextID: UInt64 = 0

    mutating func call(_ command: Command) -> Call {
        nextID += 1
        return Call(CallID(nextID), command)
    }

    /// What the driver does after setupFinished / partnerStatusAnswered: the queued calls, one at a
    /// time, each with the facts of its turn.
    mutating func drain(_ facts: RequestorGate.PartnerFacts = .noPartner) -> [String] {
        var out: [String] = []
        while gate.nextQueuedCall != nil { out += RequestorGateTests.describe(gate.runQueued(facts: facts)) }
        return out
    }

    mutating func arrive(_ command: Command, _ facts: RequestorGate.PartnerFacts = .noPartner) -> [String] {
        let call = call(command)
        return RequestorGateTests.describe(gate.callArrived(call, facts: facts))
    }
}
