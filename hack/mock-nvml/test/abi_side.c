/* Compiled twice: once with -include src/nvml_abi.h (ABI_SIDE=abi_mine) and once with
 * -include <reference nvml.h> (ABI_SIDE=abi_ref); abi_check.c compares the two tables. */
#include <stddef.h>
struct abi_entry { const char *type, *field; unsigned long long size, off; };
#define S(t) {#t, "", sizeof(t), 0},
#define F(t, f) {#t, #f, sizeof(((t *)0)->f), offsetof(t, f)},
#define C(name) {#name, "=", (unsigned long long)(name), 0},
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
const struct abi_entry ABI_SIDE[] = {
#include "abi_layout.inc"
};
const unsigned long CAT(ABI_SIDE, _n) = sizeof(ABI_SIDE) / sizeof(ABI_SIDE[0]);
