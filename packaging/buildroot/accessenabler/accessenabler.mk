################################################################################
#
# accessenabler
#
################################################################################

# AccessEnabler for Linux (docs/CROSS.md). The library is SwiftPM's build, driven by the project's
# CMakeLists.txt (SONAME, install layout, pkg-config and CMake files), which runs `swift build` with
# AE_SWIFTPM_ARGS: here the target's Swift SDK (Config.in). Buildroot ships no Swift toolchain; the build
# host provides one (BR2_PACKAGE_ACCESSENABLER_SWIFT).
# Set ACCESSENABLER_SITE to the project's Git repository (or build a checkout with
# ACCESSENABLER_OVERRIDE_SRCDIR in local.mk).
ACCESSENABLER_VERSION = 1.3.0
ACCESSENABLER_SITE ?= https://git.example.com/accessenabler-linux.git
ACCESSENABLER_SITE_METHOD = git
ACCESSENABLER_LICENSE = Apache-2.0
ACCESSENABLER_LICENSE_FILES = CMakeLists.txt
ACCESSENABLER_INSTALL_STAGING = YES
ACCESSENABLER_DEPENDENCIES = libcurl sqlite openssl jansson host-pkgconf

ACCESSENABLER_SWIFT_SDK = $(call qstrip,$(BR2_PACKAGE_ACCESSENABLER_SWIFT_SDK))
ACCESSENABLER_SWIFTPM_ARGS = $(if $(ACCESSENABLER_SWIFT_SDK),--swift-sdk;$(ACCESSENABLER_SWIFT_SDK))

ACCESSENABLER_CONF_OPTS = \
	-DSWIFT_EXECUTABLE=$(call qstrip,$(BR2_PACKAGE_ACCESSENABLER_SWIFT)) \
	-DAE_SWIFTPM_ARGS="$(ACCESSENABLER_SWIFTPM_ARGS)" \
	-DBUILD_TESTING=OFF \
	-DBUILD_EXAMPLES=OFF

ifeq ($(BR2_PACKAGE_ACCESSENABLER_STATIC_SWIFT_RUNTIME),y)
ACCESSENABLER_CONF_OPTS += -DAE_STATIC_SWIFT_RUNTIME=ON
else
ACCESSENABLER_CONF_OPTS += -DAE_STATIC_SWIFT_RUNTIME=OFF \
	-DAE_SWIFT_RUNTIME_DIR=$(call qstrip,$(BR2_PACKAGE_ACCESSENABLER_SWIFT_RUNTIME_DIR))
endif

# The target gets what the .deb libaccessenabler1 has (the library and its SONAME link; Buildroot's
# target-finalize strips it and removes the header, .pc and CMake files, which stay in staging for
# other packages to build against, as libaccessenabler-dev).
$(eval $(cmake-package))
