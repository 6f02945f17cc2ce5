/* mock.h - internal types shared by the mock-nvml sources. */
#ifndef MOCK_NVML_MOCK_H
#define MOCK_NVML_MOCK_H

#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>
#include "nvml_abi.h"

#define MOCK_MAX_GPUS 16
#define MOCK_MAX_GI 15      /* GPU instance ids 0..14 (heap numbering of the 8 memory slices) */
#define MOCK_MAX_CI 8       /* compute instance ids 0..7 */
#define MOCK_COMPUTE_SLICES 7
#define MOCK_MEM_SLICES 8
#define MOCK_MAX_DELAYS 32
#define MOCK_MAX_FAULTS 64
#define MOCK_MAX_TELEMETRY 256
#define MOCK_MAX_PROCS 64
#define MOCK_MAGIC 0x4d4e564dU

enum { MOCK_H_GPU = 1, MOCK_H_MIGDEV, MOCK_H_GI, MOCK_H_CI, MOCK_H_EVSET };

struct nvmlDevice_st { unsigned magic; int kind; int gpu; int gi; int ci; };
struct nvmlGpuInstance_st { unsigned magic; int kind; int gpu; int id; };
struct nvmlComputeInstance_st { unsigned magic; int kind; int gpu; int gi; int id; };

/* ---- profiles.c: static hardware tables ---- */
typedef struct {
    unsigned index;               /* NVML_GPU_INSTANCE_PROFILE_* */
    unsigned id;                  /* profile id reported in nvmlGpuInstanceProfileInfo_t.id */
    const char *name;             /* e.g. "1g.10gb" (reported as "MIG 1g.10gb") */
    unsigned slices, instances, sm, ce, dec, enc, jpeg, ofa;
    unsigned long long mem_mb;
    unsigned psize;               /* placement size, in memory slices */
    unsigned nstarts;
    unsigned starts[8];
} mock_gi_profile;

typedef struct {
    const char *key;              /* config name, e.g. "H100-SXM5-80GB" */
    const char *name;             /* nvmlDeviceGetName */
    unsigned arch, brand;
    int cc_major, cc_minor;
    unsigned long long mem_mib;
    unsigned pci_device_id, pci_subsys_id;
    const unsigned char *bus;     /* 8 PCI bus numbers */
    unsigned sm_per_slice;        /* SMs of one compute slice (sub-GI compute instances) */
    const mock_gi_profile *gi;    /* NULL: no MIG */
    unsigned ngi;
} mock_gpu_profile;

const mock_gpu_profile *mock_find_profile(const char *key);
const mock_gi_profile *mock_gi_by_index(const mock_gpu_profile *p, unsigned index);
const mock_gi_profile *mock_gi_by_id(const mock_gpu_profile *p, unsigned id);
unsigned mock_ci_slices(unsigned ci_profile);   /* 0 when not a modelled CI profile */
unsigned mock_ci_starts(unsigned ci_slices, unsigned gi_slices, unsigned *out);
unsigned mock_gi_id_for(unsigned start, unsigned psize);

/* ---- runtime state ---- */
typedef struct {
    int live;
    unsigned profile;             /* CI profile id (== NVML_COMPUTE_INSTANCE_PROFILE_* index) */
    unsigned start, size;
    struct nvmlComputeInstance_st h;
    struct nvmlDevice_st migdev;
    char uuid[48];
} mock_ci;

typedef struct {
    int live;
    const mock_gi_profile *prof;
    unsigned start, size;
    struct nvmlGpuInstance_st h;
    mock_ci ci[MOCK_MAX_CI];
} mock_gi;

typedef struct {
    struct nvmlDevice_st dev;
    unsigned mig_current, mig_pending, compute_mode;
    unsigned timeslice; /* nvidia-smi compute-policy --set-timeslice 0..3; set by the nvidia-smi stand-in */
    char uuid[48];
    mock_gi gi[MOCK_MAX_GI];
} mock_gpu;

typedef struct { char sym[96]; unsigned ms; } mock_delay;

typedef struct {
    char profile[64];
    unsigned gpus;
    char seed[128];
    char driver_version[32];
    int cuda_version;
    char root[PATH_MAX];
    char state_file[PATH_MAX];
    char faults_file[PATH_MAX];
    char events_file[PATH_MAX];
    char telemetry_file[PATH_MAX];
    char mig_enabled[256];
    char mig_layout[1024];
    mock_delay delays[MOCK_MAX_DELAYS];
    int ndelays;
} mock_config;

typedef struct { int valid; dev_t dev; ino_t ino; off_t size; struct timespec mtime; } mock_stamp;

typedef struct { char sym[96]; int code; long count; /* -1: always */ } mock_fault;

