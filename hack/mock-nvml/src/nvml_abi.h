/*
 * nvml_abi.h - the subset of NVIDIA's NVML ABI that mock-nvml implements.
 *
 * Written for Tessera from the public NVML API documentation: only the types,
 * constants and prototypes this simulator needs. Layouts are ABI-identical to
 * libnvidia-ml.so.1 (checked by test/abi_*.c against a reference header when
 * one is available); this is not a copy of NVIDIA's nvml.h.
 */
#ifndef MOCK_NVML_ABI_H
#define MOCK_NVML_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

#define NVML_API __attribute__((visibility("default")))

typedef enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_NOT_READY = 27,
    NVML_ERROR_GPU_NOT_FOUND = 28,
    NVML_ERROR_INVALID_STATE = 29,
    NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

/* Opaque handles: pointers, as in the real library. */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

typedef enum {
    NVML_BRAND_UNKNOWN = 0,
    NVML_BRAND_QUADRO = 1,
    NVML_BRAND_TESLA = 2,
    NVML_BRAND_NVIDIA_RTX = 13,
    NVML_BRAND_NVIDIA = 14
} nvmlBrandType_t;

typedef enum {
    NVML_COMPUTEMODE_DEFAULT = 0,
    NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1,
    NVML_COMPUTEMODE_PROHIBITED = 2,
    NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
    NVML_COMPUTEMODE_COUNT
} nvmlComputeMode_t;

typedef unsigned int nvmlDeviceArchitecture_t;
#define NVML_DEVICE_ARCH_AMPERE 7
#define NVML_DEVICE_ARCH_ADA    8
#define NVML_DEVICE_ARCH_HOPPER 9

#define NVML_INIT_FLAG_NO_GPUS   1u
#define NVML_INIT_FLAG_NO_ATTACH 2u

#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE    32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16
#define NVML_DEVICE_UUID_BUFFER_SIZE          80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE       96
#define NVML_DEVICE_NAME_BUFFER_SIZE          64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE       96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE   80

/* Versioned structs carry sizeof(struct) | (version << 24) in `version`. */
#define MOCK_NVML_STRUCT_VERSION(type, ver) ((unsigned int)(sizeof(type) | ((unsigned int)(ver) << 24U)))

typedef struct {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;                                   /* 24 bytes */

typedef struct {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;                                /* 40 bytes */
#define nvmlMemory_v2 MOCK_NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2)

typedef struct {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;                                  /* 68 bytes */

/* MIG */
#define NVML_DEVICE_MIG_DISABLE 0u
#define NVML_DEVICE_MIG_ENABLE  1u

#define NVML_GPU_INSTANCE_PROFILE_1_SLICE      0x0u
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE      0x1u
#define NVML_GPU_INSTANCE_PROFILE_3_SLICE      0x2u
#define NVML_GPU_INSTANCE_PROFILE_4_SLICE      0x3u
#define NVML_GPU_INSTANCE_PROFILE_7_SLICE      0x4u
#define NVML_GPU_INSTANCE_PROFILE_8_SLICE      0x5u
#define NVML_GPU_INSTANCE_PROFILE_6_SLICE      0x6u
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1 0x7u
#define NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1 0x8u
#define NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2 0x9u
#define NVML_GPU_INSTANCE_PROFILE_COUNT        0x12u

#define NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE 0x0u
#define NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE 0x1u
#define NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE 0x2u
#define NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE 0x3u
#define NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE 0x4u
#define NVML_COMPUTE_INSTANCE_PROFILE_COUNT   0x9u
#define NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED 0x0u

typedef struct {
    unsigned int start;
    unsigned int size;
} nvmlGpuInstancePlacement_t;                     /* 8 bytes */

typedef struct {
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;                   /* 48 bytes */

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
} nvmlGpuInstanceProfileInfo_v2_t;                /* 152 bytes */
#define nvmlGpuInstanceProfileInfo_v2 MOCK_NVML_STRUCT_VERSION(nvmlGpuInstanceProfileInfo_v2_t, 2)

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned int capabilities;
} nvmlGpuInstanceProfileInfo_v3_t;                /* 152 bytes */
#define nvmlGpuInstanceProfileInfo_v3 MOCK_NVML_STRUCT_VERSION(nvmlGpuInstanceProfileInfo_v3_t, 3)

typedef struct {
    nvmlDevice_t device;
    unsigned int id;
    unsigned int profileId;
    nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;                          /* 24 bytes */

typedef struct {
    unsigned int start;
    unsigned int size;
} nvmlComputeInstancePlacement_t;                 /* 8 bytes */

typedef struct {
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;               /* 36 bytes */

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
} nvmlComputeInstanceProfileInfo_v2_t;            /* 136 bytes */
#define nvmlComputeInstanceProfileInfo_v2 MOCK_NVML_STRUCT_VERSION(nvmlComputeInstanceProfileInfo_v2_t, 2)

typedef struct {
    unsigned int version;
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    unsigned int capabilities;
} nvmlComputeInstanceProfileInfo_v3_t;            /* 140 bytes */
#define nvmlComputeInstanceProfileInfo_v3 MOCK_NVML_STRUCT_VERSION(nvmlComputeInstanceProfileInfo_v3_t, 3)

typedef struct {
    nvmlDevice_t device;
    nvmlGpuInstance_t gpuInstance;
    unsigned int id;
    unsigned int profileId;
    nvmlComputeInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t;                      /* 32 bytes */

/* Events */
#define nvmlEventTypeSingleBitEccError     0x0000000000000001ULL
#define nvmlEventTypeDoubleBitEccError     0x0000000000000002ULL
#define nvmlEventTypePState                0x0000000000000004ULL
#define nvmlEventTypeXidCriticalError      0x0000000000000008ULL
#define nvmlEventTypeClock                 0x0000000000000010ULL

typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;                                /* 32 bytes */

/* Exported functions. */
NVML_API nvmlReturn_t nvmlInit_v2(void);
NVML_API nvmlReturn_t nvmlInit(void);
NVML_API nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
NVML_API nvmlReturn_t nvmlShutdown(void);
NVML_API const char *nvmlErrorString(nvmlReturn_t result);

NVML_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
NVML_API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length);
NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion);
NVML_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion);

NVML_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount);
NVML_API nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
NVML_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device);
NVML_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
NVML_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
NVML_API nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type);
NVML_API nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch);
NVML_API nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor);
NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
NVML_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory);
NVML_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci);
NVML_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber);
NVML_API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index);
NVML_API nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node);
NVML_API nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode);
NVML_API nvmlReturn_t nvmlDeviceSetComputeMode(nvmlDevice_t device, nvmlComputeMode_t mode);

