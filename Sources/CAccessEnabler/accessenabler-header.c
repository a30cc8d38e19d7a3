// SPDX-License-Identifier: Apache-2.0
// This target only carries Include/accessenabler.h into Swift (see include/module.modulemap);
// compiling the header here also checks that it is valid C in the package build.
#include "../../Include/accessenabler.h"
