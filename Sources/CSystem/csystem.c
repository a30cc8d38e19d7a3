// SPDX-License-Identifier: Apache-2.0
// The header-only wrappers live in include/csystem.h.
#include "csystem.h"
