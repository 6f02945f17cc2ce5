/* ci.c - compute instances inside a GPU instance. CI profile id == NVML_COMPUTE_INSTANCE_PROFILE_*
 * index; placements are in compute slices of the parent GPU instance. */
#include <stdio.h>
#include <string.h>
#include "mock.h"

#define RET(r) return mock_leave(r)

static int ci_overlaps(const mock_gi *gi, unsigned start, unsigned size)
{
    for (int k = 0; k < MOCK_MAX_CI; k++) {
        const mock_ci *c = &gi->ci[k];
        if (c->live && start < c->start + c->size && c->start < start + size)
            return 1;
    }
    return 0;
}

static unsigned ci_count(const mock_gi *gi, unsigned profile)
{
    unsigned n = 0;
    for (int k = 0; k < MOCK_MAX_CI; k++)
        n += gi->ci[k].live && gi->ci[k].profile == profile;
    return n;
}

/* 0 = supported; otherwise the NVML error for this (gi, profile). */
static nvmlReturn_t ci_profile_ok(const mock_gi *gi, unsigned profile)
{
    if (profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    unsigned c = mock_ci_slices(profile);
    return (c && c <= gi->prof->slices) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t mock_ci_create(int gpu, int giid, unsigned profile, int *out_id)
{
    mock_gi *gi = &g_mock.gpu[gpu].gi[giid];
    nvmlReturn_t r = ci_profile_ok(gi, profile);
    if (r != NVML_SUCCESS)
        return r;
    unsigned c = mock_ci_slices(profile), s = gi->prof->slices, starts[8];
    if (ci_count(gi, profile) >= s / c)
        return NVML_ERROR_INSUFFICIENT_RESOURCES;
    unsigned n = mock_ci_starts(c, s, starts);
    int chosen = -1, id = -1;
    for (unsigned i = 0; i < n && chosen < 0; i++)
        if (!ci_overlaps(gi, starts[i], c))
            chosen = (int)starts[i];
    for (int k = 0; k < MOCK_MAX_CI && id < 0; k++)
        if (!gi->ci[k].live)
            id = k;
    if (chosen < 0 || id < 0)
        return NVML_ERROR_INSUFFICIENT_RESOURCES;
    mock_ci *ci = &gi->ci[id];
    ci->live = 1;
    ci->profile = profile;
    ci->start = (unsigned)chosen;
    ci->size = c;
    if (out_id)
        *out_id = id;
    return NVML_SUCCESS;
}

static unsigned ci_remaining(const mock_gi *gi, unsigned profile)
{
    unsigned c = mock_ci_slices(profile), s = gi->prof->slices, starts[8], n = 0, mask = 0;
    unsigned have = ci_count(gi, profile), cnt = mock_ci_starts(c, s, starts);
    for (unsigned i = 0; i < cnt && have + n < s / c; i++) {
        unsigned bits = ((1u << c) - 1) << starts[i];
        if (!(mask & bits) && !ci_overlaps(gi, starts[i], c)) {
            mask |= bits;
            n++;
        }
    }
    return n;
}

/* SMs of a compute instance of ci_slices compute slices in gi: the GI's own count when it spans the GI. */
unsigned mock_ci_sm(const mock_gi *gi, unsigned ci_slices)
{
    return ci_slices == gi->prof->slices ? gi->prof->sm : ci_slices * g_mock.prof->sm_per_slice;
}

static void fill_ci(const mock_gi *gi, unsigned profile, unsigned *v)
{
    unsigned c = mock_ci_slices(profile), s = gi->prof->slices;
    v[0] = profile;
    v[1] = c;
    v[2] = s / c;
    v[3] = mock_ci_sm(gi, c);
    v[4] = gi->prof->ce;
    v[5] = gi->prof->dec;
    v[6] = gi->prof->enc;
    v[7] = gi->prof->jpeg;
    v[8] = gi->prof->ofa;
}

#define SET_CI(info, v)                                                                         \
    do {                                                                                        \
        (info)->id = (v)[0]; (info)->sliceCount = (v)[1]; (info)->instanceCount = (v)[2];       \
        (info)->multiprocessorCount = (v)[3]; (info)->sharedCopyEngineCount = (v)[4];           \
        (info)->sharedDecoderCount = (v)[5]; (info)->sharedEncoderCount = (v)[6];               \
        (info)->sharedJpegCount = (v)[7]; (info)->sharedOfaCount = (v)[8];                      \
    } while (0)

static nvmlReturn_t ci_profile_lookup(nvmlGpuInstance_t h, unsigned profile, unsigned eng, mock_gi **out)
{
    mock_gi *gi = mock_resolve_gi(h, NULL);
    if (!gi || eng != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
        return NVML_ERROR_INVALID_ARGUMENT;
    *out = gi;
    return ci_profile_ok(gi, profile);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                          unsigned int engProfile,
                                                          nvmlComputeInstanceProfileInfo_t *info)
{
    MOCK_ENTER();
    mock_gi *gi = NULL;
    nvmlReturn_t r = ci_profile_lookup(gpuInstance, profile, engProfile, &gi);
    if (r != NVML_SUCCESS) RET(r);
    if (!info) RET(NVML_ERROR_INVALID_ARGUMENT);
    unsigned v[9];
    fill_ci(gi, profile, v);
    SET_CI(info, v);
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                           unsigned int engProfile,
                                                           nvmlComputeInstanceProfileInfo_v2_t *info)
{
    MOCK_ENTER();
    mock_gi *gi = NULL;
    nvmlReturn_t r = ci_profile_lookup(gpuInstance, profile, engProfile, &gi);
    if (r != NVML_SUCCESS) RET(r);
    if (!info) RET(NVML_ERROR_INVALID_ARGUMENT);
    unsigned ver = info->version;
    if (ver != nvmlComputeInstanceProfileInfo_v2 && ver != nvmlComputeInstanceProfileInfo_v3)
        RET(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    unsigned v[9], c = mock_ci_slices(profile);
    fill_ci(gi, profile, v);
    memset(info, 0, ver == nvmlComputeInstanceProfileInfo_v3 ? sizeof(nvmlComputeInstanceProfileInfo_v3_t)
                                                             : sizeof(nvmlComputeInstanceProfileInfo_v2_t));
    info->version = ver;
    SET_CI(info, v);
    if (c == gi->prof->slices)
        snprintf(info->name, sizeof(info->name), "MIG %s", gi->prof->name);
    else
        snprintf(info->name, sizeof(info->name), "MIG %uc.%s", c, gi->prof->name);
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceRemainingCapacity(nvmlGpuInstance_t gpuInstance,
                                                                unsigned int profileId, unsigned int *count)
{
    MOCK_ENTER();
    mock_gi *gi = mock_resolve_gi(gpuInstance, NULL);
    if (!gi || !count) RET(NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = ci_profile_ok(gi, profileId);
    if (r != NVML_SUCCESS) RET(r);
    *count = ci_remaining(gi, profileId);
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                  nvmlComputeInstance_t *computeInstance)
{
    MOCK_ENTER();
    if (!computeInstance) RET(NVML_ERROR_INVALID_ARGUMENT);
    mock_state_begin();
    int gpu, id;
    mock_gi *gi = mock_resolve_gi(gpuInstance, &gpu);
    if (!gi) {
        mock_state_end(0);
        RET(NVML_ERROR_INVALID_ARGUMENT);
    }
    nvmlReturn_t r = mock_ci_create(gpu, gpuInstance->id, profileId, &id);
    mock_state_end(r == NVML_SUCCESS);
    if (r == NVML_SUCCESS)
        *computeInstance = &gi->ci[id].h;
    RET(r);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                nvmlComputeInstance_t *computeInstances, unsigned int *count)
{
    MOCK_ENTER();
    mock_gi *gi = mock_resolve_gi(gpuInstance, NULL);
    if (!gi || !computeInstances || !count) RET(NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = ci_profile_ok(gi, profileId);
    if (r != NVML_SUCCESS) RET(r);
    unsigned n = 0;
    for (int k = 0; k < MOCK_MAX_CI; k++)
        if (gi->ci[k].live && gi->ci[k].profile == profileId)
            computeInstances[n++] = &gi->ci[k].h;
    *count = n;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id,
                                                   nvmlComputeInstance_t *computeInstance)
{
    MOCK_ENTER();
    mock_gi *gi = mock_resolve_gi(gpuInstance, NULL);
    if (!gi || !computeInstance || id >= MOCK_MAX_CI) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (!gi->ci[id].live) RET(NVML_ERROR_NOT_FOUND);
    *computeInstance = &gi->ci[id].h;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info)
{
    MOCK_ENTER();
    int gpu;
    mock_gi *gi;
    mock_ci *ci = mock_resolve_ci(computeInstance, &gpu, &gi);
    if (!ci || !info) RET(NVML_ERROR_INVALID_ARGUMENT);
    info->device = &g_mock.gpu[gpu].dev;
    info->gpuInstance = &gi->h;
    info->id = (unsigned)computeInstance->id;
    info->profileId = ci->profile;
    info->placement.start = ci->start;
    info->placement.size = ci->size;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t computeInstance)
{
    MOCK_ENTER();
    mock_state_begin();
    mock_ci *ci = mock_resolve_ci(computeInstance, NULL, NULL);
    if (!ci) {
        mock_state_end(0);
        RET(NVML_ERROR_INVALID_ARGUMENT);
    }
    ci->live = 0;
    mock_state_end(1);
    RET(NVML_SUCCESS);
}
