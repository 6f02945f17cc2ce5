/* faults.c - fault injection from faults_file.
 *
 * Lines: "<nvmlSymbol> <nvmlReturn code|NVML_ERROR_NAME> [count]". With a count the
 * symbol fails that many times (the decremented count is written back); without
 * one it always fails. The file is re-parsed whenever its stat stamp changes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mock.h"

static void parse_faults(void)
{
    g_mock.nfaults = 0;
    FILE *f = fopen(g_mock.cfg.faults_file, "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f) && g_mock.nfaults < MOCK_MAX_FAULTS) {
        char sym[96], code[64];
        long count = -1;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = 0;
        int n = sscanf(line, "%95s %63s %ld", sym, code, &count);
        if (n < 2)
            continue;
        int c = mock_error_code(code);
        if (c < 0)
            continue;
        mock_fault *ft = &g_mock.faults[g_mock.nfaults++];
        snprintf(ft->sym, sizeof(ft->sym), "%s", sym);
        ft->code = c;
        ft->count = n >= 3 ? count : -1;
    }
    fclose(f);
}

/* Rewrite the file with the decremented counts; comments and unknown lines are kept. */
static void write_back(const char *sym, long count)
{
    FILE *f = fopen(g_mock.cfg.faults_file, "re");
    if (!f)
        return;
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    char line[512];
    int done = 0;
    while (out && fgets(line, sizeof(line), f)) {
        char s[96], code[64], rest[8];
        long cnt;
        char repl[600];
        const char *emit = line;
        if (!done && line[0] != '#' && sscanf(line, "%95s %63s %ld %7s", s, code, &cnt, rest) == 3 &&
            !strcmp(s, sym) && cnt > 0) {
            snprintf(repl, sizeof(repl), "%s %s %ld\n", s, code, count);
            emit = repl;
            done = 1;
        }
        size_t l = strlen(emit);
        if (len + l + 1 > cap) {
            char *n = realloc(out, cap = (len + l + 1) * 2);
            if (!n) {
                free(out);
                out = NULL;
                break;
            }
            out = n;
        }
        memcpy(out + len, emit, l);
        len += l;
    }
    fclose(f);
    if (out) {
        mock_write_atomic(g_mock.cfg.faults_file, out, len);
        free(out);
    }
    mock_stamp_take(g_mock.cfg.faults_file, &g_mock.faults_stamp);
}

nvmlReturn_t mock_fault_check(const char *sym)
{
    if (!g_mock.cfg.faults_file[0])
        return NVML_SUCCESS;
    if (mock_stamp_changed(g_mock.cfg.faults_file, &g_mock.faults_stamp))
        parse_faults();
    for (int i = 0; i < g_mock.nfaults; i++) {
        mock_fault *ft = &g_mock.faults[i];
        if (strcmp(ft->sym, sym) != 0 || ft->count == 0)
            continue;
        if (ft->count > 0) {
            ft->count--;
            write_back(sym, ft->count);
        }
        return (nvmlReturn_t)ft->code;
    }
    return NVML_SUCCESS;
}
