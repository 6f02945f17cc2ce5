/* procs.c - running processes, as telemetry_file lists them ("<gpu>[/<gi>/<ci>] process|mps_process <pid>
 * <usedBytes>"): compute processes in the compute list, MPS clients in the MPS compute list, no graphics process.
 * Nothing the simulator runs holds a GPU context by itself (the MPS control daemon stand-in is a control process,
 * as a real one is), so without such lines every list is empty. A GPU's list includes its MIG devices'
 * processes; a MIG device's only its own. NVML's sizing protocol: *infoCount in is the room in infos, out the
 * number of processes; INSUFFICIENT_SIZE when they do not fit (infos may be NULL for the sizing call). */
#include "mock.h"

#define RET(r) return mock_leave(r)

static nvmlReturn_t processes(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos, int kind)
{
    mock_gpu *gp;
    int k = mock_resolve_device(device, &gp, NULL, NULL);
    if (!k || !infoCount) RET(NVML_ERROR_INVALID_ARGUMENT);
    int mig = k == MOCK_H_MIGDEV;
    unsigned n = kind < 0 ? 0
                          : mock_telemetry_procs((int)(gp - g_mock.gpu), mig ? device->gi : -1,
                                                 mig ? device->ci : -1, kind, infos, infos ? *infoCount : 0);
    unsigned room = *infoCount;
    *infoCount = n;
    RET(n > room || (n > 0 && !infos) ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS);
}

enum { GRAPHICS = -1, COMPUTE = 0, MPS = 1 };

#define PROCESS_CALL(name, type, kind)                                                \
    nvmlReturn_t name(nvmlDevice_t device, unsigned int *infoCount, type *infos)      \
    {                                                                                 \
        MOCK_ENTER();                                                                 \
        return processes(device, infoCount, infos, kind);                             \
    }

PROCESS_CALL(nvmlDeviceGetComputeRunningProcesses_v2, nvmlProcessInfo_v2_t, COMPUTE)
PROCESS_CALL(nvmlDeviceGetComputeRunningProcesses_v3, nvmlProcessInfo_t, COMPUTE)
PROCESS_CALL(nvmlDeviceGetGraphicsRunningProcesses_v2, nvmlProcessInfo_v2_t, GRAPHICS)
PROCESS_CALL(nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlProcessInfo_t, GRAPHICS)
PROCESS_CALL(nvmlDeviceGetMPSComputeRunningProcesses_v2, nvmlProcessInfo_v2_t, MPS)
PROCESS_CALL(nvmlDeviceGetMPSComputeRunningProcesses_v3, nvmlProcessInfo_t, MPS)
