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

    /// The outcome of `body` as a value (for calls that run side by side, or answers fed to a flow).
    package static func capture<T>(_ body: () async throws(CallFailure) -> T) async -> Result<T, CallFailure> {
        do { return .success(try await body()) } catch { return .failure(error) }
    }
}
