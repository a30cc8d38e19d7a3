// SPDX-License-Identifier: Apache-2.0

/// Which step of a call failed: flows name registration and token failures (R400, R401)
/// apart from failures of the call itself.
package struct CallFailure: Error, Sendable {
    package enum Stage: Sendable { case registration, accessToken, call }
    package var stage: Stage
    package var error: ServiceError

    package init(_ stage: Stage, _ error: ServiceError) {
        self.stage = stage
        self.error = error
    }

    package var isCancellation: Bool { error.isCancellation }
}
