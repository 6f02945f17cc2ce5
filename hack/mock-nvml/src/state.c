/* state.c - MIG/compute-mode state persisted in state_file (survives restarts like
 * hardware does) and mirrored into the fake /proc/driver/nvidia/capabilities tree. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "mock.h"

static int lock_fd = -1;

static int mig_enabled_by_config(unsigned idx)
{
    const char *s = g_mock.cfg.mig_enabled;
    if (!strcmp(s, "all"))
        return 1;
    if (!strcmp(s, "none") || !s[0])
        return 0;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        if ((unsigned)atoi(t) == idx)
            return 1;
    return 0;
}

static void clear_instances(mock_gpu *gp)
{
    for (int j = 0; j < MOCK_MAX_GI; j++) {
        gp->gi[j].live = 0;
        for (int k = 0; k < MOCK_MAX_CI; k++)
            gp->gi[j].ci[k].live = 0;
    }
}

void mock_state_defaults(void)
{
    for (unsigned i = 0; i < g_mock.cfg.gpus; i++) {
        mock_gpu *gp = &g_mock.gpu[i];
        unsigned on = g_mock.prof->gi && mig_enabled_by_config(i);
        gp->mig_current = gp->mig_pending = on;
        gp->compute_mode = NVML_COMPUTEMODE_DEFAULT;
        gp->timeslice = 0;
        clear_instances(gp);
    }
}

int mock_state_load(void)
{
    FILE *f = fopen(g_mock.cfg.state_file, "re");
    mock_stamp_take(g_mock.cfg.state_file, &g_mock.state_stamp);
    if (!f)
        return 1;
    mock_state_defaults();
    char line[256];
    int bad = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned a[6];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        int n = sscanf(line, "gpu %u %u %u %u %u", &a[0], &a[1], &a[2], &a[3], &a[4]);
        if (n >= 4) {
            if (a[0] >= g_mock.cfg.gpus)
                continue;
            mock_gpu *gp = &g_mock.gpu[a[0]];
            gp->mig_current = g_mock.prof->gi ? !!a[1] : 0;
            gp->mig_pending = g_mock.prof->gi ? !!a[2] : 0;
            gp->compute_mode = a[3] < NVML_COMPUTEMODE_COUNT ? a[3] : 0;
            gp->timeslice = n == 5 && a[4] <= 3 ? a[4] : 0;
        } else if (sscanf(line, "gi %u %u %u %u %u", &a[0], &a[1], &a[2], &a[3], &a[4]) == 5) {
            const mock_gi_profile *p = mock_gi_by_id(g_mock.prof, a[2]);
            if (a[0] >= g_mock.cfg.gpus || a[1] >= MOCK_MAX_GI || !p) {
                bad = 1;
                continue;
            }
            mock_gi *gi = &g_mock.gpu[a[0]].gi[a[1]];
            gi->live = 1;
            gi->prof = p;
            gi->start = a[3];
            gi->size = a[4];
        } else if (sscanf(line, "ci %u %u %u %u %u %u", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5]) == 6) {
            if (a[0] >= g_mock.cfg.gpus || a[1] >= MOCK_MAX_GI || a[2] >= MOCK_MAX_CI || !mock_ci_slices(a[3])) {
                bad = 1;
                continue;
            }
            mock_ci *ci = &g_mock.gpu[a[0]].gi[a[1]].ci[a[2]];
            ci->live = 1;
            ci->profile = a[3];
            ci->start = a[4];
            ci->size = a[5];
        }
    }
    fclose(f);
    for (unsigned i = 0; i < g_mock.cfg.gpus; i++)
        mock_fill_mig_uuids((int)i);
    return bad ? -1 : 0;
}

int mock_state_save(void)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    if (!buf)
        return -1;
    len += (size_t)snprintf(buf + len, cap - len, "# mock-nvml state v1: gpu idx cur pending computeMode timeslice uuid | gi gpu id profileId start size | ci gpu gi id profileId start size\n");
    for (unsigned i = 0; i < g_mock.cfg.gpus; i++) {
        mock_gpu *gp = &g_mock.gpu[i];
        len += (size_t)snprintf(buf + len, cap - len, "gpu %u %u %u %u %u %s\n", i, gp->mig_current, gp->mig_pending,
                                gp->compute_mode, gp->timeslice, gp->uuid);
        for (int j = 0; j < MOCK_MAX_GI; j++) {
            mock_gi *gi = &gp->gi[j];
            if (!gi->live)
                continue;
            len += (size_t)snprintf(buf + len, cap - len, "gi %u %d %u %u %u\n", i, j, gi->prof->id, gi->start, gi->size);
            for (int k = 0; k < MOCK_MAX_CI; k++)
                if (gi->ci[k].live)
                    len += (size_t)snprintf(buf + len, cap - len, "ci %u %d %d %u %u %u\n", i, j, k, gi->ci[k].profile,
                                            gi->ci[k].start, gi->ci[k].size);
        }
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", g_mock.cfg.state_file);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        mock_mkdirs(dir);
    }
    int rc = mock_write_atomic(g_mock.cfg.state_file, buf, len);
    free(buf);
    mock_stamp_take(g_mock.cfg.state_file, &g_mock.state_stamp);
    return rc;
}

void mock_state_refresh(void)
{
    if (!mock_stamp_changed(g_mock.cfg.state_file, &g_mock.state_stamp) || !g_mock.state_stamp.valid)
        return;
    if (mock_state_load() == 0)
        mock_caps_sync();
}

int mock_state_begin(void)
{
    char path[PATH_MAX + 8];
    snprintf(path, sizeof(path), "%s.lock", g_mock.cfg.state_file);
    lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd >= 0)
        while (flock(lock_fd, LOCK_EX) != 0 && errno == EINTR) {
        }
    mock_state_refresh();
    return 0;
}

void mock_state_end(int save)
{
    if (save) {
        mock_state_save();
        mock_caps_sync();
    }
    if (lock_fd >= 0) {
        flock(lock_fd, LOCK_UN);
        close(lock_fd);
        lock_fd = -1;
    }
}

/* ---- capabilities tree: <root>/proc/driver/nvidia/capabilities + <root>/dev/nvidia-caps ---- */

