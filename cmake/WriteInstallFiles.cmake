# SPDX-License-Identifier: Apache-2.0
#
# The install-time pass of accessenabler.pc and AccessEnablerConfig.cmake: included by an install(CODE)
# rule of ../CMakeLists.txt, which sets
#   AE_INSTALL_TEMPLATES  the files as configured at configure time (<name>.in in the build directory),
#                         each written next to it without the .in
#   AE_INSTALL_LIBRARY    the library as built (its DT_NEEDED entries), AE_READELF the readelf to read it
# Filled in here:
#   @AE_PC_PREFIX@                 CMAKE_INSTALL_PREFIX, the final prefix, including a `cmake --install
#                                  --prefix` override (DESTDIR is not part of it, as pkg-config wants)
#   @AE_SWIFT_RUNTIME_LIBRARIES@   the Swift runtime libraries the library NEEDS (none when the runtime
#                                  is linked in): read from the library, never listed by hand
set(AE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")

execute_process(COMMAND "${AE_READELF}" -d "${AE_INSTALL_LIBRARY}" OUTPUT_VARIABLE _ae_dynamic
                COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL "Shared library: \\[[^]]+\\]" _ae_needed "${_ae_dynamic}")
set(AE_SWIFT_RUNTIME_LIBRARIES "")
foreach(_ae_entry IN LISTS _ae_needed)
    string(REGEX REPLACE "^Shared library: \\[(.*)\\]$" "\\1" _ae_name "${_ae_entry}")
    # The Swift toolchain's runtime: libswift*, Foundation*, libdispatch, libBlocksRuntime.
    if(_ae_name MATCHES "^lib(swift|Foundation|_Foundation|dispatch|BlocksRuntime)")
        string(APPEND AE_SWIFT_RUNTIME_LIBRARIES " ${_ae_name}")
    endif()
endforeach()
string(STRIP "${AE_SWIFT_RUNTIME_LIBRARIES}" AE_SWIFT_RUNTIME_LIBRARIES)

foreach(_ae_template IN LISTS AE_INSTALL_TEMPLATES)
    string(REGEX REPLACE "\\.in$" "" _ae_output "${_ae_template}")
    configure_file("${_ae_template}" "${_ae_output}" @ONLY)
endforeach()
