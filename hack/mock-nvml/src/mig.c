/* mig.c - MIG mode and GPU instances: placement rules, creation/destruction, initial layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mock.h"

#define RET(r) return mock_leave(r)

void mock_fill_mig_uuids(int gpu)
{
    mock_gpu *gp = &g_mock.gpu[gpu];
    for (int j = 0; j < MOCK_MAX_GI; j++)
        for (int k = 0; k < MOCK_MAX_CI; k++) {
            char what[64];
            snprintf(what, sizeof(what), "gpu%d/gi%d/ci%d", gpu, j, k);
            mock_uuid(gp->gi[j].ci[k].uuid, sizeof(gp->gi[j].ci[k].uuid), "MIG", g_mock.cfg.seed, what);
        }
}

static int overlaps(const mock_gpu *gp, unsigned start, unsigned size)
{
    for (int j = 0; j < MOCK_MAX_GI; j++) {
        const mock_gi *gi = &gp->gi[j];
        if (gi->live && start < gi->start + gi->size && gi->start < start + size)
            return 1;
    }
    return 0;
}

static unsigned used_compute(const mock_gpu *gp)
{
    unsigned n = 0;
    for (int j = 0; j < MOCK_MAX_GI; j++)
        if (gp->gi[j].live)
            n += gp->gi[j].prof->slices;
    return n;
}

static unsigned count_profile(const mock_gpu *gp, const mock_gi_profile *p)
{
    unsigned n = 0;
    for (int j = 0; j < MOCK_MAX_GI; j++)
        if (gp->gi[j].live && gp->gi[j].prof == p)
            n++;
    return n;
}

static int fits(const mock_gpu *gp, const mock_gi_profile *p, unsigned start)
{
    return !overlaps(gp, start, p->psize) && used_compute(gp) + p->slices <= MOCK_COMPUTE_SLICES;
}

/* start < 0: pick a placement (the driver fills from the highest free placement down). */
nvmlReturn_t mock_gi_create(int gpu, const mock_gi_profile *p, int start, int *out_id)
{
    mock_gpu *gp = &g_mock.gpu[gpu];
    int chosen = -1;
    if (start >= 0) {
        int valid = 0;
        for (unsigned i = 0; i < p->nstarts; i++)
            valid |= p->starts[i] == (unsigned)start;
        if (!valid)
            return NVML_ERROR_INVALID_ARGUMENT;
        if (count_profile(gp, p) >= p->instances || !fits(gp, p, (unsigned)start))
            return NVML_ERROR_INSUFFICIENT_RESOURCES;
        chosen = start;
    } else {
        if (count_profile(gp, p) >= p->instances)
            return NVML_ERROR_INSUFFICIENT_RESOURCES;
        for (int i = (int)p->nstarts - 1; i >= 0 && chosen < 0; i--)
            if (fits(gp, p, p->starts[i]))
                chosen = (int)p->starts[i];
        if (chosen < 0)
            return NVML_ERROR_INSUFFICIENT_RESOURCES;
    }
    unsigned id = mock_gi_id_for((unsigned)chosen, p->psize);
    mock_gi *gi = &gp->gi[id];
    gi->live = 1;
    gi->prof = p;
    gi->start = (unsigned)chosen;
    gi->size = p->psize;
    for (int k = 0; k < MOCK_MAX_CI; k++)
        gi->ci[k].live = 0;
    if (out_id)
        *out_id = (int)id;
    return NVML_SUCCESS;
}

static unsigned remaining_gi(const mock_gpu *gp, const mock_gi_profile *p)
{
    /* Greedy over the (aligned) placements gives the maximum for this geometry. */
    unsigned have = count_profile(gp, p), n = 0, mask = 0, compute = used_compute(gp);
    for (unsigned i = 0; i < p->nstarts; i++) {
        unsigned s = p->starts[i], bits = ((1u << p->psize) - 1) << s;
        if (have + n >= p->instances || compute + p->slices > MOCK_COMPUTE_SLICES)
            break;
        if (!(mask & bits) && !overlaps(gp, s, p->psize)) {
            mask |= bits;
            compute += p->slices;
            n++;
        }
    }
    return n;
}

