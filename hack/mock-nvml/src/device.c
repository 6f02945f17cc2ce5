/* device.c - handle resolution and per-GPU queries (identity, PCI, memory, compute mode). */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "mock.h"

static int in_global(const void *p, size_t sz)
{
    const char *c = p, *lo = (const char *)&g_mock, *hi = (const char *)(&g_mock + 1);
    return p && c >= lo && c + sz <= hi && ((size_t)(c - lo) % sizeof(unsigned)) == 0;
}

/* Returns MOCK_H_GPU, MOCK_H_MIGDEV, or 0 for an invalid/stale handle. */
int mock_resolve_device(nvmlDevice_t d, mock_gpu **gpu, mock_gi **gi, mock_ci **ci)
{
    if (!in_global(d, sizeof(*d)) || d->magic != MOCK_MAGIC || d->gpu < 0 || (unsigned)d->gpu >= g_mock.cfg.gpus)
        return 0;
    mock_gpu *gp = &g_mock.gpu[d->gpu];
    if (d->kind == MOCK_H_GPU && d == &gp->dev) {
        if (gpu) *gpu = gp;
        return MOCK_H_GPU;
    }
    if (d->kind != MOCK_H_MIGDEV || d->gi < 0 || d->gi >= MOCK_MAX_GI || d->ci < 0 || d->ci >= MOCK_MAX_CI)
        return 0;
    mock_gi *g = &gp->gi[d->gi];
    mock_ci *c = &g->ci[d->ci];
    if (d != &c->migdev || !gp->mig_current || !g->live || !c->live)
        return 0;
    if (gpu) *gpu = gp;
    if (gi) *gi = g;
    if (ci) *ci = c;
    return MOCK_H_MIGDEV;
}

mock_gi *mock_resolve_gi(nvmlGpuInstance_t h, int *gpu)
{
    if (!in_global(h, sizeof(*h)) || h->magic != MOCK_MAGIC || h->kind != MOCK_H_GI || h->gpu < 0 ||
        (unsigned)h->gpu >= g_mock.cfg.gpus || h->id < 0 || h->id >= MOCK_MAX_GI)
        return NULL;
    mock_gi *g = &g_mock.gpu[h->gpu].gi[h->id];
    if (h != &g->h || !g->live || !g_mock.gpu[h->gpu].mig_current)
        return NULL;
    if (gpu) *gpu = h->gpu;
    return g;
}

mock_ci *mock_resolve_ci(nvmlComputeInstance_t h, int *gpu, mock_gi **gi)
{
    if (!in_global(h, sizeof(*h)) || h->magic != MOCK_MAGIC || h->kind != MOCK_H_CI || h->gpu < 0 ||
        (unsigned)h->gpu >= g_mock.cfg.gpus || h->gi < 0 || h->gi >= MOCK_MAX_GI || h->id < 0 || h->id >= MOCK_MAX_CI)
        return NULL;
    mock_gi *g = &g_mock.gpu[h->gpu].gi[h->gi];
    mock_ci *c = &g->ci[h->id];
    if (h != &c->h || !g->live || !c->live || !g_mock.gpu[h->gpu].mig_current)
        return NULL;
    if (gpu) *gpu = h->gpu;
    if (gi) *gi = g;
    return c;
}

#define RET(r) return mock_leave(r)
#define PHYS_ONLY(dev, gp)                                                  \
    mock_gpu *gp = NULL;                                                    \
    do {                                                                    \
        int k_ = mock_resolve_device(dev, &gp, NULL, NULL);                 \
        if (!k_) RET(NVML_ERROR_INVALID_ARGUMENT);                          \
        if (k_ == MOCK_H_MIGDEV) RET(NVML_ERROR_NOT_SUPPORTED);             \
    } while (0)

static unsigned gpu_index(const mock_gpu *gp) { return (unsigned)(gp - g_mock.gpu); }

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    MOCK_ENTER();
    if (!deviceCount) RET(NVML_ERROR_INVALID_ARGUMENT);
    *deviceCount = g_mock.cfg.gpus;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) { return nvmlDeviceGetCount_v2(deviceCount); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    MOCK_ENTER();
    if (!device || index >= g_mock.cfg.gpus) RET(NVML_ERROR_INVALID_ARGUMENT);
    *device = &g_mock.gpu[index].dev;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    MOCK_ENTER();
    if (!uuid || !device) RET(NVML_ERROR_INVALID_ARGUMENT);
    for (unsigned i = 0; i < g_mock.cfg.gpus; i++) {
        mock_gpu *gp = &g_mock.gpu[i];
        if (!strcasecmp(gp->uuid, uuid)) {
            *device = &gp->dev;
            RET(NVML_SUCCESS);
        }
        for (int j = 0; gp->mig_current && j < MOCK_MAX_GI; j++)
            for (int k = 0; gp->gi[j].live && k < MOCK_MAX_CI; k++)
                if (gp->gi[j].ci[k].live && !strcasecmp(gp->gi[j].ci[k].uuid, uuid)) {
                    *device = &gp->gi[j].ci[k].migdev;
                    RET(NVML_SUCCESS);
                }
    }
    RET(NVML_ERROR_NOT_FOUND);
}

