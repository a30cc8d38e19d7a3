# SPDX-License-Identifier: Apache-2.0
#
# Yocto / OpenEmbedded recipe of AccessEnabler for Linux: libaccessenabler.so.1 in ${PN}, the header, the
# CMake package and the pkg-config file in ${PN}-dev, as the Debian packages libaccessenabler1 and
# libaccessenabler-dev have them (scripts/check-recipes.py compares the two layouts; docs/CROSS.md).
#
# Needs the meta-swift layer (https://github.com/swift-embedded-linux/meta-swift; its branch must match
# your Yocto release and provide Swift 6.0 or newer: ACCESSENABLER_MIN_SWIFT, checked before configuring):
# the Swift cross toolchain (swift-native), the target's Swift runtime (swift-stdlib, libdispatch:
# ${libdir}/swift/linux) and the `swift` class, whose
# swift_do_configure writes a SwiftPM destination for the target triple (aarch64-unknown-linux-gnu,
# armv7-unknown-linux-gnueabihf: SWIFT_TARGET_NAME) from the recipe sysroot into ${WORKDIR}. The library
# is SwiftPM's build, driven by this project's CMakeLists.txt (the SONAME, the install layout, the .pc
# and CMake files): CMake runs `swift build` with AE_SWIFTPM_ARGS, here that destination.
#
# Not verified: bitbake is not available where this recipe was written (scripts/check-recipes.py only
# checks its syntax and its FILES against the .debs). Check the meta-swift class and variable names of
# your branch (older branches: ${WORKDIR}/destination.json as below; newer ones may use a Swift SDK).
SUMMARY = "Adobe Pass AccessEnabler API for Linux set-top boxes"
DESCRIPTION = "AccessEnabler for Linux implements Adobe's AccessEnabler TV Everywhere \
authentication API (setRequestor, getAuthentication, getAuthorization, preauthorize, \
getMetadata, logout) on Adobe Pass REST API V2 and V1, as a C library."
HOMEPAGE = "https://a-seed-78b5c114.example/accessenabler-linux"
SECTION = "libs"
LICENSE = "Apache-2.0"
LIC_FILES_CHKSUM = "file://LICENSE;md5=3b83ef96387f14655fc854ddc3c6bd57"

# The sources: the release tag v${PV} of the project's Git repository (set ACCESSENABLER_GIT_URI to yours
# or to a mirror in a bbappend or local.conf; no branch head is ever built), or a checkout through
# externalsrc (INHERIT += "externalsrc", EXTERNALSRC:pn-accessenabler = "/path").
# Pinning: bitbake 2.12 and later (Yocto 5.2) also take SRCREV with tag= and check at unpack that the tag
# is that commit; set it there (`git rev-parse v${PV}^{commit}`) and the build needs no network at parse
# time. Older bitbake takes the tag itself as the revision (looked up with `git ls-remote` when the recipe
# is parsed, which needs the network; some releases refuse such a floating revision) and rejects a
# different SRCREV ("Conflicting revisions"): to pin there, replace the tag by its commit in a bbappend
# (SRC_URI = "${ACCESSENABLER_GIT_URI};nobranch=1", SRCREV = "<commit of v${PV}>").
ACCESSENABLER_GIT_URI ??= "git://git.example.com/accessenabler-linux.git;protocol=https"
SRC_URI = "${ACCESSENABLER_GIT_URI};nobranch=1;tag=v${PV}"
S = "${WORKDIR}/git"

# The CPUs a Swift toolchain for Linux targets (glibc): aarch64, x86_64, and 32-bit ARM from armv7-a with
# the hard-float ABI (armv7-unknown-linux-gnueabihf: the 32-bit ARM target of Swift's Linux runtime, of
# meta-swift (armv7-a, gnueabihf) and of swift-sdk-generator; none of them has an armv5/armv6 or a
# soft-float Linux target; docs/CROSS.md "32-bit ARM (armv7)"). COMPATIBLE_HOST is matched
# against TARGET_SYS (e.g. aarch64-poky-linux, arm-poky-linux-gnueabi): it refuses other CPUs, big-endian
# ARM (armeb), musl and x32, but names every 32-bit ARM "arm-...-gnueabi", hard-float or not. The anonymous
# function below therefore skips the recipe for an ARM tune without armv7 (TUNE_FEATURES armv7a/armv7ve,
# or armv8a in 32-bit mode) or without the hard-float calling convention (callconvention-hard, the tune
# feature behind TARGET_FPU = "hard"), as COMPATIBLE_HOST itself does (bb.parse.SkipRecipe: the recipe is
# skipped for that MACHINE with the reason, and an image that needs it fails naming it).
COMPATIBLE_HOST = "(aarch64|x86_64|arm)-.*-linux(-gnueabi)?$"

python () {
    if d.getVar("TARGET_ARCH") == "arm":
        features = (d.getVar("TUNE_FEATURES") or "").split()
        if not any(feature in features for feature in ("armv7a", "armv7ve", "armv8a")):
            raise bb.parse.SkipRecipe("needs armv7-a or newer on 32-bit ARM (Swift's target "
                                      "armv7-unknown-linux-gnueabihf); TUNE_FEATURES %s have no "
                                      "armv7a/armv7ve" % " ".join(features))
        if "callconvention-hard" not in features:
            raise bb.parse.SkipRecipe("needs the ARM hard-float ABI (gnueabihf: TUNE_FEATURES "
                                      "callconvention-hard); Swift has no soft-float Linux target "
                                      "(TARGET_FPU is %s)" % d.getVar("TARGET_FPU"))
}

