// SPDX-License-Identifier: Apache-2.0
import CAccessEnabler

/// The library version: the header's AE_VERSION_* (Include/accessenabler.h, the version's one home).
public enum Version {
    public static let major = Int32(AE_VERSION_MAJOR)
    public static let minor = Int32(AE_VERSION_MINOR)
    public static let patch = Int32(AE_VERSION_PATCH)
    public static var number: Int32 { major * 10000 + minor * 100 + patch }
    public static var string: String { "\(major).\(minor).\(patch)" }
}
