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