/* ---- telemetry.c: values and processes from telemetry_file ---- */
enum {
    MOCK_T_GPU_UTIL, MOCK_T_MEMORY_UTIL, MOCK_T_POWER_MW, MOCK_T_TEMPERATURE_C, MOCK_T_GRAPHICS_CLOCK_MHZ,
    MOCK_T_SM_CLOCK_MHZ, MOCK_T_MEMORY_CLOCK_MHZ, MOCK_T_VIDEO_CLOCK_MHZ, MOCK_T_ECC_CORRECTED,
    MOCK_T_ECC_UNCORRECTED, MOCK_T_MEMORY_USED_BYTES, MOCK_T_KEYS
};
/* gi = ci = -1: the whole GPU; otherwise the MIG device of that GPU instance and compute instance. */
typedef struct { int gpu, gi, ci, key; unsigned long long value; } mock_tvalue;
typedef struct { int gpu, gi, ci, mps; unsigned pid; unsigned long long bytes; } mock_tproc;

typedef struct {
    int refcount;
    mock_config cfg;
    const mock_gpu_profile *prof;
    mock_gpu gpu[MOCK_MAX_GPUS];
    mock_stamp state_stamp;
    mock_stamp faults_stamp;
    mock_fault faults[MOCK_MAX_FAULTS];
    int nfaults;
    mock_stamp telemetry_stamp;
    mock_tvalue tvalues[MOCK_MAX_TELEMETRY];
    int ntvalues;
    mock_tproc procs[MOCK_MAX_PROCS];
    int nprocs;
} mock_global;

extern mock_global g_mock;

/* ---- system.c: call gate ---- */
nvmlReturn_t mock_enter(const char *sym);     /* on NVML_SUCCESS the state mutex is held */
nvmlReturn_t mock_leave(nvmlReturn_t r);      /* releases the mutex */
void mock_lock(void);
void mock_unlock(void);
#define MOCK_ENTER() do { nvmlReturn_t e_ = mock_enter(__func__); if (e_ != NVML_SUCCESS) return e_; } while (0)

/* ---- config.c ---- */
int mock_config_path(char *out, size_t n);
int mock_config_load(const char *path, mock_config *cfg);
unsigned mock_delay_for(const char *sym);

/* ---- util.c ---- */
void mock_uuid(char *out, size_t n, const char *prefix, const char *seed, const char *what);
nvmlReturn_t mock_copy_str(char *dst, unsigned len, const char *src);
int mock_stamp_changed(const char *path, mock_stamp *st);   /* 1 when changed (and refreshes st) */
void mock_stamp_take(const char *path, mock_stamp *st);
int mock_write_atomic(const char *path, const char *data, size_t len);
int mock_mkdirs(const char *dir);
void mock_sleep_ms(unsigned ms);

/* ---- faults.c ---- */
nvmlReturn_t mock_fault_check(const char *sym);
int mock_error_code(const char *s);           /* errors.c */

/* ---- state.c ---- */
void mock_state_defaults(void);
int mock_state_load(void);                    /* 0 ok, 1 missing, -1 malformed */
int mock_state_save(void);
void mock_state_refresh(void);
int mock_state_begin(void);                   /* cross-process lock + refresh before a mutation */
void mock_state_end(int save);
void mock_caps_sync(void);
unsigned mock_gi_minor(unsigned gpu_minor, unsigned gi);
unsigned mock_ci_minor(unsigned gpu_minor, unsigned gi, unsigned ci);

/* ---- mig.c ---- */
nvmlReturn_t mock_gi_create(int gpu, const mock_gi_profile *p, int start, int *out_id);
nvmlReturn_t mock_ci_create(int gpu, int gi, unsigned ci_profile, int *out_id);
int mock_apply_layout(const char *layout);
void mock_fill_mig_uuids(int gpu);
unsigned mock_ci_sm(const mock_gi *gi, unsigned ci_slices);   /* ci.c */

/* ---- device.c: handle resolution ---- */
int mock_resolve_device(nvmlDevice_t d, mock_gpu **gpu, mock_gi **gi, mock_ci **ci);
mock_gi *mock_resolve_gi(nvmlGpuInstance_t h, int *gpu);
mock_ci *mock_resolve_ci(nvmlComputeInstance_t h, int *gpu, mock_gi **gi);

/* ---- telemetry.c ---- */
void mock_telemetry_refresh(void);            /* re-reads telemetry_file when its stat stamp changed */
int mock_telemetry_value(int gpu, int gi, int ci, int key, unsigned long long *out);   /* 1: the file sets it */
/* The processes of a device (a GPU's include those of its MIG devices); returns how many there are and fills
 * up to room of them into out (out may be NULL). */
unsigned mock_telemetry_procs(int gpu, int gi, int ci, int mps, nvmlProcessInfo_t *out, unsigned room);
unsigned long long mock_telemetry_used(int gpu, int gi, int ci);   /* memory_used_bytes, else the processes' */

/* ---- events.c ---- */
void mock_events_reset(void);

#endif
