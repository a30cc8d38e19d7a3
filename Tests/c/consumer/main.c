/* SPDX-License-Identifier: Apache-2.0
 * A consumer of the installed library: prints the library's version, and fails when the header it
 * was compiled with and the library it runs with disagree. */
#include <accessenabler.h>

#include <stdio.h>

int main(void) {
    printf("accessenabler %s\n", ae_version_string());
    if (ae_version_number() != AE_VERSION_NUMBER) {
        fprintf(stderr, "header %d and library %d differ\n", AE_VERSION_NUMBER, (int)ae_version_number());
        return 1;
    }
    return 0;
}