# The C libraries the library links (the C player of Examples/ also needs libqrencode: not built here).
DEPENDS = "curl sqlite3 openssl jansson"

# swift first: cmake's do_configure, do_compile and do_install replace the swift class's SwiftPM-only
# tasks; the destination is still written, before CMake configures.
inherit swift cmake pkgconfig

# The minimum Swift: Package.swift's `// swift-tools-version:6.0` (the sources build with Swift 6.0 to 6.3;
# scripts/check-recipes.py keeps this in step). Checked before CMake configures, against the swift driver
# of meta-swift's toolchain: a meta-swift branch with an older Swift stops here with that message, not in
# the middle of SwiftPM's manifest parsing.
ACCESSENABLER_MIN_SWIFT = "6.0"

python accessenabler_check_swift() {
    import re
    import subprocess
    swift = d.getVar("ACCESSENABLER_SWIFT")
    minimum = d.getVar("ACCESSENABLER_MIN_SWIFT")
    try:
        result = subprocess.run([swift, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, timeout=120)
        output = result.stdout
    except (OSError, subprocess.SubprocessError) as error:
        bb.fatal("accessenabler needs Swift %s or newer: %s --version does not run (%s); check "
                 "ACCESSENABLER_SWIFT and meta-swift's swift-native" % (minimum, swift, error))
    match = re.search(r"Swift version (\d+)\.(\d+)", output)
    if result.returncode != 0 or not match:
        bb.fatal("accessenabler needs Swift %s or newer: no 'Swift version X.Y' in the output of "
                 "%s --version:\n%s" % (minimum, swift, output))
    found = (int(match.group(1)), int(match.group(2)))
    wanted = tuple(int(part) for part in minimum.split(".")[:2])
    if found < wanted:
        bb.fatal("accessenabler needs Swift %s or newer (Package.swift: swift-tools-version:%s); %s is "
                 "Swift %d.%d: use a meta-swift branch with Swift %s or newer"
                 % (minimum, minimum, swift, found[0], found[1], minimum))
    bb.note("accessenabler: %s is Swift %d.%d (minimum %s)" % (swift, found[0], found[1], minimum))
}

do_configure[prefuncs] += "accessenabler_check_swift"
do_configure[prefuncs] += "swift_do_configure"

# AE_STATIC_SWIFT_RUNTIME (CMakeLists.txt, docs/PACKAGING.md):
#   OFF (here the default)  the library NEEDS the image's shared Swift runtime from meta-swift, which every
#                           Swift program of the image shares; bitbake's shlibs step adds swift-stdlib and
#                           libdispatch to RDEPENDS:${PN} from the library's DT_NEEDED. The library has no
#                           RPATH: the image must have ${libdir}/swift/linux on the loader path
#                           (/etc/ld.so.conf.d), as meta-swift's own programs do through their RPATH.
#   ON                      the runtime is linked into the library (self-contained: about 7.2 MB stripped
#                           on x86_64 in a native build, whose runtime CMake trims; a destination's
#                           runtime is linked as it is, somewhat larger: BENCHMARKS.md "Size"); needs the static Swift runtime
#                           (libswiftCore.a, ...) in the sysroot, which not all meta-swift branches build.
ACCESSENABLER_STATIC_SWIFT_RUNTIME ??= "OFF"
# The native swift driver of meta-swift's toolchain.
ACCESSENABLER_SWIFT ??= "${STAGING_DIR_NATIVE}/opt/usr/bin/swift"

# AE_API_DOCS=OFF: no API reference (doxygen is no dependency of the image's build; the .debs have it).
# BUILD_TOOLS=OFF: the diagnostics tool accessenabler-diag is not packaged by this recipe yet (the .debs have it).
EXTRA_OECMAKE += " \
    -DSWIFT_EXECUTABLE=${ACCESSENABLER_SWIFT} \
    '-DAE_SWIFTPM_ARGS=--destination;${WORKDIR}/destination.json' \
    -DAE_STATIC_SWIFT_RUNTIME=${ACCESSENABLER_STATIC_SWIFT_RUNTIME} \
    -DAE_SWIFT_RUNTIME_DIR=${libdir}/swift/linux \
    -DBUILD_TESTING=OFF \
    -DBUILD_EXAMPLES=OFF \
    -DAE_API_DOCS=OFF \
    -DBUILD_TOOLS=OFF \
"

# The package split of the .debs (libaccessenabler1 / libaccessenabler-dev); the README and docs/*.md go to
# ${PN}-doc, as Yocto splits documentation (the .deb has them in libaccessenabler-dev).
FILES:${PN} = "${libdir}/libaccessenabler.so.*"
FILES:${PN}-dev = " \
    ${includedir}/accessenabler.h \
    ${libdir}/libaccessenabler.so \
    ${libdir}/cmake/AccessEnabler \
    ${libdir}/pkgconfig/accessenabler.pc \
"
FILES:${PN}-doc = "${docdir}/libaccessenabler-dev"