static void pci_of(unsigned i, unsigned *domain, unsigned *bus)
{
    *domain = i / 8;
    *bus = g_mock.prof->bus[i % 8];
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
    MOCK_ENTER();
    unsigned d = 0, b = 0, dev = 0, fn = 0;
    if (!pciBusId || !device) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (sscanf(pciBusId, "%x:%x:%x.%x", &d, &b, &dev, &fn) != 4) {
        d = 0;
        if (sscanf(pciBusId, "%x:%x.%x", &b, &dev, &fn) != 3) RET(NVML_ERROR_INVALID_ARGUMENT);
    }
    for (unsigned i = 0; i < g_mock.cfg.gpus; i++) {
        unsigned dom, bus;
        pci_of(i, &dom, &bus);
        if (dom == d && bus == b && dev == 0 && fn == 0) {
            *device = &g_mock.gpu[i].dev;
            RET(NVML_SUCCESS);
        }
    }
    RET(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    MOCK_ENTER();
    mock_gpu *gp;
    mock_ci *ci = NULL;
    int k = mock_resolve_device(device, &gp, NULL, &ci);
    if (!k || !uuid) RET(NVML_ERROR_INVALID_ARGUMENT);
    RET(mock_copy_str(uuid, length, k == MOCK_H_MIGDEV ? ci->uuid : gp->uuid));
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    MOCK_ENTER();
    mock_gi *gi = NULL;
    mock_ci *ci = NULL;
    int k = mock_resolve_device(device, NULL, &gi, &ci);
    if (!k || !name) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k == MOCK_H_GPU) RET(mock_copy_str(name, length, g_mock.prof->name));
    char buf[160];
    if (ci->size == gi->prof->slices)
        snprintf(buf, sizeof(buf), "%s MIG %s", g_mock.prof->name, gi->prof->name);
    else
        snprintf(buf, sizeof(buf), "%s MIG %uc.%s", g_mock.prof->name, ci->size, gi->prof->name);
    RET(mock_copy_str(name, length, buf));
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
    MOCK_ENTER();
    if (!mock_resolve_device(device, NULL, NULL, NULL) || !type) RET(NVML_ERROR_INVALID_ARGUMENT);
    *type = (nvmlBrandType_t)g_mock.prof->brand;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
    MOCK_ENTER();
    if (!mock_resolve_device(device, NULL, NULL, NULL) || !arch) RET(NVML_ERROR_INVALID_ARGUMENT);
    *arch = g_mock.prof->arch;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
    MOCK_ENTER();
    if (!mock_resolve_device(device, NULL, NULL, NULL) || !major || !minor) RET(NVML_ERROR_INVALID_ARGUMENT);
    *major = g_mock.prof->cc_major;
    *minor = g_mock.prof->cc_minor;
    RET(NVML_SUCCESS);
}

/* total/reserved/used bytes: whole GPU, or the GPU instance's memory for a MIG device; used is what
 * telemetry_file says (memory_used_bytes, else its processes' memory), at most what is free. */