/* "0:19@0,19@1;1:9" -> GIs (profile id @ placement start) each with one full-size CI. */
int mock_apply_layout(const char *layout)
{
    char buf[1024];
    snprintf(buf, sizeof(buf), "%s", layout);
    for (char *s1 = NULL, *seg = strtok_r(buf, ";", &s1); seg; seg = strtok_r(NULL, ";", &s1)) {
        char *colon = strchr(seg, ':');
        if (!colon)
            goto bad;
        *colon = 0;
        unsigned gpu = (unsigned)atoi(seg);
        if (gpu >= g_mock.cfg.gpus || !g_mock.prof->gi)
            goto bad;
        g_mock.gpu[gpu].mig_current = g_mock.gpu[gpu].mig_pending = 1;
        for (char *s2 = NULL, *it = strtok_r(colon + 1, ",", &s2); it; it = strtok_r(NULL, ",", &s2)) {
            char *at = strchr(it, '@');
            const mock_gi_profile *p = mock_gi_by_id(g_mock.prof, (unsigned)atoi(it));
            int id, ciid;
            if (!p || mock_gi_create((int)gpu, p, at ? atoi(at + 1) : -1, &id) != NVML_SUCCESS)
                goto bad;
            unsigned cip = 0;
            while (mock_ci_slices(cip) && mock_ci_slices(cip) != p->slices)
                cip++;
            if (mock_ci_create((int)gpu, id, cip, &ciid) != NVML_SUCCESS)
                goto bad;
        }
    }
    return 0;
bad:
    fprintf(stderr, "mock-nvml: invalid mig_layout '%s'\n", layout);
    return -1;
}

/* ---- API ---- */

#define MIG_GPU(dev, gp, idx)                                                      \
    mock_gpu *gp = NULL;                                                           \
    int idx = 0;                                                                   \
    do {                                                                           \
        int k_ = mock_resolve_device(dev, &gp, NULL, NULL);                        \
        if (!k_) RET(NVML_ERROR_INVALID_ARGUMENT);                                 \
        if (k_ == MOCK_H_MIGDEV || !g_mock.prof->gi) RET(NVML_ERROR_NOT_SUPPORTED); \
        idx = (int)(gp - g_mock.gpu);                                              \
    } while (0)

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
    MOCK_ENTER();
    MIG_GPU(device, gp, idx);
    (void)idx;
    if (!currentMode || !pendingMode) RET(NVML_ERROR_INVALID_ARGUMENT);
    *currentMode = gp->mig_current;
    *pendingMode = gp->mig_pending;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode, nvmlReturn_t *activationStatus)
{
    MOCK_ENTER();
    MIG_GPU(device, gp, idx);
    (void)idx;
    if (!activationStatus || mode > NVML_DEVICE_MIG_ENABLE) RET(NVML_ERROR_INVALID_ARGUMENT);
    mock_state_begin();
    if (mode == NVML_DEVICE_MIG_DISABLE) {
        for (int j = 0; j < MOCK_MAX_GI; j++)
            if (gp->gi[j].live) {
                mock_state_end(0);
                RET(NVML_ERROR_IN_USE);
            }
    }
    gp->mig_pending = mode;
    if (g_mock.prof->arch >= NVML_DEVICE_ARCH_HOPPER || gp->mig_current == mode) {
        gp->mig_current = mode;       /* Hopper+: activated without a GPU reset */
        *activationStatus = NVML_SUCCESS;
    } else {
        *activationStatus = NVML_ERROR_RESET_REQUIRED;   /* Ampere: pending until GPU reset */
    }
    mock_state_end(1);
    RET(NVML_SUCCESS);
}

static void fill_gi_profile(const mock_gi_profile *p, unsigned *id, unsigned *slices, unsigned *inst, unsigned *sm,
                            unsigned *ce, unsigned *dec, unsigned *enc, unsigned *jpeg, unsigned *ofa,
                            unsigned long long *mem)
{
    *id = p->id; *slices = p->slices; *inst = p->instances; *sm = p->sm; *ce = p->ce;
    *dec = p->dec; *enc = p->enc; *jpeg = p->jpeg; *ofa = p->ofa; *mem = p->mem_mb;
}

