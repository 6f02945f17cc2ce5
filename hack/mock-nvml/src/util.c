/* util.c - small helpers: stable UUIDs, string copies, file stamps, atomic writes. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "mock.h"

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(const char *s, uint64_t h)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* prefix-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, stable for (seed, what). */
void mock_uuid(char *out, size_t n, const char *prefix, const char *seed, const char *what)
{
    uint64_t a = mix64(fnv1a(what, fnv1a("/", fnv1a(seed, 0xcbf29ce484222325ULL))));
    uint64_t b = mix64(a ^ fnv1a(what, fnv1a(seed, 0x84222325cbf29ce4ULL)));
    snprintf(out, n, "%s-%08x-%04x-%04x-%04x-%04x%08x", prefix, (unsigned)(a >> 32), (unsigned)(a >> 16) & 0xffffu,
             (unsigned)a & 0xffffu, (unsigned)(b >> 48), (unsigned)(b >> 32) & 0xffffu, (unsigned)b);
}

nvmlReturn_t mock_copy_str(char *dst, unsigned len, const char *src)
{
    size_t need = strlen(src) + 1;
    if (!dst)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (len < need)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, need);
    return NVML_SUCCESS;
}

void mock_stamp_take(const char *path, mock_stamp *st)
{
    struct stat sb;
    memset(st, 0, sizeof(*st));
    if (path[0] && stat(path, &sb) == 0) {
        st->valid = 1;
        st->dev = sb.st_dev;
        st->ino = sb.st_ino;
        st->size = sb.st_size;
        st->mtime = sb.st_mtim;
    }
}

int mock_stamp_changed(const char *path, mock_stamp *st)
{
    mock_stamp now;
    mock_stamp_take(path, &now);
    int changed = now.valid != st->valid ||
                  (now.valid && (now.dev != st->dev || now.ino != st->ino || now.size != st->size ||
                                 now.mtime.tv_sec != st->mtime.tv_sec || now.mtime.tv_nsec != st->mtime.tv_nsec));
    *st = now;
    return changed;
}

int mock_write_atomic(const char *path, const char *data, size_t len)
{
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unlink(tmp);
            return -1;
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int mock_mkdirs(const char *dir)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof(buf), "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    }
    return (mkdir(buf, 0755) == 0 || errno == EEXIST) ? 0 : -1;
}

void mock_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
