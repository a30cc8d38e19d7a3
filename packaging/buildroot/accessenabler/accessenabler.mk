################################################################################
#
# accessenabler
#
################################################################################

# AccessEnabler for Linux (docs/CROSS.md). The library is SwiftPM's build, driven by the project's
# CMakeLists.txt (SONAME, install layout, pkg-config and CMake files), which runs `swift build` with
# AE_SWIFTPM_ARGS: here the target's Swift SDK (Config.in). Buildroot ships no Swift toolchain; the build
# host provides one (BR2_PACKAGE_ACCESSENABLER_SWIFT).
# The sources: the forge's tarball of the release tag v$(ACCESSENABLER_VERSION) (on GitHub the same as
# $(call github,OWNER,accessenabler-linux,v$(ACCESSENABLER_VERSION))), saved as
# accessenabler-$(ACCESSENABLER_VERSION).tar.gz and checked against accessenabler.hash; never a branch
# head. Set ACCESSENABLER_SITE to the project's forge or a mirror, or build a checkout with
# ACCESSENABLER_OVERRIDE_SRCDIR in local.mk.
ACCESSENABLER_VERSION = 1.5.0
ACCESSENABLER_SITE ?= https://git.example.com/accessenabler-linux/archive/v$(ACCESSENABLER_VERSION)
ACCESSENABLER_LICENSE = Apache-2.0
ACCESSENABLER_LICENSE_FILES = LICENSE
ACCESSENABLER_INSTALL_STAGING = YES
ACCESSENABLER_DEPENDENCIES = libcurl sqlite openssl jansson host-pkgconf

ACCESSENABLER_SWIFT = $(call qstrip,$(BR2_PACKAGE_ACCESSENABLER_SWIFT))

# The minimum Swift: Package.swift's `// swift-tools-version:6.0` (the sources build with Swift 6.0 to
# 6.3; scripts/check-recipes.py keeps the two in step). The host's swift is checked before CMake
# configures, so an older toolchain stops with this message rather than in SwiftPM's manifest parsing.
ACCESSENABLER_MIN_SWIFT = 6.0

define ACCESSENABLER_CHECK_SWIFT
	$(Q)version=$$($(ACCESSENABLER_SWIFT) --version 2>&1 | \
		sed -n 's/.*Swift version \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p' | head -n 1); \
	if [ -z "$$version" ]; then \
		echo "accessenabler needs Swift $(ACCESSENABLER_MIN_SWIFT) or newer: no 'Swift version X.Y' from" \
			"$(ACCESSENABLER_SWIFT) --version (BR2_PACKAGE_ACCESSENABLER_SWIFT)" >&2; \
		exit 1; \
	fi; \
	lowest=$$(printf '%s\n%s\n' "$(ACCESSENABLER_MIN_SWIFT)" "$$version" | sort -t. -k1,1n -k2,2n | head -n 1); \
	if [ "$$lowest" != "$(ACCESSENABLER_MIN_SWIFT)" ]; then \
		echo "accessenabler needs Swift $(ACCESSENABLER_MIN_SWIFT) or newer" \
			"(Package.swift: swift-tools-version:$(ACCESSENABLER_MIN_SWIFT)); $(ACCESSENABLER_SWIFT)" \
			"is Swift $$version (BR2_PACKAGE_ACCESSENABLER_SWIFT)" >&2; \
		exit 1; \
	fi
endef
ACCESSENABLER_PRE_CONFIGURE_HOOKS += ACCESSENABLER_CHECK_SWIFT

ACCESSENABLER_SWIFT_SDK = $(call qstrip,$(BR2_PACKAGE_ACCESSENABLER_SWIFT_SDK))
ACCESSENABLER_SWIFTPM_ARGS = $(if $(ACCESSENABLER_SWIFT_SDK),--swift-sdk;$(ACCESSENABLER_SWIFT_SDK))

# AE_API_DOCS=OFF: no API reference, even when the build host has doxygen (the target has no use for it).
ACCESSENABLER_CONF_OPTS = \
	-DSWIFT_EXECUTABLE=$(ACCESSENABLER_SWIFT) \
	-DAE_SWIFTPM_ARGS="$(ACCESSENABLER_SWIFTPM_ARGS)" \
	-DBUILD_TESTING=OFF \
	-DBUILD_EXAMPLES=OFF \
	-DAE_API_DOCS=OFF

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
