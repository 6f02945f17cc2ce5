/* abi_check: compares struct sizes, field offsets and constants of src/nvml_abi.h
 * against a reference nvml.h (make abi-check NVML_REF_HEADER=/path/to/nvml.h). */
#include <stdio.h>
#include <string.h>
struct abi_entry { const char *type, *field; unsigned long long size, off; };
extern const struct abi_entry abi_mine[], abi_ref[];
extern const unsigned long abi_mine_n, abi_ref_n;

int main(void)
{
    int bad = 0;
    for (unsigned long i = 0; i < abi_mine_n && i < abi_ref_n; i++) {
        const struct abi_entry *m = &abi_mine[i], *r = &abi_ref[i];
        if (m->size != r->size || m->off != r->off) {
            fprintf(stderr, "ABI mismatch %s %s: mine size/value %llu off %llu, reference %llu off %llu\n", m->type,
                    m->field, m->size, m->off, r->size, r->off);
            bad++;
        }
    }
    printf("abi_check: %lu items, %d mismatches\n", abi_mine_n, bad);
    return bad || abi_mine_n != abi_ref_n;
}
