# SPDX-License-Identifier: Apache-2.0
#
# Debian packages of the installed tree, with CPack's DEB generator (included by ../CMakeLists.txt):
#
#   cmake -S . -B build/deb -G Ninja -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF
#   cmake --build build/deb && (cd build/deb && cpack)
#
# (scripts/package.sh does that, then lintian; docs/PACKAGING.md). One package per install component:
#   libaccessenabler<SOVERSION>  Runtime: the library (stripped) and its SONAME link; control files shlibs,
#                                symbols (which release brought each symbol: abi/*.abi) and the ldconfig
#                                trigger; Depends computed by dpkg-shlibdeps from the library's DT_NEEDED
#   libaccessenabler-dev         Development: the header, the libaccessenabler.so link, the CMake package,
#                                the pkg-config file, the documentation (and the API reference, HTML and man
#                                pages, when built: AE_API_DOCS); Depends on the exact runtime version
#   accessenabler-tools          Tools (BUILD_TOOLS): the diagnostics tool /usr/bin/accessenabler-diag and its
#                                man page (section 1); a library package carries no program (Debian policy
#                                8.2). Depends: dpkg-shlibdeps' (libc6) and the runtime of this version or later
# Each has /usr/share/doc/<package>/copyright (DEP-5, packaging/debian/copyright) and changelog.Debian.gz
# (packaging/debian/changelog, gzip -9n). cmake/DebianPackageFiles.cmake adds those to CPack's staged tree
# and writes the control files (CPACK_PRE_BUILD_SCRIPTS), so a plain `cmake --install` has none of them.
set(AE_DEB_RUNTIME_PACKAGE "libaccessenabler${AE_SOVERSION}")
set(AE_DEB_DEV_PACKAGE "libaccessenabler-dev")
set(AE_DEB_TOOLS_PACKAGE "accessenabler-tools")
set(AE_DEB_REVISION "1" CACHE STRING "Debian revision of the packages (VERSION-REVISION; packaging/debian/changelog)")
set(AE_PACKAGE_MAINTAINER "AccessEnabler for Linux maintainers <maintainers@users.noreply.a-seed-78b5c114.example>"
    CACHE STRING "The packages' Maintainer field")
set(AE_PACKAGE_HOMEPAGE "https://a-seed-78b5c114.example/accessenabler-linux" CACHE STRING "The packages' Homepage field")
set(AE_SWIFT_RUNTIME_DEB_DEPENDS "" CACHE STRING
    "AE_STATIC_SWIFT_RUNTIME=OFF: the target's Debian package(s) of the Swift runtime, added to the runtime package's Depends")
set(AE_DEB_VERSION "${PROJECT_VERSION}-${AE_DEB_REVISION}")

if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    message(STATUS "Debian packages (cpack) want -DCMAKE_INSTALL_PREFIX=/usr (now ${CMAKE_INSTALL_PREFIX})")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME accessenabler)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${AE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${AE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${AE_PACKAGE_HOMEPAGE}")
set(CPACK_DEBIAN_PACKAGE_SOURCE accessenabler)
set(CPACK_DEBIAN_PACKAGE_RELEASE "${AE_DEB_REVISION}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The packages' architecture: dpkg's own (CPack's default), or the target's when cross-compiling
# (scripts/cross.sh: CMAKE_SYSTEM_PROCESSOR from the toolchain file).
if(CMAKE_CROSSCOMPILING AND NOT CPACK_DEBIAN_PACKAGE_ARCHITECTURE)
    if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
        set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
    elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^armv7")
        set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)
    elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|amd64)$")
        set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
    else()
        message(FATAL_ERROR "Debian packages for ${CMAKE_SYSTEM_PROCESSOR}: set -DCPACK_DEBIAN_PACKAGE_ARCHITECTURE")
    endif()
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # <package>_<version>_<arch>.deb
set(AE_DEB_COMPRESSION xz CACHE STRING "The .debs' compression: xz (Debian's default), gzip (3 times faster here), ...")
set(CPACK_DEBIAN_COMPRESSION_TYPE "${AE_DEB_COMPRESSION}")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON) # control files 0644, scripts 0755
# Install with DESTDIR and the real prefix, so that the pkg-config file says /usr, not CPack's staging tree.
set(CPACK_SET_DESTDIR ON)
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON) # the library: strip --strip-unneeded (CMakeLists.txt's install(CODE))

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL Runtime Development)
if(BUILD_TOOLS)
    list(APPEND CPACK_COMPONENTS_ALL Tools)
