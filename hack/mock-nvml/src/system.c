/* system.c - library lifetime (init/shutdown refcount), the per-call gate and system queries. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "mock.h"

mock_global g_mock;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

void mock_lock(void) { pthread_mutex_lock(&mu); }
void mock_unlock(void) { pthread_mutex_unlock(&mu); }

nvmlReturn_t mock_leave(nvmlReturn_t r)
{
    mock_unlock();
    return r;
}

/* Common prologue of every API call: initialized? artificial delay, injected fault, state refresh. */
nvmlReturn_t mock_enter(const char *sym)
{
    mock_lock();
    if (g_mock.refcount == 0)
        return mock_leave(NVML_ERROR_UNINITIALIZED);
    unsigned delay = mock_delay_for(sym);
    if (delay) {
        mock_unlock();
        mock_sleep_ms(delay);
        mock_lock();
        if (g_mock.refcount == 0)
            return mock_leave(NVML_ERROR_UNINITIALIZED);
    }
    nvmlReturn_t f = mock_fault_check(sym);
    if (f != NVML_SUCCESS)
        return mock_leave(f);
    mock_state_refresh();
    return NVML_SUCCESS;
}

static void init_handles(void)
{
    for (int i = 0; i < MOCK_MAX_GPUS; i++) {
        mock_gpu *gp = &g_mock.gpu[i];
        gp->dev = (struct nvmlDevice_st){MOCK_MAGIC, MOCK_H_GPU, i, -1, -1};
        char what[32];
        snprintf(what, sizeof(what), "gpu%d", i);
        mock_uuid(gp->uuid, sizeof(gp->uuid), "GPU", g_mock.cfg.seed, what);
        for (int j = 0; j < MOCK_MAX_GI; j++) {
            gp->gi[j].h = (struct nvmlGpuInstance_st){MOCK_MAGIC, MOCK_H_GI, i, j};
            for (int k = 0; k < MOCK_MAX_CI; k++) {
                gp->gi[j].ci[k].h = (struct nvmlComputeInstance_st){MOCK_MAGIC, MOCK_H_CI, i, j, k};
                gp->gi[j].ci[k].migdev = (struct nvmlDevice_st){MOCK_MAGIC, MOCK_H_MIGDEV, i, j, k};
            }
        }
        mock_fill_mig_uuids(i);
    }
}

static nvmlReturn_t load_all(void)
{
    char path[PATH_MAX];
    static mock_config cfg;
    if (mock_config_path(path, sizeof(path)) != 0 || mock_config_load(path, &cfg) != 0)
        return NVML_ERROR_DRIVER_NOT_LOADED;
    const mock_gpu_profile *prof = mock_find_profile(cfg.profile);
    if (!prof || cfg.gpus > MOCK_MAX_GPUS) {
        fprintf(stderr, "mock-nvml: %s: unknown profile '%s' or gpus > %d\n", path, cfg.profile, MOCK_MAX_GPUS);
        return NVML_ERROR_UNKNOWN;
    }
    g_mock.cfg = cfg;
    g_mock.prof = prof;
    memset(&g_mock.state_stamp, 0, sizeof(g_mock.state_stamp));
    memset(&g_mock.faults_stamp, 0, sizeof(g_mock.faults_stamp));
    g_mock.nfaults = 0;
    memset(&g_mock.telemetry_stamp, 0, sizeof(g_mock.telemetry_stamp));
    g_mock.ntvalues = g_mock.nprocs = 0;
    init_handles();
    mock_state_defaults();
    mock_state_begin();               /* loads an existing state file */
    if (g_mock.state_stamp.valid) {
        mock_caps_sync();
        mock_state_end(0);
        return NVML_SUCCESS;
    }
    /* First boot of this root: initial MIG mode and layout from the config. */
    if (cfg.mig_layout[0] && mock_apply_layout(cfg.mig_layout) != 0) {
        mock_state_defaults();
        mock_state_end(0);
        return NVML_ERROR_UNKNOWN;
    }
    for (unsigned i = 0; i < cfg.gpus; i++)
        mock_fill_mig_uuids((int)i);
    mock_state_end(1);
    return NVML_SUCCESS;
}

static nvmlReturn_t do_init(const char *sym)
{
    mock_lock();
    if (g_mock.refcount == 0) {
        nvmlReturn_t r = load_all();
        if (r != NVML_SUCCESS)
            return mock_leave(r);
    }
    unsigned delay = mock_delay_for(sym);
    if (delay)
        mock_sleep_ms(delay);
    nvmlReturn_t f = mock_fault_check(sym);
    if (f != NVML_SUCCESS)
        return mock_leave(f);
    g_mock.refcount++;
    return mock_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlInit_v2(void) { return do_init(__func__); }
nvmlReturn_t nvmlInit(void) { return do_init(__func__); }
nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags;
    return do_init(__func__);
}

nvmlReturn_t nvmlShutdown(void)
{
    MOCK_ENTER();
    if (--g_mock.refcount == 0)
        mock_events_reset();
    return mock_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    MOCK_ENTER();
    return mock_leave(mock_copy_str(version, length, g_mock.cfg.driver_version));
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    MOCK_ENTER();
    char buf[64];
    snprintf(buf, sizeof(buf), "%d.%s", g_mock.cfg.cuda_version / 1000, g_mock.cfg.driver_version);
    return mock_leave(mock_copy_str(version, length, buf));
}

static nvmlReturn_t cuda_version(int *out)
{
    if (!out)
        return mock_leave(NVML_ERROR_INVALID_ARGUMENT);
    *out = g_mock.cfg.cuda_version;
    return mock_leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
    MOCK_ENTER();
    return cuda_version(cudaDriverVersion);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    MOCK_ENTER();
    return cuda_version(cudaDriverVersion);
}
