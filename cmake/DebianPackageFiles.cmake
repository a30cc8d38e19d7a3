# SPDX-License-Identifier: Apache-2.0
#
# CPack pre-build script of the Debian packages (CPACK_PRE_BUILD_SCRIPTS, cmake/Packaging.cmake): runs
# after CPack installed each component into <CPACK_TEMPORARY_DIRECTORY>/<component> and before it makes
# the .debs. It adds what Debian wants and a plain `cmake --install` should not get:
#   /usr/share/doc/<package>/copyright            packaging/debian/copyright (DEP-5), in each package
#   /usr/share/doc/<package>/changelog.Debian.gz  packaging/debian/changelog, gzip -9n, in each package;
#                                                 its first entry must be this version (VERSION-REVISION)
#   /usr/share/lintian/overrides/<package>        packaging/debian/<component>.lintian-overrides: the
#                                                 lintian warnings accepted, each with its reason
# It compresses the man pages (the API reference's, when built) as Debian wants them: gzip -9n, each
# /usr/share/man/man*/X becoming X.gz and a symbolic link X -> Y becoming X.gz -> Y.gz. And it writes
# the runtime package's control files into CPACK_AE_CONTROL_DIR:
#   shlibs    libaccessenabler <SOVERSION> <package> (>= the version that brought the newest symbol)
#   symbols   every symbol the library exports (readelf), with the first release that had it (abi/*.abi,
#             the ABI baselines of the releases; a symbol in none of them is this version's)
#   triggers  activate-noawait ldconfig
if(NOT CPACK_GENERATOR STREQUAL "DEB")
    return()
endif()

set(_src "${CPACK_AE_SOURCE_DIR}")
string(REGEX REPLACE "-[^-]+$" "" _upstream "${CPACK_AE_DEB_VERSION}")

# The changelog says which version it is about: a new version needs its entry first.
file(STRINGS "${_src}/packaging/debian/changelog" _first LIMIT_COUNT 1)
if(NOT _first MATCHES "^accessenabler \\(([^)]+)\\) ")
    message(FATAL_ERROR "packaging/debian/changelog: cannot read its first line: ${_first}")
endif()
if(NOT CMAKE_MATCH_1 STREQUAL CPACK_AE_DEB_VERSION)
    message(FATAL_ERROR "packaging/debian/changelog's first entry is ${CMAKE_MATCH_1}, the packages are "
                        "${CPACK_AE_DEB_VERSION}: add an entry for ${CPACK_AE_DEB_VERSION}")
endif()
find_program(_gzip gzip REQUIRED)
set(_changelog_gz "${CPACK_AE_CONTROL_DIR}/changelog.Debian.gz")
file(MAKE_DIRECTORY "${CPACK_AE_CONTROL_DIR}")
# -n: no name or time stamp in the header, so the file is the same for every build (and architecture).
execute_process(COMMAND "${_gzip}" -9n -c "${_src}/packaging/debian/changelog" OUTPUT_FILE "${_changelog_gz}"
                COMMAND_ERROR_IS_FATAL ANY)

