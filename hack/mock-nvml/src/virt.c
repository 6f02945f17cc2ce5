/* virt.c - the vGPU licensing calls, answered as a bare-metal driver answers them: no licensable feature, and
 * no vGPU instance to ask about. */
#include "mock.h"

#define RET(r) return mock_leave(r)

/* Only the two leading fields are written: they are the same in every version of the struct, and with no
 * feature there is no array entry to fill (older callers pass a shorter struct). */
static nvmlReturn_t licensable(nvmlDevice_t device, nvmlGridLicensableFeatures_t *features)
{
    if (!mock_resolve_device(device, NULL, NULL, NULL) || !features) RET(NVML_ERROR_INVALID_ARGUMENT);
    features->isGridLicenseSupported = 0;
    features->licensableFeaturesCount = 0;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v2(nvmlDevice_t device, nvmlGridLicensableFeatures_t *f)
{
    MOCK_ENTER();
    return licensable(device, f);
}

nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v3(nvmlDevice_t device, nvmlGridLicensableFeatures_t *f)
{
    MOCK_ENTER();
    return licensable(device, f);
}

nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v4(nvmlDevice_t device, nvmlGridLicensableFeatures_t *f)
{
    MOCK_ENTER();
    return licensable(device, f);
}

/* As nvml.h documents it: INVALID_ARGUMENT for instance 0 or a NULL struct, NOT_FOUND for any other id (no
 * vGPU instance is active on bare metal). */
nvmlReturn_t nvmlVgpuInstanceGetLicenseInfo_v2(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuLicenseInfo_t *licenseInfo)
{
    MOCK_ENTER();
    if (vgpuInstance == 0 || !licenseInfo) RET(NVML_ERROR_INVALID_ARGUMENT);
    RET(NVML_ERROR_NOT_FOUND);
}
