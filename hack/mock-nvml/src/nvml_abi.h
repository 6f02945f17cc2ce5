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

/* Virtualization, addressing, driver model */
typedef enum nvmlGpuVirtualizationMode {
    NVML_GPU_VIRTUALIZATION_MODE_NONE = 0,
    NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH = 1,
    NVML_GPU_VIRTUALIZATION_MODE_VGPU = 2,
    NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU = 3,
    NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA = 4
} nvmlGpuVirtualizationMode_t;

typedef enum {
    NVML_DEVICE_ADDRESSING_MODE_NONE = 0,
    NVML_DEVICE_ADDRESSING_MODE_HMM = 1,
    NVML_DEVICE_ADDRESSING_MODE_ATS = 2
} nvmlDeviceAddressingModeType_t;

typedef struct {
    unsigned int version;
    unsigned int value;                           /* nvmlDeviceAddressingModeType_t */
} nvmlDeviceAddressingMode_v1_t;                  /* 8 bytes */
typedef nvmlDeviceAddressingMode_v1_t nvmlDeviceAddressingMode_t;
#define nvmlDeviceAddressingMode_v1 MOCK_NVML_STRUCT_VERSION(nvmlDeviceAddressingMode_v1_t, 1)

typedef enum nvmlDriverModel_enum {
    NVML_DRIVER_WDDM = 0,
    NVML_DRIVER_WDM = 1,
    NVML_DRIVER_MCDM = 2
} nvmlDriverModel_t;

#define NVML_NVLINK_MAX_LINKS 36

/* Engine counts of a MIG device (nvmlDeviceGetAttributes[_v2]) */
typedef struct nvmlDeviceAttributes_st {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;                         /* 40 bytes */

/* Running processes (the _v2 and _v3 calls both take this layout) */
typedef struct nvmlProcessInfo_v2_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;                   /* 0xFFFFFFFF without MIG */
    unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t, nvmlProcessInfo_t;        /* 24 bytes */

/* Telemetry */
typedef struct nvmlUtilization_st {
    unsigned int gpu;
    unsigned int memory;
} nvmlUtilization_t;                              /* 8 bytes */

typedef enum nvmlTemperatureSensors_enum {
    NVML_TEMPERATURE_GPU = 0,
    NVML_TEMPERATURE_GPU_MAX = 1,
    NVML_TEMPERATURE_COUNT
} nvmlTemperatureSensors_t;

typedef enum nvmlClockType_enum {
    NVML_CLOCK_GRAPHICS = 0,
    NVML_CLOCK_SM = 1,
    NVML_CLOCK_MEM = 2,
    NVML_CLOCK_VIDEO = 3,
    NVML_CLOCK_COUNT
} nvmlClockType_t;

typedef enum nvmlMemoryErrorType_enum {
    NVML_MEMORY_ERROR_TYPE_CORRECTED = 0,
    NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1,
    NVML_MEMORY_ERROR_TYPE_COUNT
} nvmlMemoryErrorType_t;

typedef enum nvmlEccCounterType_enum {
    NVML_VOLATILE_ECC = 0,
    NVML_AGGREGATE_ECC = 1,
    NVML_ECC_COUNTER_TYPE_COUNT
} nvmlEccCounterType_t;

/* vGPU licensing */
typedef unsigned int nvmlVgpuInstance_t;

#define NVML_GRID_LICENSE_BUFFER_SIZE       128
#define NVML_GRID_LICENSE_FEATURE_MAX_COUNT 3

typedef enum {
    NVML_GRID_LICENSE_FEATURE_CODE_UNKNOWN = 0,
    NVML_GRID_LICENSE_FEATURE_CODE_VGPU = 1,
    NVML_GRID_LICENSE_FEATURE_CODE_NVIDIA_RTX = 2,
    NVML_GRID_LICENSE_FEATURE_CODE_GAMING = 3,
    NVML_GRID_LICENSE_FEATURE_CODE_COMPUTE = 4
} nvmlGridLicenseFeatureCode_t;

typedef struct nvmlVgpuLicenseExpiry_st {
    unsigned int year;
    unsigned short month, day, hour, min, sec;
    unsigned char status;
} nvmlVgpuLicenseExpiry_t;                        /* 16 bytes */

typedef struct nvmlVgpuLicenseInfo_st {
    unsigned char isLicensed;
    nvmlVgpuLicenseExpiry_t licenseExpiry;
    unsigned int currentState;
} nvmlVgpuLicenseInfo_t;                          /* 24 bytes */

typedef struct nvmlGridLicenseExpiry_st {
    unsigned int year;
    unsigned short month, day, hour, min, sec;
    unsigned char status;
} nvmlGridLicenseExpiry_t;                        /* 16 bytes */

typedef struct nvmlGridLicensableFeature_st {
    nvmlGridLicenseFeatureCode_t featureCode;
    unsigned int featureState;
    char licenseInfo[NVML_GRID_LICENSE_BUFFER_SIZE];
    char productName[NVML_GRID_LICENSE_BUFFER_SIZE];
    unsigned int featureEnabled;
    nvmlGridLicenseExpiry_t licenseExpiry;
} nvmlGridLicensableFeature_t;                    /* 284 bytes */

/* The _v4 layout. Earlier versions had shorter feature entries, so the simulator writes only the two leading
 * fields, the same in every version (it reports no licensable feature). */
typedef struct nvmlGridLicensableFeatures_st {
    int isGridLicenseSupported;
    unsigned int licensableFeaturesCount;
    nvmlGridLicensableFeature_t gridLicensableFeatures[NVML_GRID_LICENSE_FEATURE_MAX_COUNT];
} nvmlGridLicensableFeatures_t;

/* Exported functions: every NVML_ENTRY of entry_points.def, declared with its nvml.h prototype. */
#define NVML_ENTRY(ret, name, params) NVML_API ret name params;
#define NVML_ABSENT(group, name)
#include "entry_points.def"
#undef NVML_ENTRY
#undef NVML_ABSENT

#ifdef __cplusplus
}
#endif
#endif /* MOCK_NVML_ABI_H */