endif()

# Description lines stay under 80 characters (lintian); an empty line is a paragraph break.
set(_ae_summary "Adobe Pass AccessEnabler API for Linux set-top boxes")
set(_ae_about
    "AccessEnabler for Linux implements Adobe's AccessEnabler TV Everywhere
authentication API (setRequestor, getAuthentication, getAuthorization,
preauthorize, getMetadata, logout) on Adobe Pass REST API V2 and the legacy
REST API V1, for players in C, C++ and Python on Linux set-top boxes.")
if(AE_STATIC_SWIFT_RUNTIME)
    set(_ae_runtime_note "The library is self-contained: the Swift runtime is linked into it.")
else()
    set(_ae_runtime_note
        "This build links the Swift runtime dynamically: the library needs
libswiftCore.so and the rest of the Swift runtime on the dynamic loader's
path, which this package does not install.")
endif()
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME "${AE_DEB_RUNTIME_PACKAGE}")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "${AE_SWIFT_RUNTIME_DEB_DEPENDS}") # + dpkg-shlibdeps' list
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "${_ae_summary} (library)
${_ae_about}

This package contains the shared library.
${_ae_runtime_note}")
if(NOT AE_STATIC_SWIFT_RUNTIME)
    # dpkg-shlibdeps must find the libraries the library NEEDS; the toolchain's runtime belongs to no package.
    set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${AE_SWIFT_RUNTIME_DIR}")
endif()
set(AE_DEB_CONTROL_DIR "${CMAKE_CURRENT_BINARY_DIR}/debian-control")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA
    "${AE_DEB_CONTROL_DIR}/shlibs;${AE_DEB_CONTROL_DIR}/symbols;${AE_DEB_CONTROL_DIR}/triggers")

set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME "${AE_DEB_DEV_PACKAGE}")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${AE_DEB_RUNTIME_PACKAGE} (= ${AE_DEB_VERSION})")
if(_ae_api_docs)
    set(_ae_docs_note "documentation, with the API reference as HTML and as man pages
(man ae_set_requestor, man accessenabler).")
else()
    set(_ae_docs_note "documentation.")
endif()
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION "${_ae_summary} (development files)
${_ae_about}

This package contains the C header accessenabler.h, the CMake package
(find_package(AccessEnabler)), the pkg-config file (accessenabler) and the
${_ae_docs_note}")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME "${AE_DEB_TOOLS_PACKAGE}")
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SHLIBDEPS ON)
# The tool uses the functions of this release (node AE_${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}): this
# runtime or a later one. dpkg-shlibdeps finds the library in the build tree (-l) and adds libc6.
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${AE_DEB_RUNTIME_PACKAGE} (>= ${PROJECT_VERSION})")
list(APPEND CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${AE_STAGE_DIR}")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "${_ae_summary} (diagnostics tool)
${_ae_about}

This package contains accessenabler-diag, for a support engineer on a box:
the token store's status (who is signed in, until when, with which
provider), a logout of one requestor, a check of the way to Adobe Pass
(DNS, TCP, TLS, certificate, clock, service) and a support bundle without
secrets (man accessenabler-diag).")

# What cmake/DebianPackageFiles.cmake needs (CPack passes every CPACK_* variable to it).
set(CPACK_PRE_BUILD_SCRIPTS "${CMAKE_CURRENT_SOURCE_DIR}/cmake/DebianPackageFiles.cmake")
set(CPACK_AE_SOURCE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
set(CPACK_AE_CONTROL_DIR "${AE_DEB_CONTROL_DIR}")
set(CPACK_AE_PACKAGES "Runtime=${AE_DEB_RUNTIME_PACKAGE};Development=${AE_DEB_DEV_PACKAGE}")
if(BUILD_TOOLS)
    list(APPEND CPACK_AE_PACKAGES "Tools=${AE_DEB_TOOLS_PACKAGE}")
endif()
set(CPACK_AE_DEB_VERSION "${AE_DEB_VERSION}")
set(CPACK_AE_LIBRARY "${CMAKE_INSTALL_LIBDIR}/${AE_REAL_NAME}")
set(CPACK_AE_SONAME "${AE_SONAME}")
set(CPACK_AE_READELF "${CMAKE_READELF}")
include(CPack)
