// SPDX-License-Identifier: Apache-2.0

/// The host's single sign-on tokens asked for through its IdentityTokenProvider (the pull form;
/// docs/PLATFORM-SSO.md): at setRequestor (waited for), when a token nears its `exp` and after
/// Adobe refused one (in the background). A token the host gives is checked as
/// `AccessEnabler.setIdentityToken` checks it; one that fails the checks is not used (SSO400).
extension Engine {
    /// The kinds to ask for now: the provider's, without a token still valid `Defaults.identityRefreshMarginMillis` from
    /// now (`reason` nil) or exactly `only` (for a refusal).
    nonisolated func identityKindsToAsk(only: IdentityTokenKind? = nil) -> [(IdentityTokenKind, IdentityTokenReason)] {
        guard let provider = settings.identityProvider else { return [] }
        if let only { return provider.kinds.contains(only) ? [(only, .refused)] : [] }
        let now = clock.nowMillis()
        let tokens = context.withLock { $0.identityTokens }
        return IdentityTokenKind.allCases.filter(provider.kinds.contains).compactMap { kind in
            guard let token = tokens[kind], !token.isExpired(at: now) else { return (kind, .needed) }
            return token.isExpired(at: now, marginMillis: Defaults.identityRefreshMarginMillis)
                ? (kind, .expiring) : nil
        }
    }

    /// Asks the provider for each of `asks` at once and waits for the answers (each at most the
    /// provider's timeout); a token that passes the checks replaces the held one.
    nonisolated func askIdentityTokens(_ asks: [(IdentityTokenKind, IdentityTokenReason)]) async {
        guard let provider = settings.identityProvider, !asks.isEmpty else { return }
        let timeout = Int64((provider.timeoutMillis ?? Defaults.identityTimeoutMillis).clamped(to: Limits.partnerTimeoutMillis))
        await withTaskGroup(of: Void.self) { group in
            for (kind, reason) in asks where identityAsking.withLock({ $0.insert(kind).inserted }) {
                group.addTask {
                    let answer = await AnswerOnce<String?>.wait(
                        timeoutMillis: timeout, clock: self.clock, timedOut: { nil }, cancelled: { nil }
                    ) { slot in provider.requestToken(kind, reason: reason, reply: IdentityTokenReply(slot)) }
                    self.identityAsking.withLock { _ = $0.remove(kind) }
                    self.take(answer, kind: kind)
                }
            }
        }
    }

    /// Asks in the background for the tokens the SDK holds that passed or near their `exp` (before
    /// a call). A kind the host never gave is asked for at setRequestor only.
    nonisolated func refreshIdentityTokensIfNeeded() {
        guard settings.identityProvider != nil else { return }
        let held = context.withLock { Set($0.identityTokens.keys) }
        let asks = identityKindsToAsk().filter { held.contains($0.0) }
        guard !asks.isEmpty else { return }
        spawn { await self.askIdentityTokens(asks) }
    }

    private nonisolated func take(_ answer: String?, kind: IdentityTokenKind) {
        guard let answer else {
            logger.info("\(kind.headerName): the host gave none")
            return
        }
        do {
            let token = try IdentityToken.parse(answer, kind: kind, nowMillis: clock.nowMillis())
            context.withLock { $0.identityTokens[kind] = token }
            logger.info("\(kind.headerName): set from the host's provider (sha256 \(token.fingerprint)…)")
        } catch {
            logger.warning("\(kind.headerName) from the host's provider not used: \(error)")
            sink.emit(Emission(.status(StatusCatalog.identityUnusable(kind, error))))
        }
    }
}
