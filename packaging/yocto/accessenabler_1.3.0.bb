# SPDX-License-Identifier: Apache-2.0
#
# Yocto / OpenEmbedded recipe of AccessEnabler for Linux: libaccessenabler.so.1 in ${PN}, the header, the
# CMake package and the pkg-config file in ${PN}-dev, as the Debian packages libaccessenabler1 and
# libaccessenabler-dev have them (scripts/check-recipes.py compares the two layouts; docs/CROSS.md).
#
# Needs the meta-swift layer (https://github.com/swift-embedded-linux/meta-swift; its branch must match
# your Yocto release and provide Swift 6): the Swift cross toolchain (swift-native), the target's Swift
# runtime (swift-stdlib, libdispatch: ${libdir}/swift/linux) and the `swift` class, whose
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
LIC_FILES_CHKSUM = "file://CMakeLists.txt;beginline=1;endline=1;md5=653b254f286b881bdce1d14afdede628"

# The sources: set ACCESSENABLER_GIT_URI and SRCREV (a release commit) in a bbappend or local.conf, or
# build a checkout with externalsrc (INHERIT += "externalsrc", EXTERNALSRC:pn-accessenabler = "/path").
ACCESSENABLER_GIT_URI ??= "git://git.example.com/accessenabler-linux.git;protocol=https;branch=main"
SRC_URI = "${ACCESSENABLER_GIT_URI}"
SRCREV ??= "${AUTOREV}"
S = "${WORKDIR}/git"

# The C libraries the library links (the C player of Examples/ also needs libqrencode: not built here).
DEPENDS = "curl sqlite3 openssl jansson"

# swift first: cmake's do_configure, do_compile and do_install replace the swift class's SwiftPM-only
# tasks; the destination is still written, before CMake configures.
inherit swift cmake pkgconfig
do_configure[prefuncs] += "swift_do_configure"

# AE_STATIC_SWIFT_RUNTIME (CMakeLists.txt, docs/PACKAGING.md):
#   OFF (here the default)  the library NEEDS the image's shared Swift runtime from meta-swift, which every
#                           Swift program of the image shares; bitbake's shlibs step adds swift-stdlib and
#                           libdispatch to RDEPENDS:${PN} from the library's DT_NEEDED. The library has no
#                           RPATH: the image must have ${libdir}/swift/linux on the loader path
#                           (/etc/ld.so.conf.d), as meta-swift's own programs do through their RPATH.
#   ON                      the runtime is linked into the library (self-contained, about 15 MB); needs the
#                           static Swift runtime (libswiftCore.a, ...) in the sysroot, which meta-swift
#                           branches do not all build.
ACCESSENABLER_STATIC_SWIFT_RUNTIME ??= "OFF"
# The native swift driver of meta-swift's toolchain.
ACCESSENABLER_SWIFT ??= "${STAGING_DIR_NATIVE}/opt/usr/bin/swift"

EXTRA_OECMAKE += " \
    -DSWIFT_EXECUTABLE=${ACCESSENABLER_SWIFT} \
    '-DAE_SWIFTPM_ARGS=--destination;${WORKDIR}/destination.json' \
    -DAE_STATIC_SWIFT_RUNTIME=${ACCESSENABLER_STATIC_SWIFT_RUNTIME} \
    -DAE_SWIFT_RUNTIME_DIR=${libdir}/swift/linux \
    -DBUILD_TESTING=OFF \
    -DBUILD_EXAMPLES=OFF \
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
