# SPDX-License-Identifier: Apache-2.0
#
# Writes accessenabler.pc at install time: included by an install(CODE) rule of ../CMakeLists.txt,
# which sets AE_PC_TEMPLATE (the .pc with everything but the prefix filled in at configure time)
# and AE_PC_OUTPUT. Here CMAKE_INSTALL_PREFIX is the final prefix, including a
# `cmake --install --prefix` override (DESTDIR is not part of it, as pkg-config wants).
set(AE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
configure_file("${AE_PC_TEMPLATE}" "${AE_PC_OUTPUT}" @ONLY)
