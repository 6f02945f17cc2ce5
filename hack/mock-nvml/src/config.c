/* config.c - locate and parse <root>/etc/mock-nvml/config. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mock.h"

#define LIBDIR "/usr/lib/x86_64-linux-gnu"

/* Root of the fake driver tree this library copy lives in, "" if unknown. */
static void lib_root(char *out, size_t n)
{
    Dl_info info;
    char real[PATH_MAX];
    out[0] = 0;
    if (!dladdr((void *)&lib_root, &info) || !info.dli_fname || !realpath(info.dli_fname, real))
        return;
    char *slash = strrchr(real, '/');
    if (!slash)
        return;
    *slash = 0;
    size_t len = strlen(real), sl = strlen(LIBDIR);
    if (len >= sl && strcmp(real + len - sl, LIBDIR) == 0) {
        real[len - sl] = 0;
        snprintf(out, n, "%s", real[0] ? real : "/");
    }
}

int mock_config_path(char *out, size_t n)
{
    const char *env = getenv("MOCK_NVML_CONFIG");
    if (env && env[0]) {
        snprintf(out, n, "%s", env);
        return 0;
    }
    char root[PATH_MAX];
    lib_root(root, sizeof(root));
    if (!root[0])
        return -1;
    snprintf(out, n, "%s/etc/mock-nvml/config", strcmp(root, "/") == 0 ? "" : root);
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
        *--e = 0;
    return s;
}

static void join(char *dst, size_t n, const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la + lb + 1 > n) {
        dst[0] = 0;
        return;
    }
    memcpy(dst, a, la);
    memcpy(dst + la, b, lb + 1);
}

#define SET(field, v) snprintf(cfg->field, sizeof(cfg->field), "%s", v)

int mock_config_load(const char *path, mock_config *cfg)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    memset(cfg, 0, sizeof(*cfg));
    cfg->gpus = 1;
    cfg->cuda_version = 13000;
    SET(seed, "mock");
    SET(driver_version, "580.95.05");
    SET(mig_enabled, "none");

    char line[2048];
    while (fgets(line, sizeof(line), f)) {
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq)
            continue;
        *eq = 0;
        char *k = trim(s), *v = trim(eq + 1);
        if (!strcmp(k, "profile")) SET(profile, v);
        else if (!strcmp(k, "gpus")) cfg->gpus = (unsigned)strtoul(v, NULL, 10);
        else if (!strcmp(k, "seed")) SET(seed, v);
        else if (!strcmp(k, "driver_version")) SET(driver_version, v);
        else if (!strcmp(k, "cuda_driver_version")) cfg->cuda_version = atoi(v);
        else if (!strcmp(k, "root")) SET(root, v);
        else if (!strcmp(k, "state_file")) SET(state_file, v);
        else if (!strcmp(k, "mig_enabled")) SET(mig_enabled, v);
        else if (!strcmp(k, "mig_layout")) SET(mig_layout, v);
        else if (!strcmp(k, "faults_file")) SET(faults_file, v);
        else if (!strcmp(k, "events_file")) SET(events_file, v);
        else if (!strcmp(k, "telemetry_file")) SET(telemetry_file, v);
        else if (!strncmp(k, "delay_ms.", 9) && cfg->ndelays < MOCK_MAX_DELAYS) {
            mock_delay *d = &cfg->delays[cfg->ndelays++];
            snprintf(d->sym, sizeof(d->sym), "%s", k + 9);
            d->ms = (unsigned)strtoul(v, NULL, 10);
        }
    }
    fclose(f);

    if (!cfg->root[0]) {
        /* <root>/etc/mock-nvml/config -> <root> */
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof(tmp), "%s", path);
        const char *suffix = "/etc/mock-nvml/config";
        size_t len = strlen(tmp), sl = strlen(suffix);
        if (len > sl && strcmp(tmp + len - sl, suffix) == 0) {
            tmp[len - sl] = 0;
            SET(root, tmp);
        } else {
            lib_root(cfg->root, sizeof(cfg->root));
        }
    }
    if (!cfg->state_file[0]) join(cfg->state_file, sizeof(cfg->state_file), cfg->root, "/var/lib/mock-nvml/state");
    if (!cfg->faults_file[0]) join(cfg->faults_file, sizeof(cfg->faults_file), cfg->root, "/etc/mock-nvml/faults");
    if (!cfg->events_file[0]) join(cfg->events_file, sizeof(cfg->events_file), cfg->root, "/var/lib/mock-nvml/events");
    if (!cfg->telemetry_file[0])
        join(cfg->telemetry_file, sizeof(cfg->telemetry_file), cfg->root, "/var/lib/mock-nvml/telemetry");
    return 0;
}

unsigned mock_delay_for(const char *sym)
{
    for (int i = 0; i < g_mock.cfg.ndelays; i++)
        if (!strcmp(g_mock.cfg.delays[i].sym, sym))
            return g_mock.cfg.delays[i].ms;
    return 0;
}
