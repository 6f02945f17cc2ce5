/* telemetry.c - what a GPU reports about its work: utilization, power, temperature, clocks, ECC counts, memory
 * used and running processes, set by a test in telemetry_file.
 *
 * Lines: "<gpuIndex>[/<giId>/<ciId>] <key> <value>" and "<gpuIndex>[/<giId>/<ciId>] process|mps_process <pid>
 * <usedBytes>"; '#' starts a comment. The file is re-parsed whenever its stat stamp changes, so a test changes a
 * value over time by rewriting it. A later line for the same device and key wins. A value the file leaves out
 * reads as an idle, cool board does (defaults below), except where nvml.h says the call is not supported: on a
 * MIG device handle, and for utilization on a GPU in MIG mode, the call answers NOT_SUPPORTED unless the file
 * gives that device the value (README.md, "Telemetry injection"). */
#include <stdio.h>
#include <string.h>
#include "mock.h"

#define RET(r) return mock_leave(r)

static const struct { const char *name; unsigned long long dflt; } keys[MOCK_T_KEYS] = {
    [MOCK_T_GPU_UTIL] = {"gpu_util", 0},
    [MOCK_T_MEMORY_UTIL] = {"memory_util", 0},
    [MOCK_T_POWER_MW] = {"power_mw", 70000},
    [MOCK_T_TEMPERATURE_C] = {"temperature_c", 35},
    [MOCK_T_GRAPHICS_CLOCK_MHZ] = {"graphics_clock_mhz", 1980},
    [MOCK_T_SM_CLOCK_MHZ] = {"sm_clock_mhz", 1980},
    [MOCK_T_MEMORY_CLOCK_MHZ] = {"memory_clock_mhz", 2619},
    [MOCK_T_VIDEO_CLOCK_MHZ] = {"video_clock_mhz", 1545},
    [MOCK_T_ECC_CORRECTED] = {"ecc_corrected", 0},
    [MOCK_T_ECC_UNCORRECTED] = {"ecc_uncorrected", 0},
    [MOCK_T_MEMORY_USED_BYTES] = {"memory_used_bytes", 0},
};

static int key_of(const char *name)
{
    for (int k = 0; k < MOCK_T_KEYS; k++)
        if (!strcmp(keys[k].name, name))
            return k;
    return -1;
}

static void put_value(int gpu, int gi, int ci, int key, unsigned long long value)
{
    for (int i = 0; i < g_mock.ntvalues; i++) {
        mock_tvalue *t = &g_mock.tvalues[i];
        if (t->gpu == gpu && t->gi == gi && t->ci == ci && t->key == key) {
            t->value = value;
            return;
        }
    }
    if (g_mock.ntvalues < MOCK_MAX_TELEMETRY)
        g_mock.tvalues[g_mock.ntvalues++] = (mock_tvalue){gpu, gi, ci, key, value};
}

static void parse(void)
{
    g_mock.ntvalues = g_mock.nprocs = 0;
    FILE *f = fopen(g_mock.cfg.telemetry_file, "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        char dev[64], key[64];
        unsigned long long a = 0, b = 0;
        int n = sscanf(line, "%63s %63s %llu %llu", dev, key, &a, &b);
        if (n < 3)
            continue;
        int gpu, gi = -1, ci = -1;
        if (sscanf(dev, "%d/%d/%d", &gpu, &gi, &ci) != 3) {
            gi = ci = -1;
            char end;
            if (sscanf(dev, "%d%c", &gpu, &end) != 1)
                continue;
        }
        if (gpu < 0 || (unsigned)gpu >= g_mock.cfg.gpus || gi < -1 || gi >= MOCK_MAX_GI || ci < -1 ||
            ci >= MOCK_MAX_CI)
            continue;
        int mps = !strcmp(key, "mps_process");
        if (mps || !strcmp(key, "process")) {
            if (n == 4 && g_mock.nprocs < MOCK_MAX_PROCS)
                g_mock.procs[g_mock.nprocs++] = (mock_tproc){gpu, gi, ci, mps, (unsigned)a, b};
            continue;
        }
        int k = key_of(key);
        if (k >= 0)
            put_value(gpu, gi, ci, k, a);
    }
    fclose(f);
}

void mock_telemetry_refresh(void)
{
    if (g_mock.cfg.telemetry_file[0] && mock_stamp_changed(g_mock.cfg.telemetry_file, &g_mock.telemetry_stamp))
        parse();
}

int mock_telemetry_value(int gpu, int gi, int ci, int key, unsigned long long *out)
{
    mock_telemetry_refresh();
    for (int i = 0; i < g_mock.ntvalues; i++) {
        const mock_tvalue *t = &g_mock.tvalues[i];
        if (t->gpu == gpu && t->gi == gi && t->ci == ci && t->key == key) {
            *out = t->value;
            return 1;
        }
    }
    *out = keys[key].dflt;
    return 0;
}

