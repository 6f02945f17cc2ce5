/* errors.c - nvmlReturn_t names and the strings nvmlErrorString reports. */
#include <stdlib.h>
#include <string.h>
#include "mock.h"

static const struct { int code; const char *name; const char *text; } errors[] = {
    {NVML_SUCCESS, "NVML_SUCCESS", "Success"},
    {NVML_ERROR_UNINITIALIZED, "NVML_ERROR_UNINITIALIZED", "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "NVML_ERROR_INVALID_ARGUMENT", "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "NVML_ERROR_NOT_SUPPORTED", "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "NVML_ERROR_NO_PERMISSION", "Insufficient Permissions"},
    {NVML_ERROR_ALREADY_INITIALIZED, "NVML_ERROR_ALREADY_INITIALIZED", "Already Initialized"},
    {NVML_ERROR_NOT_FOUND, "NVML_ERROR_NOT_FOUND", "Not Found"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "NVML_ERROR_INSUFFICIENT_SIZE", "Insufficient Size"},
    {NVML_ERROR_INSUFFICIENT_POWER, "NVML_ERROR_INSUFFICIENT_POWER", "Insufficient External Power"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "NVML_ERROR_DRIVER_NOT_LOADED", "Driver Not Loaded"},
    {NVML_ERROR_TIMEOUT, "NVML_ERROR_TIMEOUT", "Timeout"},
    {NVML_ERROR_IRQ_ISSUE, "NVML_ERROR_IRQ_ISSUE", "Interrupt Request Issue"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "NVML_ERROR_LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "NVML_ERROR_FUNCTION_NOT_FOUND", "Function Not Found"},
    {NVML_ERROR_CORRUPTED_INFOROM, "NVML_ERROR_CORRUPTED_INFOROM", "Corrupted infoROM"},
    {NVML_ERROR_GPU_IS_LOST, "NVML_ERROR_GPU_IS_LOST", "GPU is lost"},
    {NVML_ERROR_RESET_REQUIRED, "NVML_ERROR_RESET_REQUIRED", "GPU requires restart"},
    {NVML_ERROR_OPERATING_SYSTEM, "NVML_ERROR_OPERATING_SYSTEM", "The operating system has blocked the request."},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", "RM has detected an NVML/RM version mismatch."},
    {NVML_ERROR_IN_USE, "NVML_ERROR_IN_USE", "In use by another client"},
    {NVML_ERROR_MEMORY, "NVML_ERROR_MEMORY", "Insufficient Memory"},
    {NVML_ERROR_NO_DATA, "NVML_ERROR_NO_DATA", "No data"},
    {NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED",
     "The requested vgpu operation is not available on target device, because ECC is enabled"},
    {NVML_ERROR_INSUFFICIENT_RESOURCES, "NVML_ERROR_INSUFFICIENT_RESOURCES", "Insufficient Resources"},
    {NVML_ERROR_FREQ_NOT_SUPPORTED, "NVML_ERROR_FREQ_NOT_SUPPORTED", "Frequency not supported"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", "Argument version mismatch"},
    {NVML_ERROR_DEPRECATED, "NVML_ERROR_DEPRECATED", "Deprecated"},
    {NVML_ERROR_NOT_READY, "NVML_ERROR_NOT_READY", "Not ready"},
    {NVML_ERROR_GPU_NOT_FOUND, "NVML_ERROR_GPU_NOT_FOUND", "GPU not found"},
    {NVML_ERROR_INVALID_STATE, "NVML_ERROR_INVALID_STATE", "Invalid state"},
    {NVML_ERROR_RESET_TYPE_NOT_SUPPORTED, "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED", "Reset type not supported"},
    {NVML_ERROR_UNKNOWN, "NVML_ERROR_UNKNOWN", "Unknown Error"},
};

#define NERR (sizeof(errors) / sizeof(errors[0]))

const char *nvmlErrorString(nvmlReturn_t result)
{
    for (size_t i = 0; i < NERR; i++)
        if (errors[i].code == (int)result)
            return errors[i].text;
    return "Unknown Error";
}

/* "15", "NVML_ERROR_GPU_IS_LOST" or "GPU_IS_LOST" -> code; -1 if unknown. */
int mock_error_code(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end != s && *end == 0)
        return (int)v;
    for (size_t i = 0; i < NERR; i++) {
        const char *n = errors[i].name;
        if (!strcmp(n, s) || (!strncmp(n, "NVML_ERROR_", 11) && !strcmp(n + 11, s)))
            return errors[i].code;
    }
    return -1;
}
