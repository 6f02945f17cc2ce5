/* procs.c - running processes. Nothing the simulator models holds a GPU context: the MPS control daemon stand-in
 * is a control process (a real one is not a GPU client either; only nvidia-cuda-mps-server would be, and the
 * stand-in never starts one), and time-slicing is a setting. So every list is empty, with NVML's sizing
 * protocol: *infoCount in is the room in infos, out the number of processes (0), infos may be NULL then. */
#include "mock.h"

#define RET(r) return mock_leave(r)

static nvmlReturn_t processes(nvmlDevice_t device, unsigned int *infoCount, void *infos)
{
    (void)infos;
    if (!mock_resolve_device(device, NULL, NULL, NULL) || !infoCount) RET(NVML_ERROR_INVALID_ARGUMENT);
    *infoCount = 0;
    RET(NVML_SUCCESS);
}

#define PROCESS_CALL(name, type)                                                      \
    nvmlReturn_t name(nvmlDevice_t device, unsigned int *infoCount, type *infos)      \
    {                                                                                 \
        MOCK_ENTER();                                                                 \
        return processes(device, infoCount, infos);                                   \
    }

PROCESS_CALL(nvmlDeviceGetComputeRunningProcesses_v2, nvmlProcessInfo_v2_t)
PROCESS_CALL(nvmlDeviceGetComputeRunningProcesses_v3, nvmlProcessInfo_t)
PROCESS_CALL(nvmlDeviceGetGraphicsRunningProcesses_v2, nvmlProcessInfo_v2_t)
PROCESS_CALL(nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlProcessInfo_t)
PROCESS_CALL(nvmlDeviceGetMPSComputeRunningProcesses_v2, nvmlProcessInfo_v2_t)
PROCESS_CALL(nvmlDeviceGetMPSComputeRunningProcesses_v3, nvmlProcessInfo_t)
