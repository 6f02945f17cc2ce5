/* mock_nvml_test - behaviour tests for the mock NVML library.
 *
 * usage: mock_nvml_test <built libnvidia-ml.so.1> <mock-nvml-setup>
 * Lays out fake driver roots under a temp dir with mock-nvml-setup, dlopens each root's
 * library through its libnvidia-ml.so.1 symlink (config found via dladdr) and checks the API. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "nvml_abi.h"

/* Every entry point of the one list (src/entry_points.def), bound by load() with dlsym. */
typedef struct {
#define NVML_ENTRY(ret, name, params) __typeof__(name) *name;
#define NVML_ABSENT(group, name)
#include "entry_points.def"
#undef NVML_ENTRY
#undef NVML_ABSENT
} api_t;

static int checks, failures;
static char tmpdir[256], setup_script[1024], built_lib[1024];

#define CHECK(cond, ...) check_((cond), __LINE__, #cond, __VA_ARGS__)
static void check_(int ok, int line, const char *expr, const char *fmt, ...)
{
    checks++;
    if (ok)
        return;
    failures++;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL line %d: %s: ", line, expr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
#define EXPECT(call, want) do { nvmlReturn_t r_ = (call); CHECK(r_ == (want), "%s -> %d, want %d", #call, r_, want); } while (0)
#define OK(call) EXPECT(call, NVML_SUCCESS)

/* Runs a shell command and returns its exit status. */
static int run(const char *fmt, va_list ap)
{
    char cmd[4096];
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void sh(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = run(fmt, ap);
    va_end(ap);
    CHECK(rc == 0, "command failed (%d): %s", rc, fmt);
}

static int sh_rc(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = run(fmt, ap);
    va_end(ap);
    return rc;
}

static void make_root(const char *name, const char *args)
{
    sh("'%s' --root '%s/%s' --lib '%s' %s >/dev/null", setup_script, tmpdir, name, built_lib, args);
}

static void load(api_t *a, const char *root)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", tmpdir, root);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(2);
    }
#define NVML_ENTRY(ret, f, params) \
    if (!(a->f = (__typeof__(f) *)dlsym(h, #f))) { fprintf(stderr, "missing %s\n", #f); exit(2); }
#define NVML_ABSENT(group, name)
#include "entry_points.def"
#undef NVML_ENTRY
#undef NVML_ABSENT
}

static int file_contains(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = 0;
    fclose(f);
    return strstr(buf, needle) != NULL;
}

static int exists(const char *fmt, ...)
{
    char p[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p, sizeof(p), fmt, ap);
    va_end(ap);
    struct stat sb;
    return stat(p, &sb) == 0;
}

static void append(const char *root, const char *rel, const char *line)
{
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s/%s", tmpdir, root, rel);
    FILE *f = fopen(p, "a");
    if (!f) {
        CHECK(0, "cannot append to %s", p);
        return;
    }
    fputs(line, f);
    fclose(f);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* telemetry_file: defaults, values a test sets and changes, NOT_SUPPORTED where nvml.h says so, processes. */
static void test_telemetry(api_t *a, const char *root)
{
    nvmlDevice_t d0, d1, d3, mig;
    nvmlUtilization_t u;
    unsigned v, n;
    unsigned long long ecc;
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s/var/lib/mock-nvml/telemetry", tmpdir, root);
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d0)); /* MIG mode on, no instance */
    OK(a->nvmlDeviceGetHandleByIndex_v2(1, &d1)); /* MIG mode on, GI 4 (1g.20gb) and GI 7 */
    OK(a->nvmlDeviceGetHandleByIndex_v2(3, &d3)); /* no MIG */
    OK(a->nvmlDeviceGetMigDeviceHandleByIndex(d1, 0, &mig)); /* GI 4, CI 0 */

    /* Defaults: an idle, cool board. */
    OK(a->nvmlDeviceGetUtilizationRates(d3, &u));
    CHECK(u.gpu == 0 && u.memory == 0, "idle utilization %u/%u", u.gpu, u.memory);
    OK(a->nvmlDeviceGetPowerUsage(d3, &v));
    CHECK(v == 70000, "default power %u mW", v);
    OK(a->nvmlDeviceGetTemperature(d3, NVML_TEMPERATURE_GPU, &v));
    CHECK(v == 35, "default temperature %u", v);
    OK(a->nvmlDeviceGetClockInfo(d3, NVML_CLOCK_SM, &v));
    CHECK(v == 1980, "default SM clock %u", v);
    OK(a->nvmlDeviceGetTotalEccErrors(d3, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &ecc));
    CHECK(ecc == 0, "default ECC %llu", ecc);
    EXPECT(a->nvmlDeviceGetUtilizationRates(d0, &u), NVML_ERROR_NOT_SUPPORTED); /* MIG mode */
    EXPECT(a->nvmlDeviceGetUtilizationRates(mig, &u), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetPowerUsage(mig, &v), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetTemperature(mig, NVML_TEMPERATURE_GPU, &v), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetClockInfo(mig, NVML_CLOCK_SM, &v), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetTotalEccErrors(mig, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &ecc),
           NVML_ERROR_NOT_SUPPORTED);
    OK(a->nvmlDeviceGetPowerUsage(d0, &v)); /* a board sensor: MIG mode does not matter */
    EXPECT(a->nvmlDeviceGetTemperature(d3, NVML_TEMPERATURE_COUNT, &v), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetClockInfo(d3, NVML_CLOCK_COUNT, &v), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetTotalEccErrors(d3, NVML_MEMORY_ERROR_TYPE_COUNT, NVML_VOLATILE_ECC, &ecc),
           NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetPowerUsage(d3, NULL), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetUtilizationRates(NULL, &u), NVML_ERROR_INVALID_ARGUMENT);

    /* Values from the file, per GPU and per MIG device; processes; memory used follows them. */
    append(root, "var/lib/mock-nvml/telemetry",
           "3 gpu_util 87\n3 memory_util 41\n3 power_mw 312500  # a busy H100\n3 temperature_c 71\n"
           "3 sm_clock_mhz 1755\n3 ecc_corrected 5\n3 ecc_uncorrected 1\n"
           "3 process 4242 1073741824\n3 mps_process 5000 536870912\n3 mps_process 5001 268435456\n"
           "1/4/0 gpu_util 33\n1/4/0 mps_process 6000 104857600\n1/7/0 process 6001 1048576\n"
           "9 gpu_util 1\nbogus line\n");
    OK(a->nvmlDeviceGetUtilizationRates(d3, &u));
    CHECK(u.gpu == 87 && u.memory == 41, "utilization %u/%u", u.gpu, u.memory);
    OK(a->nvmlDeviceGetPowerUsage(d3, &v));
    CHECK(v == 312500, "power %u", v);
    OK(a->nvmlDeviceGetTemperature(d3, NVML_TEMPERATURE_GPU, &v));
    CHECK(v == 71, "temperature %u", v);
    OK(a->nvmlDeviceGetClockInfo(d3, NVML_CLOCK_SM, &v));
    CHECK(v == 1755, "SM clock %u", v);
    OK(a->nvmlDeviceGetClockInfo(d3, NVML_CLOCK_GRAPHICS, &v));
    CHECK(v == 1980, "graphics clock keeps its default %u", v);
    OK(a->nvmlDeviceGetTotalEccErrors(d3, NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &ecc));
    CHECK(ecc == 5, "corrected ECC %llu", ecc);
    OK(a->nvmlDeviceGetTotalEccErrors(d3, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &ecc));
    CHECK(ecc == 1, "uncorrected ECC %llu", ecc);
    nvmlProcessInfo_t infos[4];
    n = 4;
    OK(a->nvmlDeviceGetComputeRunningProcesses_v3(d3, &n, infos));
    CHECK(n == 1 && infos[0].pid == 4242 && infos[0].usedGpuMemory == 1073741824ULL &&
              infos[0].gpuInstanceId == 0xFFFFFFFFu, "compute processes %u", n);
    n = 0;
    EXPECT(a->nvmlDeviceGetMPSComputeRunningProcesses_v3(d3, &n, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
    CHECK(n == 2, "MPS sizing call %u", n);
    n = 1;
    EXPECT(a->nvmlDeviceGetMPSComputeRunningProcesses_v3(d3, &n, infos), NVML_ERROR_INSUFFICIENT_SIZE);
    n = 4;
    OK(a->nvmlDeviceGetMPSComputeRunningProcesses_v2(d3, &n, infos));
    CHECK(n == 2 && infos[0].pid == 5000 && infos[1].usedGpuMemory == 268435456ULL, "MPS clients %u", n);
    n = 4;
    OK(a->nvmlDeviceGetGraphicsRunningProcesses_v3(d3, &n, infos));
    CHECK(n == 0, "no graphics process %u", n);
    nvmlMemory_v2_t m2 = {.version = nvmlMemory_v2};
    OK(a->nvmlDeviceGetMemoryInfo_v2(d3, &m2));
    CHECK(m2.used == 1073741824ULL + 536870912ULL + 268435456ULL && m2.free == m2.total - m2.reserved - m2.used,
          "memory used = the processes' %llu", m2.used);
    OK(a->nvmlDeviceGetUtilizationRates(mig, &u));
    CHECK(u.gpu == 33 && u.memory == 0, "MIG device utilization %u/%u", u.gpu, u.memory);
    EXPECT(a->nvmlDeviceGetUtilizationRates(d1, &u), NVML_ERROR_NOT_SUPPORTED);
    n = 4;
    OK(a->nvmlDeviceGetMPSComputeRunningProcesses_v3(mig, &n, infos));
    CHECK(n == 1 && infos[0].pid == 6000 && infos[0].gpuInstanceId == 4 && infos[0].computeInstanceId == 0,
          "MIG device MPS clients %u", n);
    n = 4;
    OK(a->nvmlDeviceGetComputeRunningProcesses_v3(d1, &n, infos));
    CHECK(n == 1 && infos[0].pid == 6001 && infos[0].gpuInstanceId == 7, "GPU lists its MIG devices' processes");
    OK(a->nvmlDeviceGetMemoryInfo_v2(mig, &m2));
    CHECK(m2.used == 104857600ULL && m2.total == 20096ULL << 20, "MIG memory %llu of %llu", m2.used, m2.total);
    nvmlMemory_t m1;
    OK(a->nvmlDeviceGetMemoryInfo(mig, &m1));
    CHECK(m1.used == m2.reserved + m2.used && m1.free == m1.total - m1.used, "MIG memory v1 %llu", m1.used);

    /* Changed over time: the file is read again when it changes; memory_used_bytes wins over processes. */
    sh("printf '3 gpu_util 12\\n3 memory_used_bytes 2147483648\\n3 process 4242 1\\n' > '%s'", path);
    OK(a->nvmlDeviceGetUtilizationRates(d3, &u));
    CHECK(u.gpu == 12 && u.memory == 0, "changed utilization %u/%u", u.gpu, u.memory);
    OK(a->nvmlDeviceGetPowerUsage(d3, &v));
    CHECK(v == 70000, "power back to its default %u", v);
    OK(a->nvmlDeviceGetMemoryInfo_v2(d3, &m2));
    CHECK(m2.used == 2147483648ULL, "memory_used_bytes %llu", m2.used);
    /* A fault still comes first. */
    append(root, "etc/mock-nvml/faults", "nvmlDeviceGetPowerUsage NVML_ERROR_GPU_IS_LOST 1\n");
    EXPECT(a->nvmlDeviceGetPowerUsage(d3, &v), NVML_ERROR_GPU_IS_LOST);
    OK(a->nvmlDeviceGetPowerUsage(d3, &v));
    sh("rm -f '%s'", path); /* no file: the defaults */
    OK(a->nvmlDeviceGetUtilizationRates(d3, &u));
    CHECK(u.gpu == 0, "no file: idle %u", u.gpu);
    n = 4;
    OK(a->nvmlDeviceGetComputeRunningProcesses_v3(d3, &n, infos));
    CHECK(n == 0, "no file: no process %u", n);
}

/* ------------------------------------------------------------------------------------------ */

static void test_h100_attributes(api_t *a)
{
    unsigned n = 0;
    char buf[128];
    nvmlDevice_t d, d2;
    EXPECT(a->nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
    CHECK(!strcmp(a->nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized"), "error string");
    OK(a->nvmlInit_v2());
    OK(a->nvmlDeviceGetCount_v2(&n));
    CHECK(n == 8, "count %u", n);
    OK(a->nvmlSystemGetDriverVersion(buf, sizeof(buf)));
    CHECK(!strcmp(buf, "580.95.05"), "driver %s", buf);
    EXPECT(a->nvmlSystemGetDriverVersion(buf, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    OK(a->nvmlSystemGetNVMLVersion(buf, sizeof(buf)));
    CHECK(!strcmp(buf, "13.580.95.05"), "nvml version %s", buf);
    int cuda = 0;
    OK(a->nvmlSystemGetCudaDriverVersion_v2(&cuda));
    CHECK(cuda == 13000, "cuda %d", cuda);

    char uuids[8][NVML_DEVICE_UUID_BUFFER_SIZE];
    for (unsigned i = 0; i < 8; i++) {
        OK(a->nvmlDeviceGetHandleByIndex_v2(i, &d));
        OK(a->nvmlDeviceGetName(d, buf, sizeof(buf)));
        CHECK(!strcmp(buf, "NVIDIA H100 80GB HBM3"), "name %s", buf);
        OK(a->nvmlDeviceGetUUID(d, uuids[i], sizeof(uuids[i])));
        CHECK(strlen(uuids[i]) == 40 && !strncmp(uuids[i], "GPU-", 4) && uuids[i][12] == '-', "uuid %s", uuids[i]);
        for (unsigned j = 0; j < i; j++)
            CHECK(strcmp(uuids[i], uuids[j]) != 0, "uuid %u == %u", i, j);
        OK(a->nvmlDeviceGetHandleByUUID(uuids[i], &d2));
        CHECK(d2 == d, "by uuid");
        unsigned v;
        OK(a->nvmlDeviceGetMinorNumber(d, &v));
        CHECK(v == i, "minor %u", v);
        OK(a->nvmlDeviceGetIndex(d, &v));
        CHECK(v == i, "index %u", v);
        OK(a->nvmlDeviceGetNumaNodeId(d, &v));
        CHECK(v == (i < 4 ? 0u : 1u), "numa %u", v);
        nvmlPciInfo_t pci;
        OK(a->nvmlDeviceGetPciInfo_v3(d, &pci));
        char want[32];
        snprintf(want, sizeof(want), "%08X:%02X:%02X.0", pci.domain, pci.bus, pci.device);
        CHECK(!strcmp(pci.busId, want) && strlen(pci.busId) == 16, "busId %s vs %s", pci.busId, want);
        CHECK(pci.pciDeviceId == 0x233010DE, "pci id %x", pci.pciDeviceId);
        OK(a->nvmlDeviceGetHandleByPciBusId_v2(pci.busId, &d2));
        CHECK(d2 == d, "by pci");
        OK(a->nvmlDeviceGetHandleByPciBusId_v2(pci.busIdLegacy, &d2));
        CHECK(d2 == d, "by legacy pci %s", pci.busIdLegacy);
    }
    OK(a->nvmlDeviceGetHandleByIndex_v2(1, &d));
    nvmlPciInfo_t pci;
    OK(a->nvmlDeviceGetPciInfo_v3(d, &pci));
    CHECK(!strcmp(pci.busId, "00000000:2A:00.0") && pci.bus == 0x2A, "gpu1 busId %s", pci.busId);
    EXPECT(a->nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &d2), NVML_ERROR_NOT_FOUND);
    EXPECT(a->nvmlDeviceGetHandleByIndex_v2(8, &d2), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetName(d, buf, 5), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT(a->nvmlDeviceGetUUID(d, buf, 10), NVML_ERROR_INSUFFICIENT_SIZE);
    EXPECT(a->nvmlDeviceGetName((nvmlDevice_t)buf, buf, sizeof(buf)), NVML_ERROR_INVALID_ARGUMENT);

    nvmlBrandType_t brand;
    nvmlDeviceArchitecture_t arch;
    int maj, min;
    OK(a->nvmlDeviceGetBrand(d, &brand));
    CHECK(brand == NVML_BRAND_NVIDIA, "brand %d", brand);
    OK(a->nvmlDeviceGetArchitecture(d, &arch));
    CHECK(arch == NVML_DEVICE_ARCH_HOPPER, "arch %u", arch);
    OK(a->nvmlDeviceGetCudaComputeCapability(d, &maj, &min));
    CHECK(maj == 9 && min == 0, "cc %d.%d", maj, min);
    nvmlMemory_t m;
    OK(a->nvmlDeviceGetMemoryInfo(d, &m));
    CHECK(m.total == 81559ULL << 20 && m.free + m.used == m.total, "mem %llu", m.total);
    nvmlMemory_v2_t m2 = {0};
    EXPECT(a->nvmlDeviceGetMemoryInfo_v2(d, &m2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    m2.version = nvmlMemory_v2;
    OK(a->nvmlDeviceGetMemoryInfo_v2(d, &m2));
    CHECK(m2.total == 81559ULL << 20 && m2.free + m2.reserved + m2.used == m2.total, "mem v2");
    CHECK(nvmlMemory_v2 == (40u | (2u << 24)), "nvmlMemory_v2 0x%x", nvmlMemory_v2);

    nvmlComputeMode_t cm;
    OK(a->nvmlDeviceGetComputeMode(d, &cm));
    CHECK(cm == NVML_COMPUTEMODE_DEFAULT, "compute mode %d", cm);
    OK(a->nvmlDeviceSetComputeMode(d, NVML_COMPUTEMODE_EXCLUSIVE_PROCESS));
    OK(a->nvmlDeviceGetComputeMode(d, &cm));
    CHECK(cm == NVML_COMPUTEMODE_EXCLUSIVE_PROCESS, "compute mode set %d", cm);
    EXPECT(a->nvmlDeviceSetComputeMode(d, (nvmlComputeMode_t)7), NVML_ERROR_INVALID_ARGUMENT);
}

static void test_profiles(api_t *a, unsigned gpu, int mig_capable, unsigned want_profiles, unsigned want_placements,
                          const char *rev2_name)
{
    nvmlDevice_t d;
    OK(a->nvmlDeviceGetHandleByIndex_v2(gpu, &d));
    unsigned profiles = 0, placements = 0;
    for (unsigned idx = 0; idx < NVML_GPU_INSTANCE_PROFILE_COUNT; idx++) {
        nvmlGpuInstanceProfileInfo_t info;
        nvmlReturn_t r = a->nvmlDeviceGetGpuInstanceProfileInfo(d, idx, &info);
        if (!mig_capable) {
            CHECK(r == NVML_ERROR_NOT_SUPPORTED, "non-MIG profile %u -> %d", idx, r);
            continue;
        }
        if (r == NVML_ERROR_NOT_SUPPORTED)
            continue;
        CHECK(r == NVML_SUCCESS, "profile %u -> %d", idx, r);
        profiles++;
        unsigned cnt = 0;
        OK(a->nvmlDeviceGetGpuInstancePossiblePlacements_v2(d, info.id, NULL, &cnt));
        nvmlGpuInstancePlacement_t pl[8];
        OK(a->nvmlDeviceGetGpuInstancePossiblePlacements_v2(d, info.id, pl, &cnt));
        CHECK(cnt == info.instanceCount || info.id == 20, "placements %u vs instances %u", cnt, info.instanceCount);
        placements += cnt;
        nvmlGpuInstanceProfileInfo_v2_t v2 = {.version = nvmlGpuInstanceProfileInfo_v2};
        OK(a->nvmlDeviceGetGpuInstanceProfileInfoV(d, idx, &v2));
        CHECK(v2.id == info.id && v2.memorySizeMB == info.memorySizeMB && !strncmp(v2.name, "MIG ", 4), "v2 %s", v2.name);
        nvmlGpuInstanceProfileInfo_v3_t v3 = {.version = nvmlGpuInstanceProfileInfo_v3};
        OK(a->nvmlDeviceGetGpuInstanceProfileInfoV(d, idx, (nvmlGpuInstanceProfileInfo_v2_t *)&v3));
        CHECK(v3.id == info.id && !strcmp(v3.name, v2.name) && v3.sliceCount == info.sliceCount, "v3 %s", v3.name);
        if (idx == NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2)
            CHECK(info.id == 15 && !strcmp(v2.name, rev2_name), "REV2 -> %u %s", info.id, v2.name);
        if (idx == NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1)
            CHECK(info.id == 20 && info.instanceCount == 1 && strstr(v2.name, "+me"), "REV1 -> %u %s", info.id, v2.name);
        if (idx == NVML_GPU_INSTANCE_PROFILE_7_SLICE)
            CHECK(info.id == 0 && info.sliceCount == 7 && cnt == 1 && pl[0].size == 8, "7 slice");
        if (idx == NVML_GPU_INSTANCE_PROFILE_3_SLICE)
            CHECK(info.id == 9 && cnt == 2 && pl[0].start == 0 && pl[1].start == 4 && pl[1].size == 4, "3 slice");
    }
    CHECK(profiles == want_profiles && placements == want_placements, "gpu %u: %u profiles, %u placements", gpu,
          profiles, placements);
    nvmlGpuInstanceProfileInfo_v2_t bad = {.version = 1};
    if (mig_capable) {
        EXPECT(a->nvmlDeviceGetGpuInstanceProfileInfoV(d, 0, &bad), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
        EXPECT(a->nvmlDeviceGetGpuInstanceProfileInfoV(d, NVML_GPU_INSTANCE_PROFILE_COUNT, &bad),
               NVML_ERROR_INVALID_ARGUMENT);
    } else {
        unsigned cur, pend, cnt;
        EXPECT(a->nvmlDeviceGetMigMode(d, &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
        EXPECT(a->nvmlDeviceGetGpuInstancePossiblePlacements_v2(d, 19, NULL, &cnt), NVML_ERROR_NOT_SUPPORTED);
    }
}

static nvmlGpuInstance_t gi_by_id(api_t *a, nvmlDevice_t d, unsigned id)
{
    nvmlGpuInstance_t gi = NULL;
    OK(a->nvmlDeviceGetGpuInstanceById(d, id, &gi));
    return gi;
}

static void test_initial_layout(api_t *a, const char *root)
{
    /* --mig '1:19@0,15@2;2:9@4' */
    nvmlDevice_t d, mig, parent;
    unsigned cur, pend, n, id;
    char buf[128];
    OK(a->nvmlDeviceGetHandleByIndex_v2(1, &d));
    OK(a->nvmlDeviceGetMigMode(d, &cur, &pend));
    CHECK(cur == 1 && pend == 1, "layout gpu mig mode %u/%u", cur, pend);
    nvmlGpuInstanceInfo_t info;
    OK(a->nvmlGpuInstanceGetInfo(gi_by_id(a, d, 7), &info));
    CHECK(info.profileId == 19 && info.placement.start == 0 && info.placement.size == 1 && info.device == d, "gi7");
    OK(a->nvmlGpuInstanceGetInfo(gi_by_id(a, d, 4), &info));
    CHECK(info.profileId == 15 && info.placement.start == 2 && info.placement.size == 2, "gi4");
    EXPECT(a->nvmlDeviceGetGpuInstanceById(d, 3, &(nvmlGpuInstance_t){0}), NVML_ERROR_NOT_FOUND);
    OK(a->nvmlDeviceGetMaxMigDeviceCount(d, &n));
    CHECK(n == 7, "max mig %u", n);
    OK(a->nvmlDeviceGetMigDeviceHandleByIndex(d, 0, &mig));
    unsigned is = 0;
    OK(a->nvmlDeviceIsMigDeviceHandle(mig, &is));
    CHECK(is == 1, "is mig");
    OK(a->nvmlDeviceIsMigDeviceHandle(d, &is));
    CHECK(is == 0, "is not mig");
    OK(a->nvmlDeviceGetGpuInstanceId(mig, &id));
    CHECK(id == 4, "mig0 gi %u", id);
    OK(a->nvmlDeviceGetComputeInstanceId(mig, &id));
    CHECK(id == 0, "mig0 ci %u", id);
    EXPECT(a->nvmlDeviceGetGpuInstanceId(d, &id), NVML_ERROR_NOT_SUPPORTED);
    OK(a->nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mig, &parent));
    CHECK(parent == d, "parent");
    OK(a->nvmlDeviceGetName(mig, buf, sizeof(buf)));
    CHECK(!strcmp(buf, "NVIDIA H100 80GB HBM3 MIG 1g.20gb"), "mig name %s", buf);
    OK(a->nvmlDeviceGetUUID(mig, buf, sizeof(buf)));
    CHECK(!strncmp(buf, "MIG-", 4) && strlen(buf) == 40, "mig uuid %s", buf);
    nvmlDevice_t again;
    OK(a->nvmlDeviceGetHandleByUUID(buf, &again));
    CHECK(again == mig, "mig by uuid");
    nvmlMemory_t m;
    OK(a->nvmlDeviceGetMemoryInfo(mig, &m));
    CHECK(m.total == 20096ULL << 20, "mig mem %llu", m.total);
    OK(a->nvmlDeviceGetMigDeviceHandleByIndex(d, 1, &mig));
    OK(a->nvmlDeviceGetGpuInstanceId(mig, &id));
    CHECK(id == 7, "mig1 gi %u", id);
    EXPECT(a->nvmlDeviceGetMigDeviceHandleByIndex(d, 2, &mig), NVML_ERROR_NOT_FOUND);
    OK(a->nvmlDeviceGetHandleByIndex_v2(2, &d));
    OK(a->nvmlGpuInstanceGetInfo(gi_by_id(a, d, 2), &info));
    CHECK(info.profileId == 9 && info.placement.start == 4, "gpu2 gi2");
    CHECK(exists("%s/%s/proc/driver/nvidia/capabilities/gpu1/mig/gi7/ci0/access", tmpdir, root), "caps gi7/ci0");
    /* minor of gpu1/gi4 = 3 + 1*135 + 4*9 = 174 */
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s/proc/driver/nvidia/capabilities/gpu1/mig/gi4/access", tmpdir, root);
    CHECK(file_contains(p, "DeviceFileMinor: 174\n"), "gi4 access minor");
    CHECK(exists("%s/%s/dev/nvidia-caps/nvidia-cap174", tmpdir, root), "cap node 174");
    CHECK(exists("%s/%s/dev/nvidia-caps/nvidia-cap175", tmpdir, root), "cap node 175 (ci0)");
}

/* The calls NVIDIA's stack makes or probes beyond Tessera's own, as a bare-metal H100 node's driver answers. */
static void test_bare_metal_calls(api_t *a)
{
    nvmlDevice_t d, mig, d2;
    OK(a->nvmlDeviceGetHandleByIndex_v2(1, &d));
    OK(a->nvmlDeviceGetMigDeviceHandleByIndex(d, 0, &mig)); /* GI 4: 1g.20gb, one CI spanning it */

    nvmlGpuVirtualizationMode_t vm = NVML_GPU_VIRTUALIZATION_MODE_VGPU;
    OK(a->nvmlDeviceGetVirtualizationMode(d, &vm));
    CHECK(vm == NVML_GPU_VIRTUALIZATION_MODE_NONE, "virtualization mode %d", vm);
    EXPECT(a->nvmlDeviceGetVirtualizationMode(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetVirtualizationMode(mig, &vm), NVML_ERROR_NOT_SUPPORTED);

    nvmlDeviceAttributes_t at;
    memset(&at, 0xff, sizeof(at));
    OK(a->nvmlDeviceGetAttributes_v2(mig, &at));
    CHECK(at.multiprocessorCount == 26 && at.sharedCopyEngineCount == 1 && at.sharedDecoderCount == 1 &&
              at.sharedEncoderCount == 0 && at.sharedJpegCount == 1 && at.sharedOfaCount == 0 &&
              at.gpuInstanceSliceCount == 1 && at.computeInstanceSliceCount == 1 && at.memorySizeMB == 20096,
          "1g.20gb attributes sm %u ce %u gi %u ci %u mem %llu", at.multiprocessorCount, at.sharedCopyEngineCount,
          at.gpuInstanceSliceCount, at.computeInstanceSliceCount, at.memorySizeMB);
    nvmlDeviceAttributes_t at1;
    OK(a->nvmlDeviceGetAttributes(mig, &at1));
    CHECK(!memcmp(&at, &at1, sizeof(at)), "v1 attributes == v2");
    EXPECT(a->nvmlDeviceGetAttributes_v2(d, &at), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetAttributes(d, &at), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetAttributes_v2(mig, NULL), NVML_ERROR_INVALID_ARGUMENT);
    OK(a->nvmlDeviceGetHandleByIndex_v2(2, &d2));
    nvmlDevice_t mig3g;
    OK(a->nvmlDeviceGetMigDeviceHandleByIndex(d2, 0, &mig3g)); /* GI 2: 3g.40gb */
    OK(a->nvmlDeviceGetAttributes_v2(mig3g, &at));
    CHECK(at.multiprocessorCount == 60 && at.sharedCopyEngineCount == 3 && at.sharedDecoderCount == 3 &&
              at.sharedJpegCount == 3 && at.gpuInstanceSliceCount == 3 && at.computeInstanceSliceCount == 3 &&
              at.memorySizeMB == 40448,
          "3g.40gb attributes sm %u gi %u ci %u mem %llu", at.multiprocessorCount, at.gpuInstanceSliceCount,
          at.computeInstanceSliceCount, at.memorySizeMB);

    nvmlDeviceAddressingMode_t am = {nvmlDeviceAddressingMode_v1, 99};
    OK(a->nvmlDeviceGetAddressingMode(d, &am));
    CHECK(am.value == NVML_DEVICE_ADDRESSING_MODE_HMM, "addressing mode %u", am.value);
    am.version = 0;
    EXPECT(a->nvmlDeviceGetAddressingMode(d, &am), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    EXPECT(a->nvmlDeviceGetAddressingMode(d, NULL), NVML_ERROR_INVALID_ARGUMENT);

    nvmlPciInfo_t p2, p3;
    OK(a->nvmlDeviceGetPciInfo_v2(d, &p2));
    OK(a->nvmlDeviceGetPciInfo_v3(d, &p3));
    CHECK(!memcmp(&p2, &p3, sizeof(p2)) && !strcmp(p2.busId, "00000000:2A:00.0") && p2.pciDeviceId == 0x233010DE,
          "pci v2 %s %x", p2.busId, p2.pciDeviceId);
    EXPECT(a->nvmlDeviceGetPciInfo_v2(d, NULL), NVML_ERROR_INVALID_ARGUMENT);

    nvmlReturn_t (*procs_v3[])(nvmlDevice_t, unsigned int *, nvmlProcessInfo_t *) = {
        a->nvmlDeviceGetComputeRunningProcesses_v3, a->nvmlDeviceGetGraphicsRunningProcesses_v3,
        a->nvmlDeviceGetMPSComputeRunningProcesses_v3};
    nvmlReturn_t (*procs_v2[])(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v2_t *) = {
        a->nvmlDeviceGetComputeRunningProcesses_v2, a->nvmlDeviceGetGraphicsRunningProcesses_v2,
        a->nvmlDeviceGetMPSComputeRunningProcesses_v2};
    for (int i = 0; i < 3; i++) {
        nvmlProcessInfo_t infos[4];
        unsigned n = 4;
        OK(procs_v3[i](d, &n, infos));
        CHECK(n == 0, "processes v3 #%d: %u", i, n);
        n = 0;
        OK(procs_v3[i](d, &n, NULL)); /* the sizing call */
        CHECK(n == 0, "processes v3 sizing #%d: %u", i, n);
        n = 4;
        OK(procs_v2[i](mig, &n, infos));
        CHECK(n == 0, "processes v2 on a MIG device #%d: %u", i, n);
        EXPECT(procs_v2[i](d, NULL, infos), NVML_ERROR_INVALID_ARGUMENT);
        EXPECT(procs_v3[i](NULL, &n, infos), NVML_ERROR_INVALID_ARGUMENT);
    }

    nvmlDriverModel_t cur, pend;
    EXPECT(a->nvmlDeviceGetDriverModel_v2(d, &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetDriverModel_v2(d, NULL, NULL), NVML_ERROR_INVALID_ARGUMENT);

    nvmlReturn_t (*grid[])(nvmlDevice_t, nvmlGridLicensableFeatures_t *) = {
        a->nvmlDeviceGetGridLicensableFeatures_v2, a->nvmlDeviceGetGridLicensableFeatures_v3,
        a->nvmlDeviceGetGridLicensableFeatures_v4};
    for (int i = 0; i < 3; i++) {
        nvmlGridLicensableFeatures_t f;
        memset(&f, 0x5a, sizeof(f));
        OK(grid[i](d, &f));
        CHECK(f.isGridLicenseSupported == 0 && f.licensableFeaturesCount == 0, "grid features v%d", i + 2);
        CHECK(f.gridLicensableFeatures[0].featureCode == (nvmlGridLicenseFeatureCode_t)0x5a5a5a5a,
              "grid features v%d writes only the leading fields", i + 2);
        EXPECT(grid[i](d, NULL), NVML_ERROR_INVALID_ARGUMENT);
    }

    nvmlPciInfo_t remote;
    EXPECT(a->nvmlDeviceGetNvLinkRemotePciInfo_v2(d, 0, &remote), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetNvLinkRemotePciInfo_v2(d, 17, &remote), NVML_ERROR_NOT_SUPPORTED);
    EXPECT(a->nvmlDeviceGetNvLinkRemotePciInfo_v2(d, NVML_NVLINK_MAX_LINKS, &remote), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetNvLinkRemotePciInfo_v2(d, 0, NULL), NVML_ERROR_INVALID_ARGUMENT);

    nvmlVgpuLicenseInfo_t li;
    EXPECT(a->nvmlVgpuInstanceGetLicenseInfo_v2(0, &li), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlVgpuInstanceGetLicenseInfo_v2(1, NULL), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlVgpuInstanceGetLicenseInfo_v2(1, &li), NVML_ERROR_NOT_FOUND);
}

/* The sysfs files mock-nvml-setup writes say what NVML says: vendor and device id, NUMA node. */
static void test_sysfs_matches_nvml(api_t *a, const char *root)
{
    unsigned n = 0;
    OK(a->nvmlDeviceGetCount_v2(&n));
    for (unsigned i = 0; i < n; i++) {
        nvmlDevice_t d;
        nvmlPciInfo_t pci;
        unsigned node = 99;
        OK(a->nvmlDeviceGetHandleByIndex_v2(i, &d));
        OK(a->nvmlDeviceGetPciInfo_v3(d, &pci));
        OK(a->nvmlDeviceGetNumaNodeId(d, &node));
        char dir[1024], p[1100], want[32];
        snprintf(dir, sizeof(dir), "%s/%s/sys/bus/pci/devices/%04x:%02x:00.0", tmpdir, root, pci.domain, pci.bus);
        snprintf(p, sizeof(p), "%s/numa_node", dir);
        snprintf(want, sizeof(want), "%u\n", node);
        CHECK(file_contains(p, want), "gpu %u: %s says NUMA %u", i, p, node);
        snprintf(p, sizeof(p), "%s/vendor", dir);
        snprintf(want, sizeof(want), "0x%04x\n", pci.pciDeviceId & 0xffffu);
        CHECK(file_contains(p, want) && !strcmp(want, "0x10de\n"), "gpu %u vendor", i);
        snprintf(p, sizeof(p), "%s/device", dir);
        snprintf(want, sizeof(want), "0x%04x\n", pci.pciDeviceId >> 16);
        CHECK(file_contains(p, want), "gpu %u device %s", i, want);
    }
    CHECK(n == 8, "8 GPUs");
}

static void test_mig_lifecycle(api_t *a, const char *root)
{
    nvmlDevice_t d;
    nvmlGpuInstance_t gi_a, gi_b, gi_c, gi_me;
    nvmlComputeInstance_t ci;
    unsigned cnt;
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d));
    OK(a->nvmlDeviceGetGpuInstanceRemainingCapacity(d, 19, &cnt));
    CHECK(cnt == 7, "remaining 1g %u", cnt);
    OK(a->nvmlDeviceGetGpuInstanceRemainingCapacity(d, 15, &cnt));
    CHECK(cnt == 4, "remaining 1g.20gb %u", cnt);
    OK(a->nvmlDeviceCreateGpuInstance(d, 9, &gi_a));
    nvmlGpuInstanceInfo_t info;
    OK(a->nvmlGpuInstanceGetInfo(gi_a, &info));
    CHECK(info.id == 2 && info.placement.start == 4, "auto placement id %u start %u", info.id, info.placement.start);
    nvmlGpuInstancePlacement_t pl = {0, 4};
    OK(a->nvmlDeviceCreateGpuInstanceWithPlacement(d, 9, &pl, &gi_b));
    OK(a->nvmlGpuInstanceGetInfo(gi_b, &info));
    CHECK(info.id == 1, "placed id %u", info.id);
    EXPECT(a->nvmlDeviceCreateGpuInstance(d, 9, &gi_c), NVML_ERROR_INSUFFICIENT_RESOURCES);
    EXPECT(a->nvmlDeviceCreateGpuInstance(d, 19, &gi_c), NVML_ERROR_INSUFFICIENT_RESOURCES);
    OK(a->nvmlDeviceGetGpuInstanceRemainingCapacity(d, 19, &cnt));
    CHECK(cnt == 0, "remaining full %u", cnt);
    pl = (nvmlGpuInstancePlacement_t){7, 1};
    EXPECT(a->nvmlDeviceCreateGpuInstanceWithPlacement(d, 19, &pl, &gi_c), NVML_ERROR_INVALID_ARGUMENT);
    pl = (nvmlGpuInstancePlacement_t){0, 2};
    EXPECT(a->nvmlDeviceCreateGpuInstanceWithPlacement(d, 19, &pl, &gi_c), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceCreateGpuInstance(d, 77, &gi_c), NVML_ERROR_INVALID_ARGUMENT);
    nvmlGpuInstance_t list[8];
    OK(a->nvmlDeviceGetGpuInstances(d, 9, list, &cnt));
    CHECK(cnt == 2 && list[0] == gi_b && list[1] == gi_a, "list 3g %u", cnt);

    /* compute instances */
    nvmlComputeInstanceProfileInfo_t cpi;
    OK(a->nvmlGpuInstanceGetComputeInstanceProfileInfo(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, 0, &cpi));
    CHECK(cpi.id == 0 && cpi.sliceCount == 1 && cpi.instanceCount == 3, "ci 1c: %u %u", cpi.sliceCount, cpi.instanceCount);
    EXPECT(a->nvmlGpuInstanceGetComputeInstanceProfileInfo(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE, 0, &cpi),
           NVML_ERROR_NOT_SUPPORTED);
    nvmlComputeInstanceProfileInfo_v2_t cv2 = {.version = nvmlComputeInstanceProfileInfo_v2};
    OK(a->nvmlGpuInstanceGetComputeInstanceProfileInfoV(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE, 0, &cv2));
    CHECK(!strcmp(cv2.name, "MIG 3g.40gb") && cv2.multiprocessorCount == 60, "ci v2 %s", cv2.name);
    OK(a->nvmlGpuInstanceGetComputeInstanceProfileInfoV(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, 0, &cv2));
    CHECK(!strcmp(cv2.name, "MIG 1c.3g.40gb"), "ci v2 %s", cv2.name);
    cv2.version = 7;
    EXPECT(a->nvmlGpuInstanceGetComputeInstanceProfileInfoV(gi_a, 0, 0, &cv2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
    OK(a->nvmlGpuInstanceCreateComputeInstance(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, &ci));
    OK(a->nvmlGpuInstanceGetComputeInstanceRemainingCapacity(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE, &cnt));
    CHECK(cnt == 2, "ci remaining %u", cnt);
    OK(a->nvmlGpuInstanceGetComputeInstanceRemainingCapacity(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE, &cnt));
    CHECK(cnt == 0, "ci 3c remaining %u", cnt);
    EXPECT(a->nvmlGpuInstanceCreateComputeInstance(gi_a, NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE, &(nvmlComputeInstance_t){0}),
           NVML_ERROR_INSUFFICIENT_RESOURCES);
    nvmlComputeInstanceInfo_t cinfo;
    OK(a->nvmlComputeInstanceGetInfo_v2(ci, &cinfo));
    CHECK(cinfo.device == d && cinfo.gpuInstance == gi_a && cinfo.id == 0 && cinfo.profileId == 0 &&
          cinfo.placement.size == 1, "ci info");
    nvmlComputeInstance_t cis[8];
    OK(a->nvmlGpuInstanceGetComputeInstances(gi_a, 0, cis, &cnt));
    CHECK(cnt == 1 && cis[0] == ci, "ci list");
    nvmlComputeInstance_t ci_again;
    OK(a->nvmlGpuInstanceGetComputeInstanceById(gi_a, 0, &ci_again));
    CHECK(ci_again == ci, "ci by id");
    /* minors: gpu0/gi2 = 3 + 2*9 = 21, ci0 = 22 */
    char p[1024];
    snprintf(p, sizeof(p), "%s/%s/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access", tmpdir, root);
    CHECK(file_contains(p, "DeviceFileMinor: 22\n"), "ci caps access");
    CHECK(exists("%s/%s/dev/nvidia-caps/nvidia-cap21", tmpdir, root), "gi cap node");
    nvmlDevice_t mig;
    unsigned is;
    OK(a->nvmlDeviceGetMigDeviceHandleByIndex(d, 0, &mig));
    OK(a->nvmlDeviceIsMigDeviceHandle(mig, &is));
    char name[128];
    OK(a->nvmlDeviceGetName(mig, name, sizeof(name)));
    CHECK(!strcmp(name, "NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb"), "mig name %s", name);

    EXPECT(a->nvmlGpuInstanceDestroy(gi_a), NVML_ERROR_IN_USE);
    OK(a->nvmlComputeInstanceDestroy(ci));
    EXPECT(a->nvmlComputeInstanceDestroy(ci), NVML_ERROR_INVALID_ARGUMENT);
    EXPECT(a->nvmlDeviceGetName(mig, name, sizeof(name)), NVML_ERROR_INVALID_ARGUMENT);
    CHECK(!exists("%s/%s/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access", tmpdir, root), "ci caps removed");
    OK(a->nvmlGpuInstanceDestroy(gi_a));
    CHECK(!exists("%s/%s/dev/nvidia-caps/nvidia-cap21", tmpdir, root), "gi cap node removed");
    EXPECT(a->nvmlGpuInstanceGetInfo(gi_a, &info), NVML_ERROR_INVALID_ARGUMENT);
    OK(a->nvmlGpuInstanceDestroy(gi_b));

    /* +me: at most one instance */
    OK(a->nvmlDeviceCreateGpuInstance(d, 20, &gi_me));
    EXPECT(a->nvmlDeviceCreateGpuInstance(d, 20, &gi_c), NVML_ERROR_INSUFFICIENT_RESOURCES);
    OK(a->nvmlDeviceGetGpuInstanceRemainingCapacity(d, 20, &cnt));
    CHECK(cnt == 0, "+me remaining %u", cnt);
    OK(a->nvmlGpuInstanceDestroy(gi_me));

    /* leave a 4g.40gb GI with a full CI for the persistence tests */
    pl = (nvmlGpuInstancePlacement_t){0, 4};
    OK(a->nvmlDeviceCreateGpuInstanceWithPlacement(d, 5, &pl, &gi_c));
    OK(a->nvmlGpuInstanceCreateComputeInstance(gi_c, NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE, &ci));

    /* MIG mode */
    nvmlReturn_t act = NVML_ERROR_UNKNOWN;
    unsigned cur, pend;
    EXPECT(a->nvmlDeviceSetMigMode(d, NVML_DEVICE_MIG_DISABLE, &act), NVML_ERROR_IN_USE);
    OK(a->nvmlDeviceGetHandleByIndex_v2(3, &d));
    EXPECT(a->nvmlDeviceCreateGpuInstance(d, 19, &gi_c), NVML_ERROR_NOT_SUPPORTED);
    OK(a->nvmlDeviceGetMaxMigDeviceCount(d, &cnt));
    CHECK(cnt == 0, "max mig with MIG off %u", cnt);
    OK(a->nvmlDeviceSetMigMode(d, NVML_DEVICE_MIG_ENABLE, &act));
    OK(a->nvmlDeviceGetMigMode(d, &cur, &pend));
    CHECK(act == NVML_SUCCESS && cur == 1 && pend == 1, "hopper mig enable act=%d %u/%u", act, cur, pend);
}

static void test_persistence(api_t *a)
{
    nvmlDevice_t d0, d3, d0b;
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d0));
    char uuid[96], uuid2[96];
    OK(a->nvmlDeviceGetUUID(d0, uuid, sizeof(uuid)));
    /* refcount: init twice, shutdown once -> still initialized */
    OK(a->nvmlInit_v2());
    OK(a->nvmlShutdown());
    unsigned n;
    OK(a->nvmlDeviceGetCount_v2(&n));
    OK(a->nvmlShutdown());
    EXPECT(a->nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
    EXPECT(a->nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
    OK(a->nvmlInitWithFlags(0));
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d0b));
    CHECK(d0b == d0, "handles stable across re-init");
    OK(a->nvmlDeviceGetUUID(d0, uuid2, sizeof(uuid2)));
    CHECK(!strcmp(uuid, uuid2), "uuid stable");
    nvmlGpuInstance_t gi = gi_by_id(a, d0, 1);
    nvmlGpuInstanceInfo_t info;
    OK(a->nvmlGpuInstanceGetInfo(gi, &info));
    CHECK(info.profileId == 5, "GI survived re-init (profile %u)", info.profileId);
    unsigned cur, pend;
    OK(a->nvmlDeviceGetHandleByIndex_v2(3, &d3));
    OK(a->nvmlDeviceGetMigMode(d3, &cur, &pend));
    CHECK(cur == 1, "MIG mode survived re-init");
    nvmlComputeMode_t cm;
    nvmlDevice_t d1;
    OK(a->nvmlDeviceGetHandleByIndex_v2(1, &d1));
    OK(a->nvmlDeviceGetComputeMode(d1, &cm));
    CHECK(cm == NVML_COMPUTEMODE_EXCLUSIVE_PROCESS, "compute mode survived");
}

/* Runs in a separate process (fork+exec): sees the parent's state, and makes a change. */
static int child_main(const char *root)
{
    api_t a;
    load(&a, root);
    nvmlDevice_t d;
    OK(a.nvmlInit_v2());
    OK(a.nvmlDeviceGetHandleByIndex_v2(0, &d));
    nvmlGpuInstance_t gi;
    OK(a.nvmlDeviceGetGpuInstanceById(d, 1, &gi));
    nvmlComputeInstance_t ci;
    OK(a.nvmlGpuInstanceGetComputeInstanceById(gi, 0, &ci));
    OK(a.nvmlDeviceGetHandleByIndex_v2(3, &d));
    OK(a.nvmlDeviceCreateGpuInstance(d, 0, &gi));   /* 7g.80gb on GPU 3 */
    OK(a.nvmlShutdown());
    return failures ? 1 : 0;
}

static void test_second_process(api_t *a, const char *root)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "mock_nvml_test", "--child", tmpdir, root, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child process status %d", status);
    /* The parent (still initialized) observes the child's change through the state file. */
    nvmlDevice_t d;
    OK(a->nvmlDeviceGetHandleByIndex_v2(3, &d));
    nvmlGpuInstance_t gi = gi_by_id(a, d, 0);
    nvmlGpuInstanceInfo_t info;
    OK(a->nvmlGpuInstanceGetInfo(gi, &info));
    CHECK(info.profileId == 0 && info.placement.size == 8, "child-created 7g GI visible");
}

static void test_faults(api_t *a, const char *root)
{
    nvmlDevice_t d;
    char buf[128], path[1024];
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d));
    append(root, "etc/mock-nvml/faults", "nvmlDeviceGetName 15 2\nnvmlDeviceGetUUID NVML_ERROR_GPU_IS_LOST\n");
    EXPECT(a->nvmlDeviceGetName(d, buf, sizeof(buf)), NVML_ERROR_GPU_IS_LOST);
    EXPECT(a->nvmlDeviceGetName(d, buf, sizeof(buf)), NVML_ERROR_GPU_IS_LOST);
    OK(a->nvmlDeviceGetName(d, buf, sizeof(buf)));
    EXPECT(a->nvmlDeviceGetUUID(d, buf, sizeof(buf)), NVML_ERROR_GPU_IS_LOST);
    EXPECT(a->nvmlDeviceGetUUID(d, buf, sizeof(buf)), NVML_ERROR_GPU_IS_LOST);
    snprintf(path, sizeof(path), "%s/%s/etc/mock-nvml/faults", tmpdir, root);
    CHECK(file_contains(path, "nvmlDeviceGetName 15 0\n"), "count persisted");
    CHECK(file_contains(path, "# <nvmlSymbol>"), "comments kept");
    sh("printf 'nvmlInit_v2 9 1\\n' > '%s'", path);
    OK(a->nvmlDeviceGetUUID(d, buf, sizeof(buf)));
    OK(a->nvmlShutdown());
    EXPECT(a->nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
    OK(a->nvmlInit_v2());
    CHECK(!strcmp(a->nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost"), "error string 15");
}

struct appender { const char *root; const char *line; unsigned delay_ms; };
static void *append_later(void *arg)
{
    struct appender *ap = arg;
    usleep(ap->delay_ms * 1000);
    append(ap->root, "var/lib/mock-nvml/events", ap->line);
    return NULL;
}

static void test_events(api_t *a, const char *root)
{
    nvmlDevice_t d0, d1;
    nvmlEventSet_t set;
    nvmlEventData_t ev;
    unsigned long long types = 0;
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d0));
    OK(a->nvmlDeviceGetHandleByIndex_v2(1, &d1));
    append(root, "var/lib/mock-nvml/events", "0 xid 13\n");   /* before the set exists: not delivered */
    OK(a->nvmlEventSetCreate(&set));
    OK(a->nvmlDeviceGetSupportedEventTypes(d0, &types));
    CHECK(types & nvmlEventTypeXidCriticalError, "xid supported");
    OK(a->nvmlDeviceRegisterEvents(d0, nvmlEventTypeXidCriticalError, set));
    long long t0 = now_ms();
    EXPECT(a->nvmlEventSetWait_v2(set, &ev, 60), NVML_ERROR_TIMEOUT);
    CHECK(now_ms() - t0 >= 55, "waited %lld ms", now_ms() - t0);
    append(root, "var/lib/mock-nvml/events", "1 xid 31\n0 dbe 0\n0 xid 79\n");
    OK(a->nvmlEventSetWait_v2(set, &ev, 100));
    CHECK(ev.device == d0 && ev.eventType == nvmlEventTypeXidCriticalError && ev.eventData == 79 &&
          ev.gpuInstanceId == 0xFFFFFFFFu && ev.computeInstanceId == 0xFFFFFFFFu, "xid 79 event data %llu", ev.eventData);
    EXPECT(a->nvmlEventSetWait_v2(set, &ev, 20), NVML_ERROR_TIMEOUT);   /* consumed once */
    append(root, "var/lib/mock-nvml/events", "0 gpu_lost\n0 xid 43 1 0\n");
    OK(a->nvmlEventSetWait_v2(set, &ev, 100));
    CHECK(ev.eventData == 79, "gpu_lost -> xid %llu", ev.eventData);
    OK(a->nvmlEventSetWait_v2(set, &ev, 100));
    CHECK(ev.eventData == 43 && ev.gpuInstanceId == 1 && ev.computeInstanceId == 0, "xid with gi/ci");
    /* delivered while waiting */
    OK(a->nvmlDeviceRegisterEvents(d1, nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError, set));
    struct appender ap = {root, "1 dbe 0\n", 100};
    pthread_t th;
    pthread_create(&th, NULL, append_later, &ap);
    t0 = now_ms();
    OK(a->nvmlEventSetWait_v2(set, &ev, 3000));
    pthread_join(th, NULL);
    CHECK(ev.device == d1 && ev.eventType == nvmlEventTypeDoubleBitEccError && now_ms() - t0 < 2000, "dbe on gpu1");
    EXPECT(a->nvmlDeviceRegisterEvents(d0, 1ULL << 40, set), NVML_ERROR_NOT_SUPPORTED);
    OK(a->nvmlEventSetFree(set));
    EXPECT(a->nvmlEventSetFree(set), NVML_ERROR_INVALID_ARGUMENT);
}

struct hammer { api_t *a; int errors; };
static void *hammer_reads(void *arg)
{
    struct hammer *h = arg;
    for (int i = 0; i < 2000; i++) {
        nvmlDevice_t d;
        char name[96];
        unsigned cur, pend;
        if (h->a->nvmlDeviceGetHandleByIndex_v2((unsigned)i % 8, &d) != NVML_SUCCESS ||
            h->a->nvmlDeviceGetName(d, name, sizeof(name)) != NVML_SUCCESS ||
            h->a->nvmlDeviceGetMigMode(d, &cur, &pend) != NVML_SUCCESS)
            h->errors++;
    }
    return NULL;
}

/* One mutex guards the state: concurrent readers while GIs are created and destroyed. */
static void test_threads(api_t *a)
{
    pthread_t th[4];
    struct hammer h[4];
    for (int i = 0; i < 4; i++) {
        h[i] = (struct hammer){a, 0};
        pthread_create(&th[i], NULL, hammer_reads, &h[i]);
    }
    nvmlDevice_t d;
    OK(a->nvmlDeviceGetHandleByIndex_v2(4, &d));
    nvmlReturn_t act;
    OK(a->nvmlDeviceSetMigMode(d, NVML_DEVICE_MIG_ENABLE, &act));
    int bad = 0;
    for (int i = 0; i < 50; i++) {
        nvmlGpuInstance_t gi;
        bad += a->nvmlDeviceCreateGpuInstance(d, 19, &gi) != NVML_SUCCESS;
        bad += a->nvmlGpuInstanceDestroy(gi) != NVML_SUCCESS;
    }
    CHECK(bad == 0, "create/destroy under load: %d errors", bad);
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK(h[i].errors == 0, "reader %d: %d errors", i, h[i].errors);
    }
}

static void test_a100(api_t *a, const char *root)
{
    nvmlDevice_t d;
    char buf[128];
    unsigned cur, pend;
    nvmlReturn_t act = NVML_SUCCESS;
    OK(a->nvmlInit_v2());
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d));
    OK(a->nvmlDeviceGetName(d, buf, sizeof(buf)));
    CHECK(!strcmp(buf, "NVIDIA A100-SXM4-40GB"), "a100 name %s", buf);
    nvmlPciInfo_t pci;
    OK(a->nvmlDeviceGetPciInfo_v3(d, &pci));
    CHECK(!strcmp(pci.busId, "00000000:07:00.0"), "a100 bus %s", pci.busId);
    test_profiles(a, 0, 1, 7, 25, "MIG 1g.10gb");
    OK(a->nvmlDeviceGetMigMode(d, &cur, &pend));
    CHECK(cur == 0 && pend == 0, "a100 mig off");
    OK(a->nvmlDeviceSetMigMode(d, NVML_DEVICE_MIG_ENABLE, &act));
    OK(a->nvmlDeviceGetMigMode(d, &cur, &pend));
    CHECK(act == NVML_ERROR_RESET_REQUIRED && cur == 0 && pend == 1, "ampere pending: act=%d %u/%u", act, cur, pend);
    EXPECT(a->nvmlDeviceCreateGpuInstance(d, 19, &(nvmlGpuInstance_t){0}), NVML_ERROR_NOT_SUPPORTED);
    /* the stand-in nvidia-smi models a GPU reset */
    sh("'%s/%s/usr/bin/nvidia-smi' -r -i 0", tmpdir, root);
    OK(a->nvmlDeviceGetMigMode(d, &cur, &pend));
    CHECK(cur == 1 && pend == 1, "after reset %u/%u", cur, pend);
    nvmlGpuInstance_t gi;
    OK(a->nvmlDeviceCreateGpuInstance(d, 19, &gi));
    nvmlGpuInstanceInfo_t info;
    OK(a->nvmlGpuInstanceGetInfo(gi, &info));
    CHECK(info.id == 13 && info.placement.start == 6, "a100 1g.5gb id %u", info.id);
    OK(a->nvmlShutdown());
}

/* The nvidia-smi stand-in changes compute mode and time-slice in the state file, keyed by index or
 * UUID, and the library sees the change like a setting made on the hardware. */
static void test_nvidia_smi(api_t *a, const char *root)
{
    nvmlDevice_t d;
    char uuid[96], p[1024];
    OK(a->nvmlInit_v2());
    OK(a->nvmlDeviceGetHandleByIndex_v2(1, &d));
    OK(a->nvmlDeviceGetUUID(d, uuid, sizeof(uuid)));
    CHECK(sh_rc("'%s/%s/usr/bin/nvidia-smi' -i %s -c EXCLUSIVE_PROCESS", tmpdir, root, uuid) == 0, "smi -c by uuid");
    nvmlComputeMode_t cm;
    OK(a->nvmlDeviceGetComputeMode(d, &cm));
    CHECK(cm == NVML_COMPUTEMODE_EXCLUSIVE_PROCESS, "compute mode set by nvidia-smi: %d", cm);
    CHECK(sh_rc("'%s/%s/usr/bin/nvidia-smi' compute-policy -i %s --set-timeslice 3", tmpdir, root, uuid) == 0,
          "smi timeslice");
    snprintf(p, sizeof(p), "%s/%s/var/lib/mock-nvml/state", tmpdir, root);
    char want[160];
    snprintf(want, sizeof(want), "gpu 1 0 0 3 3 %s\n", uuid);
    CHECK(file_contains(p, want), "timeslice and compute mode in state");
    /* A library save keeps the time-slice it did not set itself. */
    OK(a->nvmlDeviceSetComputeMode(d, NVML_COMPUTEMODE_DEFAULT));
    snprintf(want, sizeof(want), "gpu 1 0 0 0 3 %s\n", uuid);
    CHECK(file_contains(p, want), "timeslice survives a library save");
    CHECK(sh_rc("'%s/%s/usr/bin/nvidia-smi' -i 0 -c DEFAULT 2>/dev/null", tmpdir, root) == 0, "smi by index");
    CHECK(sh_rc("'%s/%s/usr/bin/nvidia-smi' -i GPU-nope -c DEFAULT 2>/dev/null", tmpdir, root) != 0, "unknown uuid");
    CHECK(sh_rc("'%s/%s/usr/bin/nvidia-smi' compute-policy -i 0 --set-timeslice 9 2>/dev/null", tmpdir, root) != 0,
          "bad timeslice");
    OK(a->nvmlShutdown());
}

/* A root laid out at one path and used from another (a plugin container mounts the host's driver root
 * at /driver-root): state, capability files and events follow where the library is loaded from. */
static void test_moved_root(void)
{
    make_root("laid-out-here", "--profile A100-SXM4-40GB --gpus 1 --seed node-e --mig-enabled all --mig '0:9@0'");
    sh("mv '%s/laid-out-here' '%s/seen-there'", tmpdir, tmpdir);
    api_t a;
    load(&a, "seen-there");
    OK(a.nvmlInit_v2());
    CHECK(exists("%s/seen-there/var/lib/mock-nvml/state", tmpdir), "state written under the root as seen");
    CHECK(exists("%s/seen-there/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", tmpdir),
          "capability files under the root as seen");
    CHECK(!exists("%s/laid-out-here", tmpdir), "nothing written where the root was laid out");
    OK(a.nvmlShutdown());
}

static void test_l40s(api_t *a)
{
    nvmlDevice_t d;
    char buf[128];
    int maj, min;
    unsigned n;
    long long t0 = now_ms();
    OK(a->nvmlInit_v2());
    OK(a->nvmlDeviceGetCount_v2(&n));
    CHECK(now_ms() - t0 >= 100, "delay_ms applied (%lld ms)", now_ms() - t0);
    OK(a->nvmlDeviceGetHandleByIndex_v2(0, &d));
    OK(a->nvmlDeviceGetName(d, buf, sizeof(buf)));
    CHECK(!strcmp(buf, "NVIDIA L40S"), "l40s name %s", buf);
    OK(a->nvmlDeviceGetCudaComputeCapability(d, &maj, &min));
    CHECK(maj == 8 && min == 9, "l40s cc");
    test_profiles(a, 0, 0, 0, 0, "");
    nvmlReturn_t act;
    EXPECT(a->nvmlDeviceSetMigMode(d, 1, &act), NVML_ERROR_NOT_SUPPORTED);
    OK(a->nvmlDeviceGetMaxMigDeviceCount(d, &n));
    CHECK(n == 0, "l40s max mig");
    OK(a->nvmlShutdown());
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--child")) {
        snprintf(tmpdir, sizeof(tmpdir), "%s", argv[2]);
        return child_main(argv[3]);
    }
    if (argc != 3) {
        fprintf(stderr, "usage: %s <libnvidia-ml.so.1> <mock-nvml-setup>\n", argv[0]);
        return 2;
    }
    snprintf(built_lib, sizeof(built_lib), "%s", argv[1]);
    snprintf(setup_script, sizeof(setup_script), "%s", argv[2]);
    unsetenv("MOCK_NVML_CONFIG");
    snprintf(tmpdir, sizeof(tmpdir), "%s/mock-nvml-test.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }

    make_root("h100", "--profile H100-SXM5-80GB --gpus 8 --seed node-a --mig-enabled 0,1 --mig '1:19@0,15@2;2:9@4'");
    make_root("a100", "--profile A100-SXM4-40GB --gpus 2 --seed node-b");
    make_root("l40s", "--profile L40S --gpus 4 --seed node-c");
    make_root("nocfg", "--profile L40S --gpus 1 --seed node-d");
    append("l40s", "etc/mock-nvml/config", "delay_ms.nvmlDeviceGetCount_v2=100\n");
    sh("rm -f '%s/nocfg/etc/mock-nvml/config'", tmpdir);

    api_t h100, a100, l40s, nocfg;
    load(&h100, "h100");
    load(&a100, "a100");
    load(&l40s, "l40s");
    load(&nocfg, "nocfg");
    CHECK(h100.nvmlInit_v2 != a100.nvmlInit_v2, "each root is its own library instance");

    EXPECT(nocfg.nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
    CHECK(!strcmp(nocfg.nvmlErrorString(NVML_ERROR_DRIVER_NOT_LOADED), "Driver Not Loaded"), "error string 9");

    test_h100_attributes(&h100);
    test_profiles(&h100, 0, 1, 7, 25, "MIG 1g.20gb");
    test_initial_layout(&h100, "h100");
    test_bare_metal_calls(&h100);
    test_telemetry(&h100, "h100");
    test_sysfs_matches_nvml(&h100, "h100");
    test_mig_lifecycle(&h100, "h100");
    test_persistence(&h100);
    test_second_process(&h100, "h100");
    test_faults(&h100, "h100");
    test_events(&h100, "h100");
    test_threads(&h100);
    OK(h100.nvmlShutdown());
    test_a100(&a100, "a100");
    test_nvidia_smi(&a100, "a100");
    test_l40s(&l40s);
    test_moved_root();

    /* Re-running setup keeps the MIG state. */
    make_root("h100", "--profile H100-SXM5-80GB --gpus 8 --seed node-a");
    char p[1024];
    snprintf(p, sizeof(p), "%s/h100/var/lib/mock-nvml/state", tmpdir);
    CHECK(file_contains(p, "gi 0 1 5 0 4\n"), "state kept across setup re-run");

    if (failures == 0)
        sh("rm -rf '%s'", tmpdir);
    else
        fprintf(stderr, "keeping %s for inspection\n", tmpdir);
    printf("mock_nvml_test: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
