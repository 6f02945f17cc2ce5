/* migdev.c - MIG device handles (one per compute instance) and their identity queries. */
#include "mock.h"

#define RET(r) return mock_leave(r)

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    MOCK_ENTER();
    mock_gpu *gp;
    int k = mock_resolve_device(device, &gp, NULL, NULL);
    if (!k || !count) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k == MOCK_H_MIGDEV) RET(NVML_ERROR_NOT_SUPPORTED);
    *count = (g_mock.prof->gi && gp->mig_current) ? MOCK_COMPUTE_SLICES : 0;
    RET(NVML_SUCCESS);
}

/* MIG devices are enumerated by (GPU instance id, compute instance id). */
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)
{
    MOCK_ENTER();
    mock_gpu *gp;
    int k = mock_resolve_device(device, &gp, NULL, NULL);
    if (!k || !migDevice || index >= MOCK_COMPUTE_SLICES) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k == MOCK_H_MIGDEV || !g_mock.prof->gi || !gp->mig_current) RET(NVML_ERROR_NOT_SUPPORTED);
    unsigned n = 0;
    for (int j = 0; j < MOCK_MAX_GI; j++)
        for (int c = 0; gp->gi[j].live && c < MOCK_MAX_CI; c++)
            if (gp->gi[j].ci[c].live && n++ == index) {
                *migDevice = &gp->gi[j].ci[c].migdev;
                RET(NVML_SUCCESS);
            }
    RET(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
    MOCK_ENTER();
    int k = mock_resolve_device(device, NULL, NULL, NULL);
    if (!k || !isMigDevice) RET(NVML_ERROR_INVALID_ARGUMENT);
    *isMigDevice = k == MOCK_H_MIGDEV;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    MOCK_ENTER();
    int k = mock_resolve_device(device, NULL, NULL, NULL);
    if (!k || !id) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k != MOCK_H_MIGDEV) RET(NVML_ERROR_NOT_SUPPORTED);
    *id = (unsigned)device->gi;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    MOCK_ENTER();
    int k = mock_resolve_device(device, NULL, NULL, NULL);
    if (!k || !id) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k != MOCK_H_MIGDEV) RET(NVML_ERROR_NOT_SUPPORTED);
    *id = (unsigned)device->ci;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)
{
    MOCK_ENTER();
    mock_gpu *gp;
    int k = mock_resolve_device(migDevice, &gp, NULL, NULL);
    if (k != MOCK_H_MIGDEV || !device) RET(NVML_ERROR_INVALID_ARGUMENT);
    *device = &gp->dev;
    RET(NVML_SUCCESS);
}

/* Engine counts of a MIG device, from its GPU instance profile and its compute instance's size. NVML supports
 * this on MIG device handles only: a whole GPU answers NOT_SUPPORTED. _v2 is the same call (nvml.h maps the
 * unversioned name to it). */
static nvmlReturn_t attributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes)
{
    mock_gi *gi = NULL;
    mock_ci *ci = NULL;
    int k = mock_resolve_device(device, NULL, &gi, &ci);
    if (!k || !attributes) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k != MOCK_H_MIGDEV) RET(NVML_ERROR_NOT_SUPPORTED);
    attributes->multiprocessorCount = mock_ci_sm(gi, ci->size);
    attributes->sharedCopyEngineCount = gi->prof->ce;
    attributes->sharedDecoderCount = gi->prof->dec;
    attributes->sharedEncoderCount = gi->prof->enc;
    attributes->sharedJpegCount = gi->prof->jpeg;
    attributes->sharedOfaCount = gi->prof->ofa;
    attributes->gpuInstanceSliceCount = gi->prof->slices;
    attributes->computeInstanceSliceCount = ci->size;
    attributes->memorySizeMB = gi->prof->mem_mb;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes_)
{
    MOCK_ENTER();
    return attributes(device, attributes_);
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes_)
{
    MOCK_ENTER();
    return attributes(device, attributes_);
}