unsigned mock_telemetry_procs(int gpu, int gi, int ci, int mps, nvmlProcessInfo_t *out, unsigned room)
{
    mock_telemetry_refresh();
    unsigned n = 0;
    for (int i = 0; i < g_mock.nprocs; i++) {
        const mock_tproc *p = &g_mock.procs[i];
        if (p->gpu != gpu || p->mps != mps || (gi >= 0 && (p->gi != gi || p->ci != ci)))
            continue;
        if (out && n < room)
            out[n] = (nvmlProcessInfo_t){p->pid, p->bytes, p->gi < 0 ? 0xFFFFFFFFu : (unsigned)p->gi,
                                         p->ci < 0 ? 0xFFFFFFFFu : (unsigned)p->ci};
        n++;
    }
    return n;
}

unsigned long long mock_telemetry_used(int gpu, int gi, int ci)
{
    unsigned long long used;
    if (mock_telemetry_value(gpu, gi, ci, MOCK_T_MEMORY_USED_BYTES, &used))
        return used;
    for (int i = 0; i < g_mock.nprocs; i++) {
        const mock_tproc *p = &g_mock.procs[i];
        if (p->gpu == gpu && (gi < 0 || (p->gi == gi && p->ci == ci)))
            used += p->bytes;
    }
    return used;
}

/* One value of a device: the file's, else the default; NOT_SUPPORTED where nvml.h says so and the file is silent. */
static nvmlReturn_t value_of(nvmlDevice_t device, int key, int unsupported_on_mig_gpu, unsigned long long *out)
{
    mock_gpu *gp;
    int k = mock_resolve_device(device, &gp, NULL, NULL);
    if (!k)
        return NVML_ERROR_INVALID_ARGUMENT;
    int gpu = (int)(gp - g_mock.gpu);
    int mig = k == MOCK_H_MIGDEV;
    int set = mock_telemetry_value(gpu, mig ? device->gi : -1, mig ? device->ci : -1, key, out);
    if (!set && (mig || (unsupported_on_mig_gpu && gp->mig_current)))
        return NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    MOCK_ENTER();
    unsigned long long gpu, memory;
    if (!utilization) RET(NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = value_of(device, MOCK_T_GPU_UTIL, 1, &gpu);
    if (r != NVML_SUCCESS) RET(r);
    if (value_of(device, MOCK_T_MEMORY_UTIL, 0, &memory) != NVML_SUCCESS)
        memory = 0;   /* a MIG device given its GPU utilization only */
    utilization->gpu = (unsigned)gpu;
    utilization->memory = (unsigned)memory;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    MOCK_ENTER();
    unsigned long long v;
    if (!power) RET(NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = value_of(device, MOCK_T_POWER_MW, 0, &v);
    if (r == NVML_SUCCESS)
        *power = (unsigned)v;
    RET(r);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp)
{
    MOCK_ENTER();
    unsigned long long v;
    if (!temp || (unsigned)sensorType >= NVML_TEMPERATURE_COUNT) RET(NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = value_of(device, MOCK_T_TEMPERATURE_C, 0, &v);
    if (r == NVML_SUCCESS)
        *temp = (unsigned)v;
    RET(r);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    MOCK_ENTER();
    static const int key[NVML_CLOCK_COUNT] = {MOCK_T_GRAPHICS_CLOCK_MHZ, MOCK_T_SM_CLOCK_MHZ,
                                              MOCK_T_MEMORY_CLOCK_MHZ, MOCK_T_VIDEO_CLOCK_MHZ};
    unsigned long long v;
    if (!clock || (unsigned)type >= NVML_CLOCK_COUNT) RET(NVML_ERROR_INVALID_ARGUMENT);
    nvmlReturn_t r = value_of(device, key[type], 0, &v);
    if (r == NVML_SUCCESS)
        *clock = (unsigned)v;
    RET(r);
}

/* Volatile and aggregate counts read the same: nothing has reset the counters since the driver loaded. */
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
    MOCK_ENTER();
    if (!eccCounts || (unsigned)errorType >= NVML_MEMORY_ERROR_TYPE_COUNT ||
        (unsigned)counterType >= NVML_ECC_COUNTER_TYPE_COUNT)
        RET(NVML_ERROR_INVALID_ARGUMENT);
    int key = errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? MOCK_T_ECC_CORRECTED : MOCK_T_ECC_UNCORRECTED;
    unsigned long long v;
    nvmlReturn_t r = value_of(device, key, 0, &v);
    if (r == NVML_SUCCESS)
        *eccCounts = v;
    RET(r);
}