static nvmlReturn_t gi_profile_lookup(nvmlDevice_t device, unsigned profile, const mock_gi_profile **out)
{
    mock_gpu *gp;
    int k = mock_resolve_device(device, &gp, NULL, NULL);
    if (!k || profile >= NVML_GPU_INSTANCE_PROFILE_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (k == MOCK_H_MIGDEV || !g_mock.prof->gi || !(*out = mock_gi_by_index(g_mock.prof, profile)))
        return NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                 nvmlGpuInstanceProfileInfo_t *info)
{
    MOCK_ENTER();
    const mock_gi_profile *p = NULL;
    nvmlReturn_t r = gi_profile_lookup(device, profile, &p);
    if (r != NVML_SUCCESS) RET(r);
    if (!info) RET(NVML_ERROR_INVALID_ARGUMENT);
    memset(info, 0, sizeof(*info));
    fill_gi_profile(p, &info->id, &info->sliceCount, &info->instanceCount, &info->multiprocessorCount,
                    &info->copyEngineCount, &info->decoderCount, &info->encoderCount, &info->jpegCount,
                    &info->ofaCount, &info->memorySizeMB);
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                  nvmlGpuInstanceProfileInfo_v2_t *info)
{
    MOCK_ENTER();
    const mock_gi_profile *p = NULL;
    nvmlReturn_t r = gi_profile_lookup(device, profile, &p);
    if (r != NVML_SUCCESS) RET(r);
    if (!info) RET(NVML_ERROR_INVALID_ARGUMENT);
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    snprintf(name, sizeof(name), "MIG %s", p->name);
    if (info->version == nvmlGpuInstanceProfileInfo_v2) {
        memset(info, 0, sizeof(*info));
        info->version = nvmlGpuInstanceProfileInfo_v2;
        fill_gi_profile(p, &info->id, &info->sliceCount, &info->instanceCount, &info->multiprocessorCount,
                        &info->copyEngineCount, &info->decoderCount, &info->encoderCount, &info->jpegCount,
                        &info->ofaCount, &info->memorySizeMB);
        memcpy(info->name, name, sizeof(name));
    } else if (info->version == nvmlGpuInstanceProfileInfo_v3) {
        nvmlGpuInstanceProfileInfo_v3_t *v3 = (nvmlGpuInstanceProfileInfo_v3_t *)info;
        memset(v3, 0, sizeof(*v3));
        v3->version = nvmlGpuInstanceProfileInfo_v3;
        fill_gi_profile(p, &v3->id, &v3->sliceCount, &v3->instanceCount, &v3->multiprocessorCount,
                        &v3->copyEngineCount, &v3->decoderCount, &v3->encoderCount, &v3->jpegCount, &v3->ofaCount,
                        &v3->memorySizeMB);
        memcpy(v3->name, name, sizeof(name));
        v3->capabilities = 0;
    } else {
        RET(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    }
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device, unsigned int profileId,
                                                           nvmlGpuInstancePlacement_t *placements,
                                                           unsigned int *count)
{
    MOCK_ENTER();
    MIG_GPU(device, gp, idx);
    (void)gp; (void)idx;
    if (!count) RET(NVML_ERROR_INVALID_ARGUMENT);
    const mock_gi_profile *p = mock_gi_by_id(g_mock.prof, profileId);
    if (!p) RET(NVML_ERROR_NOT_SUPPORTED);
    if (placements)
        for (unsigned i = 0; i < p->nstarts; i++) {
            placements[i].start = p->starts[i];
            placements[i].size = p->psize;
        }
    *count = p->nstarts;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId,
                                                       unsigned int *count)
{
    MOCK_ENTER();
    MIG_GPU(device, gp, idx);
    (void)idx;
    if (!count) RET(NVML_ERROR_INVALID_ARGUMENT);
    const mock_gi_profile *p = mock_gi_by_id(g_mock.prof, profileId);
    if (!p) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (!gp->mig_current) RET(NVML_ERROR_NOT_SUPPORTED);
    *count = remaining_gi(gp, p);
    RET(NVML_SUCCESS);
}

static nvmlReturn_t create_gi(nvmlDevice_t device, unsigned profileId, const nvmlGpuInstancePlacement_t *pl,
                              int with_placement, nvmlGpuInstance_t *out)
{
    mock_gpu *gp;
    int k = mock_resolve_device(device, &gp, NULL, NULL);
    if (!k || !out || (with_placement && !pl))
        return NVML_ERROR_INVALID_ARGUMENT;
    if (k == MOCK_H_MIGDEV || !g_mock.prof->gi)
        return NVML_ERROR_NOT_SUPPORTED;
    const mock_gi_profile *p = mock_gi_by_id(g_mock.prof, profileId);
    if (!p)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (with_placement && pl->size != p->psize)
        return NVML_ERROR_INVALID_ARGUMENT;
    mock_state_begin();
    if (!gp->mig_current) {
        mock_state_end(0);
        return NVML_ERROR_NOT_SUPPORTED;
    }
    int gpu = (int)(gp - g_mock.gpu), id;
    nvmlReturn_t r = mock_gi_create(gpu, p, with_placement ? (int)pl->start : -1, &id);
    mock_state_end(r == NVML_SUCCESS);
    if (r == NVML_SUCCESS)
        *out = &gp->gi[id].h;
    return r;
}

nvmlReturn_t nvmlDeviceCreateGpuInstance(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstance)
{
    MOCK_ENTER();
    RET(create_gi(device, profileId, NULL, 0, gpuInstance));
}

nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t device, unsigned int profileId,
                                                      const nvmlGpuInstancePlacement_t *placement,
                                                      nvmlGpuInstance_t *gpuInstance)
{
    MOCK_ENTER();
    RET(create_gi(device, profileId, placement, 1, gpuInstance));
}

nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstances,
                                       unsigned int *count)
{
    MOCK_ENTER();
    MIG_GPU(device, gp, idx);
    (void)idx;
    const mock_gi_profile *p = mock_gi_by_id(g_mock.prof, profileId);
    if (!p || !count || !gpuInstances) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (!gp->mig_current) RET(NVML_ERROR_NOT_SUPPORTED);
    unsigned n = 0;
    for (int j = 0; j < MOCK_MAX_GI; j++)
        if (gp->gi[j].live && gp->gi[j].prof == p)
            gpuInstances[n++] = &gp->gi[j].h;
    *count = n;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance)
{
    MOCK_ENTER();
    MIG_GPU(device, gp, idx);
    (void)idx;
    if (!gpuInstance || id >= MOCK_MAX_GI) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (!gp->mig_current) RET(NVML_ERROR_NOT_SUPPORTED);
    if (!gp->gi[id].live) RET(NVML_ERROR_NOT_FOUND);
    *gpuInstance = &gp->gi[id].h;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info)
{
    MOCK_ENTER();
    int gpu;
    mock_gi *gi = mock_resolve_gi(gpuInstance, &gpu);
    if (!gi || !info) RET(NVML_ERROR_INVALID_ARGUMENT);
    info->device = &g_mock.gpu[gpu].dev;
    info->id = (unsigned)gpuInstance->id;
    info->profileId = gi->prof->id;
    info->placement.start = gi->start;
    info->placement.size = gi->size;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gpuInstance)
{
    MOCK_ENTER();
    mock_state_begin();
    mock_gi *gi = mock_resolve_gi(gpuInstance, NULL);
    if (!gi) {
        mock_state_end(0);
        RET(NVML_ERROR_INVALID_ARGUMENT);
    }
    for (int k = 0; k < MOCK_MAX_CI; k++)
        if (gi->ci[k].live) {
            mock_state_end(0);
            RET(NVML_ERROR_IN_USE);
        }
    gi->live = 0;
    mock_state_end(1);
    RET(NVML_SUCCESS);
}
