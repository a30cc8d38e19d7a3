// SPDX-License-Identifier: Apache-2.0

/// getMetadata. REST API V1's tokens/authn carries no user metadata: `GET tokens/usermetadata` is
/// read the first time getMetadata needs it (not at every login: most sessions never ask), and
/// kept with the profile (V2 profiles carry theirs: never pending).
extension Engine {
    /// Opcodes 0 and 1 answer an expiry in ms since the epoch, 2 the device id (once the host
    /// enabled it, setOptions `deviceIdMetadata`: Adobe documents it disabled by default; else
    /// nothing, after the META403 status), 3 a profile attribute (or `tokenSource`, derived from the
    /// profile's type and issuer). V1 reads the user metadata first when the profile does not have
    /// it yet (below).
    func getMetadata(_ call: CallID, _ key: MetadataKey) {
        if deferMetadata(call, key) { return }
        answerMetadata(call, key)
    }

    func answerMetadata(_ call: CallID, _ key: MetadataKey) {
        let profile = currentProfile()
        var value: JSONValue?
        var encrypted = false
        switch key.opCode {
        case MetadataKey.authentication:
            value = profile.map { .int($0.notAfter) }
        case MetadataKey.authorization:
            if let profile, let requestor, let resource = key.resourceID,
                let notAfter = try? store.authorizationExpiry(
                    scope, requestor: requestor.id, mvpd: profile.mvpd,
                    resource: resource),
                notAfter > clock.nowMillis()
            {
                value = .int(notAfter)
            }
        case MetadataKey.deviceID:
            let (deviceID, enabled) = context.withLock { ($0.deviceID, $0.deviceIDMetadata) }
            guard enabled else {
                let status = StatusCatalog.deviceIDMetadataDisabled
                emit(.status(status), calls: [call])
                end(call, .setMetadataStatus(nil, encrypted: false, key: key.opCode, arguments: key.arguments), explanation: status)
                return
            }
            value = .string(deviceID)
        default:
            guard let profile, let name = key.userMetadataName else { break }
            if name == "tokenSource" {
                value = .string(profile.tokenSource)
            } else if let attribute = profile.attributes[name] {
                value = attribute.value
                encrypted = attribute.isEncrypted
            }
        }
        end(call, .setMetadataStatus(value, encrypted: encrypted, key: key.opCode, arguments: key.arguments))
    }

    /// getMetadata of user metadata while the profile's metadata has not been read: the first such
    /// call reads it; calls made meanwhile wait, and all are answered in call order. Returns false
    /// when the call can be answered at once.
    func deferMetadata(_ call: CallID, _ key: MetadataKey) -> Bool {
        if metadataWaiting != nil {
            metadataWaiting?.append((call, key))
            return true
        }
        guard key.opCode == MetadataKey.userMetadata, let backend = requestor?.backend,
            let profile = currentProfile(), profile.attributesPending == true
        else { return false }
        metadataWaiting = [(call, key)]
        spawn {
            let result = await CallFailure.capture { () async throws(CallFailure) in try await backend.userMetadata() }
            await self.userMetadataRead(profile, result)
        }
        return true
    }

    /// The user metadata arrived (or not: the profile stays as it is, the host then gets no
    /// value): stored with the profile, then the waiting calls are answered.
    private func userMetadataRead(_ profile: Profile, _ result: Result<V1UserMetadata?, CallFailure>) {
        switch result {
        case .success(let metadata?): saveIfStillStored(LogoutFlow.completed(profile, with: metadata))
        case .success(nil): break
        case .failure(let failure):
            if !failure.isCancellation { logger.warning("user metadata: \(failure.error.enhancedError.code)") }
        }
        let keys = metadataWaiting ?? []
        metadataWaiting = nil
        for (call, key) in keys { answerMetadata(call, key) }
    }

    /// Stores a profile completed with its user metadata, only while it is still the device's
    /// token (a logout or a new login may have come meanwhile).
    func saveIfStillStored(_ profile: Profile) {
        guard let requestor, let stored = storedProfile(profile.mvpd), stored.notAfter == profile.notAfter else { return }
        do {
            try store.saveProfile(scope, requestor: requestor.id, deviceID: context.withLock { $0.deviceID }, profile)
        } catch {
            logger.error("cannot store the user metadata: \(error)")
        }
    }
}