static int mem_of(nvmlDevice_t device, unsigned long long *total, unsigned long long *reserved,
                  unsigned long long *used)
{
    mock_gpu *gp;
    mock_gi *gi = NULL;
    int k = mock_resolve_device(device, &gp, &gi, NULL);
    if (!k)
        return 0;
    unsigned long long mib = k == MOCK_H_GPU ? g_mock.prof->mem_mib : gi->prof->mem_mb;
    *total = mib << 20;
    *reserved = (mib / 128) << 20;
    int mig = k == MOCK_H_MIGDEV;
    *used = mock_telemetry_used(gpu_index(gp), mig ? device->gi : -1, mig ? device->ci : -1);
    if (*used > *total - *reserved)
        *used = *total - *reserved;
    return 1;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    MOCK_ENTER();
    unsigned long long total, reserved, used;
    if (!mem_of(device, &total, &reserved, &used) || !memory) RET(NVML_ERROR_INVALID_ARGUMENT);
    memory->total = total;
    memory->used = reserved + used;
    memory->free = total - reserved - used;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    MOCK_ENTER();
    unsigned long long total, reserved, used;
    if (!mem_of(device, &total, &reserved, &used) || !memory) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (memory->version != nvmlMemory_v2) RET(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    memory->total = total;
    memory->reserved = reserved;
    memory->used = used;
    memory->free = total - reserved - used;
    RET(NVML_SUCCESS);
}

/* _v2 and _v3 fill the same struct the same way on this driver: domain, bus, ids and both bus id forms. */
static nvmlReturn_t pci_info(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    mock_gpu *gp;
    if (!mock_resolve_device(device, &gp, NULL, NULL) || !pci) RET(NVML_ERROR_INVALID_ARGUMENT);
    unsigned dom, bus;
    pci_of(gpu_index(gp), &dom, &bus);
    memset(pci, 0, sizeof(*pci));
    pci->domain = dom;
    pci->bus = bus;
    pci->device = 0;
    pci->pciDeviceId = g_mock.prof->pci_device_id;
    pci->pciSubSystemId = g_mock.prof->pci_subsys_id;
    snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.0", dom & 0xffffu, bus & 0xffu, 0u);
    snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.0", dom, bus & 0xffu, 0u);
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    MOCK_ENTER();
    return pci_info(device, pci);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    MOCK_ENTER();
    return pci_info(device, pci);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    MOCK_ENTER();
    PHYS_ONLY(device, gp);
    if (!minorNumber) RET(NVML_ERROR_INVALID_ARGUMENT);
    *minorNumber = gpu_index(gp);
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
    MOCK_ENTER();
    PHYS_ONLY(device, gp);
    if (!index) RET(NVML_ERROR_INVALID_ARGUMENT);
    *index = gpu_index(gp);
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)
{
    MOCK_ENTER();
    PHYS_ONLY(device, gp);
    if (!node) RET(NVML_ERROR_INVALID_ARGUMENT);
    unsigned n = g_mock.cfg.gpus;
    *node = (n > 1 && gpu_index(gp) >= n / 2) ? 1 : 0;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    MOCK_ENTER();
    PHYS_ONLY(device, gp);
    if (!mode) RET(NVML_ERROR_INVALID_ARGUMENT);
    *mode = (nvmlComputeMode_t)gp->compute_mode;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceSetComputeMode(nvmlDevice_t device, nvmlComputeMode_t mode)
{
    MOCK_ENTER();
    PHYS_ONLY(device, gp);
    if ((unsigned)mode >= NVML_COMPUTEMODE_COUNT) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (mode == NVML_COMPUTEMODE_EXCLUSIVE_THREAD) RET(NVML_ERROR_NOT_SUPPORTED);
    mock_state_begin();
    gp->compute_mode = (unsigned)mode;
    mock_state_end(1);
    RET(NVML_SUCCESS);
}

/* Bare metal: no hypervisor, no vGPU. */
nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t *pVirtualMode)
{
    MOCK_ENTER();
    PHYS_ONLY(device, gp);
    (void)gp;
    if (!pVirtualMode) RET(NVML_ERROR_INVALID_ARGUMENT);
    *pVirtualMode = NVML_GPU_VIRTUALIZATION_MODE_NONE;
    RET(NVML_SUCCESS);
}

/* HMM: what a 580 driver (open kernel modules, the default since 560) reports on x86_64 with a kernel that has
 * HMM (6.1.24+). ATS needs a Grace CPU; NONE is the proprietary module's answer. README.md, "Entry points". */
nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_t *mode)
{
    MOCK_ENTER();
    PHYS_ONLY(device, gp);
    (void)gp;
    if (!mode) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (mode->version != nvmlDeviceAddressingMode_v1) RET(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    mode->value = NVML_DEVICE_ADDRESSING_MODE_HMM;
    RET(NVML_SUCCESS);
}

/* Driver models are Windows only: NOT_SUPPORTED on Linux, after the handle and argument checks. */
nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    MOCK_ENTER();
    if (!mock_resolve_device(device, NULL, NULL, NULL) || (!current && !pending)) RET(NVML_ERROR_INVALID_ARGUMENT);
    RET(NVML_ERROR_NOT_SUPPORTED);
}

/* NVLink is not modelled: the simulated GPUs have no active link, as a board without NVLink answers. */
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
    MOCK_ENTER();
    if (!mock_resolve_device(device, NULL, NULL, NULL) || link >= NVML_NVLINK_MAX_LINKS || !pci)
        RET(NVML_ERROR_INVALID_ARGUMENT);
    RET(NVML_ERROR_NOT_SUPPORTED);
}
