/* profiles.c - GPU models and their MIG geometry (data tables only).
 *
 * Sources: NVIDIA MIG User Guide ("Supported MIG Profiles", "nvidia-smi mig
 * -lgip/-lgipp" examples) and published nvidia-smi output; see README.md.
 * Placement starts/sizes are in memory slices (8 per GPU). */
#include <string.h>
#include "mock.h"

#define P1  NVML_GPU_INSTANCE_PROFILE_1_SLICE
#define P2  NVML_GPU_INSTANCE_PROFILE_2_SLICE
#define P3  NVML_GPU_INSTANCE_PROFILE_3_SLICE
#define P4  NVML_GPU_INSTANCE_PROFILE_4_SLICE
#define P7  NVML_GPU_INSTANCE_PROFILE_7_SLICE
#define P1ME NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1
#define P1X2 NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2

#define S1 1, 7, {0, 1, 2, 3, 4, 5, 6}
#define S1X2 2, 4, {0, 2, 4, 6}
#define S2 2, 3, {0, 2, 4}
#define S3 4, 2, {0, 4}
#define S4 4, 1, {0}
#define S7 8, 1, {0}

/* index, id, name, slices, instances, SM, CE, DEC, ENC, JPEG, OFA, memMB, placement */
static const mock_gi_profile a100_40[] = {
    {P1,   19, "1g.5gb",    1, 7, 14, 1, 0, 0, 0, 0, 4864,  S1},
    {P2,   14, "2g.10gb",   2, 3, 28, 2, 1, 0, 0, 0, 9856,  S2},
    {P3,    9, "3g.20gb",   3, 2, 42, 3, 2, 0, 0, 0, 19968, S3},
    {P4,    5, "4g.20gb",   4, 1, 56, 4, 2, 0, 0, 0, 19968, S4},
    {P7,    0, "7g.40gb",   7, 1, 98, 7, 5, 0, 1, 1, 40192, S7},
    {P1ME, 20, "1g.5gb+me", 1, 1, 14, 1, 1, 0, 1, 1, 4864,  S1},
    {P1X2, 15, "1g.10gb",   1, 4, 14, 1, 1, 0, 0, 0, 9856,  S1X2},
};

static const mock_gi_profile h100_80[] = {
    {P1,   19, "1g.10gb",    1, 7, 16,  1, 1, 0, 1, 0, 9984,  S1},
    {P2,   14, "2g.20gb",    2, 3, 32,  2, 2, 0, 2, 0, 20096, S2},
    {P3,    9, "3g.40gb",    3, 2, 60,  3, 3, 0, 3, 0, 40448, S3},
    {P4,    5, "4g.40gb",    4, 1, 64,  4, 4, 0, 4, 0, 40448, S4},
    {P7,    0, "7g.80gb",    7, 1, 132, 8, 7, 0, 7, 1, 81152, S7},
    {P1ME, 20, "1g.10gb+me", 1, 1, 16,  1, 1, 0, 1, 1, 9984,  S1},
    {P1X2, 15, "1g.20gb",    1, 4, 26,  1, 1, 0, 1, 0, 20096, S1X2},
};

/* H200: H100 geometry; memory scaled to the 141 GB part (approximation). */
static const mock_gi_profile h200_141[] = {
    {P1,   19, "1g.18gb",    1, 7, 16,  1, 1, 0, 1, 0, 17664,  S1},
    {P2,   14, "2g.35gb",    2, 3, 32,  2, 2, 0, 2, 0, 35328,  S2},
    {P3,    9, "3g.71gb",    3, 2, 60,  3, 3, 0, 3, 0, 71168,  S3},
    {P4,    5, "4g.71gb",    4, 1, 64,  4, 4, 0, 4, 0, 71168,  S4},
    {P7,    0, "7g.141gb",   7, 1, 132, 8, 7, 0, 7, 1, 142848, S7},
    {P1ME, 20, "1g.18gb+me", 1, 1, 16,  1, 1, 0, 1, 1, 17664,  S1},
    {P1X2, 15, "1g.35gb",    1, 4, 26,  1, 1, 0, 1, 0, 35328,  S1X2},
};