NVML_API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode);
NVML_API nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode, nvmlReturn_t *activationStatus);
NVML_API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                          nvmlGpuInstanceProfileInfo_t *info);
NVML_API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                           nvmlGpuInstanceProfileInfo_v2_t *info);
NVML_API nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device, unsigned int profileId,
                                                                    nvmlGpuInstancePlacement_t *placements,
                                                                    unsigned int *count);
NVML_API nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId,
                                                                unsigned int *count);
NVML_API nvmlReturn_t nvmlDeviceCreateGpuInstance(nvmlDevice_t device, unsigned int profileId,
                                                  nvmlGpuInstance_t *gpuInstance);
NVML_API nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t device, unsigned int profileId,
                                                               const nvmlGpuInstancePlacement_t *placement,
                                                               nvmlGpuInstance_t *gpuInstance);
NVML_API nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId,
                                                nvmlGpuInstance_t *gpuInstances, unsigned int *count);
NVML_API nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
                                                   nvmlGpuInstance_t *gpuInstance);
NVML_API nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info);
NVML_API nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gpuInstance);
NVML_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile,
                                                                   unsigned int engProfile,
                                                                   nvmlComputeInstanceProfileInfo_t *info);
NVML_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance,
                                                                    unsigned int profile, unsigned int engProfile,
                                                                    nvmlComputeInstanceProfileInfo_v2_t *info);
NVML_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceRemainingCapacity(nvmlGpuInstance_t gpuInstance,
                                                                         unsigned int profileId, unsigned int *count);
NVML_API nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                           nvmlComputeInstance_t *computeInstance);
NVML_API nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance, unsigned int profileId,
                                                         nvmlComputeInstance_t *computeInstances, unsigned int *count);
NVML_API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id,
                                                            nvmlComputeInstance_t *computeInstance);
NVML_API nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance,
                                                    nvmlComputeInstanceInfo_t *info);
NVML_API nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t computeInstance);

NVML_API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
NVML_API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                          nvmlDevice_t *migDevice);
NVML_API nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice);
NVML_API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
NVML_API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
NVML_API nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device);

NVML_API nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set);
NVML_API nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes);
NVML_API nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                               nvmlEventSet_t set);
NVML_API nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms);
NVML_API nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set);

#ifdef __cplusplus
}
#endif
#endif /* MOCK_NVML_ABI_H */