foreach(_entry IN LISTS CPACK_AE_PACKAGES)
    string(REPLACE "=" ";" _entry "${_entry}")
    list(GET _entry 0 _component)
    list(GET _entry 1 _package)
    set(_doc "${CPACK_TEMPORARY_DIRECTORY}/${_component}${CPACK_PACKAGING_INSTALL_PREFIX}/share/doc/${_package}")
    # file(COPY), not file(INSTALL): CPack's DESTDIR is still in the environment.
    file(COPY "${_src}/packaging/debian/copyright" "${_changelog_gz}" DESTINATION "${_doc}"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
    string(TOLOWER "${_component}" _overrides)
    set(_overrides "${_src}/packaging/debian/${_overrides}.lintian-overrides")
    if(EXISTS "${_overrides}")
        set(_dir "${CPACK_TEMPORARY_DIRECTORY}/${_component}${CPACK_PACKAGING_INSTALL_PREFIX}/share/lintian/overrides")
        file(MAKE_DIRECTORY "${_dir}")
        configure_file("${_overrides}" "${_dir}/${_package}" COPYONLY)
        file(CHMOD "${_dir}/${_package}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
    endif()
    if(_component STREQUAL "Runtime")
        set(_runtime_package "${_package}")
    endif()
    file(GLOB _pages LIST_DIRECTORIES false
         "${CPACK_TEMPORARY_DIRECTORY}/${_component}${CPACK_PACKAGING_INSTALL_PREFIX}/share/man/man*/*")
    foreach(_page IN LISTS _pages)
        if(_page MATCHES "\\.gz$")
            continue()
        endif()
        if(IS_SYMLINK "${_page}")
            file(READ_SYMLINK "${_page}" _target)
            file(REMOVE "${_page}")
            file(CREATE_LINK "${_target}.gz" "${_page}.gz" SYMBOLIC)
        else()
            execute_process(COMMAND "${_gzip}" -9n "${_page}" COMMAND_ERROR_IS_FATAL ANY)
        endif()
    endforeach()
endforeach()

# The symbols the library exports (defined, in a version node): name@node.
set(_library "${CPACK_TEMPORARY_DIRECTORY}/Runtime${CPACK_PACKAGING_INSTALL_PREFIX}/${CPACK_AE_LIBRARY}")
execute_process(COMMAND "${CPACK_AE_READELF}" --dyn-syms -W "${_library}" OUTPUT_VARIABLE _dynsyms
                COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCHALL "[^\n]+" _dynsyms "${_dynsyms}")
set(_exports "")
foreach(_line IN LISTS _dynsyms)
    # Num: Value Size Type Bind Vis Ndx Name
    if(_line MATCHES "^ *[0-9]+: +[0-9a-f]+ +[0-9a-fx]+ +[A-Z]+ +GLOBAL +(DEFAULT|PROTECTED) +([A-Z0-9]+) +([A-Za-z0-9_.]+)@@?([A-Za-z0-9_.]+)$"
       AND NOT CMAKE_MATCH_2 STREQUAL "UND")
        list(APPEND _exports "${CMAKE_MATCH_3}@${CMAKE_MATCH_4}")
    endif()
endforeach()
list(REMOVE_DUPLICATES _exports)
list(SORT _exports)
if(NOT _exports)
    message(FATAL_ERROR "${_library} exports no versioned symbol")
endif()

# The first release of each symbol, from the ABI baselines abi/<version>.abi (oldest first).
file(GLOB _baselines "${_src}/abi/*.abi")
set(_releases "")
foreach(_baseline IN LISTS _baselines)
    get_filename_component(_release "${_baseline}" NAME_WLE)
    list(APPEND _releases "${_release}")
endforeach()
list(SORT _releases COMPARE NATURAL)
set(_newest "0")
set(_symbols_body "")
foreach(_symbol IN LISTS _exports)
    string(REPLACE "@" ";" _parts "${_symbol}")
    list(GET _parts 0 _name)
    list(GET _parts 1 _node)
    set(_since "${_upstream}")
    foreach(_release IN LISTS _releases)
        file(READ "${_src}/abi/${_release}.abi" _corpus)
        if(_name STREQUAL _node) # the version node itself: a release that has any symbol in it
            string(FIND "${_corpus}" "version='${_node}'" _at)
        else()
            string(FIND "${_corpus}" "name='${_name}' version='${_node}'" _at)
        endif()
        if(NOT _at EQUAL -1)
            set(_since "${_release}")
            break()
        endif()
    endforeach()
    if(_since VERSION_GREATER _newest)
        set(_newest "${_since}")
    endif()
    string(APPEND _symbols_body " ${_symbol} ${_since}\n")
endforeach()

string(REGEX REPLACE "^(.*)\\.so\\.(.*)$" "\\1;\\2" _soname_parts "${CPACK_AE_SONAME}")
list(GET _soname_parts 0 _libname)
list(GET _soname_parts 1 _soversion)
file(WRITE "${CPACK_AE_CONTROL_DIR}/shlibs" "${_libname} ${_soversion} ${_runtime_package} (>= ${_newest})\n")
file(WRITE "${CPACK_AE_CONTROL_DIR}/symbols"
     "${CPACK_AE_SONAME} ${_runtime_package} #MINVER#\n* Build-Depends-Package: ${CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME}\n${_symbols_body}")
file(WRITE "${CPACK_AE_CONTROL_DIR}/triggers" "activate-noawait ldconfig\n")
list(LENGTH _exports _count)
message(STATUS "Debian files: copyright, changelog.Debian.gz; shlibs (>= ${_newest}), symbols (${_count}), triggers")