/* PCI bus numbers of 8-GPU HGX/DGX boards (DGX A100 / DGX H100 style). */
static const unsigned char bus_hgx_a100[8] = {0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD};
static const unsigned char bus_hgx_h100[8] = {0x18, 0x2A, 0x3A, 0x5D, 0x9A, 0xAB, 0xBA, 0xDB};
static const unsigned char bus_pcie[8] = {0x01, 0x21, 0x41, 0x61, 0x81, 0xA1, 0xC1, 0xE1};

#define N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))

static const mock_gpu_profile profiles[] = {
    {"A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", NVML_DEVICE_ARCH_AMPERE, NVML_BRAND_NVIDIA, 8, 0,
     40960, 0x20B010DE, 0x134F10DE, bus_hgx_a100, 14, a100_40, N(a100_40)},
    {"H100-SXM5-80GB", "NVIDIA H100 80GB HBM3", NVML_DEVICE_ARCH_HOPPER, NVML_BRAND_NVIDIA, 9, 0,
     81559, 0x233010DE, 0x16C110DE, bus_hgx_h100, 16, h100_80, N(h100_80)},
    {"H200-SXM5-141GB", "NVIDIA H200", NVML_DEVICE_ARCH_HOPPER, NVML_BRAND_NVIDIA, 9, 0,
     143771, 0x233510DE, 0x18BE10DE, bus_hgx_h100, 16, h200_141, N(h200_141)},
    {"L40S", "NVIDIA L40S", NVML_DEVICE_ARCH_ADA, NVML_BRAND_NVIDIA, 8, 9,
     46068, 0x26B910DE, 0x185110DE, bus_pcie, 0, NULL, 0},
};

const mock_gpu_profile *mock_find_profile(const char *key)
{
    for (unsigned i = 0; i < N(profiles); i++)
        if (strcmp(profiles[i].key, key) == 0)
            return &profiles[i];
    return NULL;
}

const mock_gi_profile *mock_gi_by_index(const mock_gpu_profile *p, unsigned index)
{
    for (unsigned i = 0; p && i < p->ngi; i++)
        if (p->gi[i].index == index)
            return &p->gi[i];
    return NULL;
}

const mock_gi_profile *mock_gi_by_id(const mock_gpu_profile *p, unsigned id)
{
    for (unsigned i = 0; p && i < p->ngi; i++)
        if (p->gi[i].id == id)
            return &p->gi[i];
    return NULL;
}

/* Compute instance profiles: id == NVML_COMPUTE_INSTANCE_PROFILE_* index. */
unsigned mock_ci_slices(unsigned ci_profile)
{
    static const unsigned slices[] = {1, 2, 3, 4, 7};
    return ci_profile < N(slices) ? slices[ci_profile] : 0;
}

/* Placements of a CI inside a GI, in compute slices (same shape as GI placements). */
unsigned mock_ci_starts(unsigned c, unsigned s, unsigned *out)
{
    unsigned n = 0;
    if (c == 0 || c > s)
        return 0;
    if (c == s) {
        out[n++] = 0;
        return n;
    }
    if (c == 1 || c == 2) {
        for (unsigned st = 0; st + c <= s; st += c)
            out[n++] = st;
    } else if (c == 3) {
        if (s >= 3) out[n++] = 0;
        if (s >= 7) out[n++] = 4;
    } else if (c == 4) {
        out[n++] = 0;
    }
    return n;
}

/* GPU instance ids follow the driver's heap numbering of memory-slice ranges:
 * 8 slices -> 0, 4 -> 1..2, 2 -> 3..6, 1 -> 7..14. */
unsigned mock_gi_id_for(unsigned start, unsigned psize)
{
    return (MOCK_MEM_SLICES / psize - 1) + start / psize;
}