unsigned mock_gi_minor(unsigned gpu_minor, unsigned gi)
{
    return 3 + gpu_minor * (MOCK_MAX_GI * (1 + MOCK_MAX_CI)) + gi * (1 + MOCK_MAX_CI);
}

unsigned mock_ci_minor(unsigned gpu_minor, unsigned gi, unsigned ci)
{
    return mock_gi_minor(gpu_minor, gi) + 1 + ci;
}

static void cap_node(unsigned minor, int present)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/dev/nvidia-caps/nvidia-cap%u", g_mock.cfg.root, minor);
    struct stat sb;
    int exists = lstat(path, &sb) == 0;
    if (!present) {
        if (exists)
            unlink(path);
        return;
    }
    if (exists)
        return;
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof(dir), "%s/dev/nvidia-caps", g_mock.cfg.root);
    mock_mkdirs(dir);
    if (geteuid() == 0 && mknod(path, S_IFCHR | 0444, makedev(1, 3)) == 0)
        return;
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd >= 0)
        close(fd);
}

static void cap_access(const char *dir, unsigned minor, int present)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/access", dir);
    if (!present) {
        unlink(path);
        rmdir(dir);
        return;
    }
    if (access(path, F_OK) == 0)
        return;
    mock_mkdirs(dir);
    char body[128];
    int n = snprintf(body, sizeof(body), "DeviceFileMinor: %u\nDeviceFileMode: 292\nDeviceFileModify: 1\n", minor);
    mock_write_atomic(path, body, (size_t)n);
}

void mock_caps_sync(void)
{
    if (!g_mock.cfg.root[0] || !g_mock.prof || !g_mock.prof->gi)
        return;
    for (unsigned i = 0; i < g_mock.cfg.gpus; i++) {
        mock_gpu *gp = &g_mock.gpu[i];
        for (unsigned j = 0; j < MOCK_MAX_GI; j++) {
            char gdir[PATH_MAX + 96];
            snprintf(gdir, sizeof(gdir), "%s/proc/driver/nvidia/capabilities/gpu%u/mig/gi%u", g_mock.cfg.root, i, j);
            for (unsigned k = 0; k < MOCK_MAX_CI; k++) {
                int live = gp->gi[j].live && gp->gi[j].ci[k].live;
                char cdir[PATH_MAX + 128];
                snprintf(cdir, sizeof(cdir), "%s/ci%u", gdir, k);
                cap_access(cdir, mock_ci_minor(i, j, k), live);
                cap_node(mock_ci_minor(i, j, k), live);
            }
            cap_access(gdir, mock_gi_minor(i, j), gp->gi[j].live);
            cap_node(mock_gi_minor(i, j), gp->gi[j].live);
        }
    }
}
