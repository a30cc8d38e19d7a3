// SPDX-License-Identifier: Apache-2.0

/// A request to the platform's partner framework (the driver asks it with the action's timeout).
package enum PartnerQuestion: Sendable, Equatable {
    /// checkAccessStatus.
    case accessStatus(prompt: Bool)
    /// enqueue(metadata request): the picker, or the SAML request.
    case metadata(PartnerMetadataRequest)
}

/// The answer of the platform to a PartnerQuestion (a timeout is `PartnerError(.timeout)`).
package enum PartnerAnswer: Sendable {
    case access(Result<PartnerAccess, PartnerError>)
    case metadata(Result<PartnerMetadata, PartnerError>)
}
