/* events.c - event sets fed from events_file.
 *
 * Injection: append "<gpuIndex> <xid|dbe|sbe|gpu_lost|pstate|clock> [data] [giId ciId]" lines.
 * Each event set reads the file from its own offset (consume-once per set, starting at the
 * file's size when the set was created) and delivers only registered GPUs/types. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mock.h"

#define RET(r) return mock_leave(r)
#define SUPPORTED (nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError | nvmlEventTypePState | \
                   nvmlEventTypeXidCriticalError | nvmlEventTypeClock)
#define POLL_MS 10u

struct nvmlEventSet_st {
    unsigned magic;
    int kind;
    long long offset;
    unsigned long long mask[MOCK_MAX_GPUS];
    struct nvmlEventSet_st *next;
};

static struct nvmlEventSet_st *sets;

static struct nvmlEventSet_st *find_set(nvmlEventSet_t s)
{
    for (struct nvmlEventSet_st *p = sets; p; p = p->next)
        if (p == s)
            return p;
    return NULL;
}

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

void mock_events_reset(void)
{
    while (sets) {
        struct nvmlEventSet_st *n = sets->next;
        free(sets);
        sets = n;
    }
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    MOCK_ENTER();
    if (!set) RET(NVML_ERROR_INVALID_ARGUMENT);
    struct nvmlEventSet_st *s = calloc(1, sizeof(*s));
    if (!s) RET(NVML_ERROR_MEMORY);
    s->magic = MOCK_MAGIC;
    s->kind = MOCK_H_EVSET;
    s->offset = file_size(g_mock.cfg.events_file);
    s->next = sets;
    sets = s;
    *set = s;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    MOCK_ENTER();
    for (struct nvmlEventSet_st **pp = &sets; *pp; pp = &(*pp)->next)
        if (*pp == set) {
            *pp = set->next;
            free(set);
            RET(NVML_SUCCESS);
        }
    RET(NVML_ERROR_INVALID_ARGUMENT);
}

nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
    MOCK_ENTER();
    int k = mock_resolve_device(device, NULL, NULL, NULL);
    if (!k || !eventTypes) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k == MOCK_H_MIGDEV) RET(NVML_ERROR_NOT_SUPPORTED);
    *eventTypes = SUPPORTED;
    RET(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set)
{
    MOCK_ENTER();
    mock_gpu *gp;
    int k = mock_resolve_device(device, &gp, NULL, NULL);
    struct nvmlEventSet_st *s = find_set(set);
    if (!k || !s) RET(NVML_ERROR_INVALID_ARGUMENT);
    if (k == MOCK_H_MIGDEV || (eventTypes & ~SUPPORTED)) RET(NVML_ERROR_NOT_SUPPORTED);
    s->mask[gp - g_mock.gpu] |= eventTypes;
    RET(NVML_SUCCESS);
}

static unsigned long long type_of(const char *name, unsigned long long *dflt)
{
    *dflt = 0;
    if (!strcmp(name, "xid")) return nvmlEventTypeXidCriticalError;
    if (!strcmp(name, "dbe")) return nvmlEventTypeDoubleBitEccError;
    if (!strcmp(name, "sbe")) return nvmlEventTypeSingleBitEccError;
    if (!strcmp(name, "pstate")) return nvmlEventTypePState;
    if (!strcmp(name, "clock")) return nvmlEventTypeClock;
    if (!strcmp(name, "gpu_lost")) {   /* reported as Xid 79: "GPU has fallen off the bus" */
        *dflt = 79;
        return nvmlEventTypeXidCriticalError;
    }
    return 0;
}

/* One pass over unread complete lines; 1 when an event for this set was found. */
static int scan(struct nvmlEventSet_st *s, nvmlEventData_t *data)
{
    FILE *f = fopen(g_mock.cfg.events_file, "re");
    if (!f)
        return 0;
    if (file_size(g_mock.cfg.events_file) < s->offset)
        s->offset = 0;   /* truncated: start over */
    if (fseeko(f, (off_t)s->offset, SEEK_SET) != 0) {
        fclose(f);
        return 0;
    }
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            if (len < sizeof(line) - 1)
                break;   /* partial line: wait for the writer */
            s->offset += (long long)len;   /* over-long line: skip it */
            continue;
        }
        s->offset += (long long)len;
        unsigned gpu, gi = 0xFFFFFFFFu, ci = 0xFFFFFFFFu;
        char type[32];
        unsigned long long value = 0, dflt;
        int n = sscanf(line, "%u %31s %llu %u %u", &gpu, type, &value, &gi, &ci);
        unsigned long long t = n >= 2 ? type_of(type, &dflt) : 0;
        if (!t || gpu >= g_mock.cfg.gpus || !(s->mask[gpu] & t))
            continue;
        memset(data, 0, sizeof(*data));
        data->device = &g_mock.gpu[gpu].dev;
        data->eventType = t;
        data->eventData = n >= 3 ? value : dflt;
        data->gpuInstanceId = n >= 4 ? gi : 0xFFFFFFFFu;
        data->computeInstanceId = n >= 5 ? ci : 0xFFFFFFFFu;
        found = 1;
    }
    fclose(f);
    return found;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    MOCK_ENTER();
    if (!data || !find_set(set)) RET(NVML_ERROR_INVALID_ARGUMENT);
    long long deadline = now_ms() + timeoutms;
    for (;;) {
        if (scan(set, data)) RET(NVML_SUCCESS);
        long long left = deadline - now_ms();
        if (left <= 0) RET(NVML_ERROR_TIMEOUT);
        mock_unlock();
        mock_sleep_ms(left < POLL_MS ? (unsigned)left : POLL_MS);
        mock_lock();
        if (g_mock.refcount == 0) RET(NVML_ERROR_UNINITIALIZED);
        if (!find_set(set)) RET(NVML_ERROR_INVALID_ARGUMENT);
    }
}
