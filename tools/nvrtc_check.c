/*
 * nvrtc_check.c — compiles .cu files with NVRTC in-process, as a host application would.
 *
 *   nvrtc_check ARCH FILE.cu...      ARCH: sm_80, sm_90, compute_90 or just 90
 *
 * Each file is compiled with -std=c++17 and -I$CUDA_HOME/include (default /usr/local/cuda)
 * for cuda_fp16.h / cuda_bf16.h; sm_XX asks NVRTC for a cubin, compute_XX for PTX.  The
 * compiler log is printed.  The exit status is 1 if any file failed to compile or produced
 * any warning (tilec's output must be NVRTC-clean), 2 on bad usage, 0 otherwise.
 */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (cap - len - 1 == 0) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

/* "warning" anywhere in the log, in any case. */
static int has_warning(const char *log)
{
    for (const char *p = log; *p; p++) {
        static const char word[] = "warning";
        size_t i = 0;
        while (word[i] && (p[i] | 0x20) == word[i])
            i++;
        if (!word[i])
            return 1;
    }
    return 0;
}

/* Compiles one file; returns 0 if it compiled without warnings. */
static int check_file(const char *path, const char *arch_opt, int want_cubin, const char *include_opt)
{
    char *src = read_file(path);
    if (!src) {
        fprintf(stderr, "nvrtc_check: cannot read %s\n", path);
        return 1;
    }
    nvrtcProgram prog;
    nvrtcResult rc = nvrtcCreateProgram(&prog, src, path, 0, NULL, NULL);
    if (rc != NVRTC_SUCCESS) {
        fprintf(stderr, "nvrtc_check: %s: nvrtcCreateProgram: %s\n", path, nvrtcGetErrorString(rc));
        free(src);
        return 1;
    }
    const char *opts[] = {arch_opt, "-std=c++17", include_opt};
    rc = nvrtcCompileProgram(prog, 3, opts);

    size_t log_size = 0;
    char *log = NULL;
    if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 0) {
        log = malloc(log_size + 1);
        if (log && nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
            log[log_size] = '\0';
        else if (log)
            log[0] = '\0';
    }
    int warned = log && has_warning(log);
    if (log && log[0])
        fputs(log, stdout);

    size_t out_size = 0;
    if (rc == NVRTC_SUCCESS) {
        nvrtcResult size_rc = want_cubin ? nvrtcGetCUBINSize(prog, &out_size)
                                         : nvrtcGetPTXSize(prog, &out_size);
        if (size_rc != NVRTC_SUCCESS || out_size == 0) {
            fprintf(stderr, "nvrtc_check: %s: no %s produced\n", path, want_cubin ? "cubin" : "PTX");
            rc = size_rc != NVRTC_SUCCESS ? size_rc : NVRTC_ERROR_COMPILATION;
        }
    }
    if (rc != NVRTC_SUCCESS)
        printf("FAIL %s (%s): %s\n", path, arch_opt, nvrtcGetErrorString(rc));
    else if (warned)
        printf("FAIL %s (%s): warnings in the NVRTC log\n", path, arch_opt);
    else
        printf("ok   %s (%s, %zu bytes of %s)\n", path, arch_opt, out_size, want_cubin ? "cubin" : "PTX");

    free(log);
    nvrtcDestroyProgram(&prog);
    free(src);
    return rc != NVRTC_SUCCESS || warned;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: nvrtc_check ARCH FILE.cu...   (ARCH: sm_80, sm_90, compute_90, 90)\n");
        return 2;
    }
    const char *arch = argv[1];
    const char *digits = arch;
    int want_cubin = 1;
    if (strncmp(arch, "sm_", 3) == 0)
        digits = arch + 3;
    else if (strncmp(arch, "compute_", 8) == 0) {
        digits = arch + 8;
        want_cubin = 0;
    }
    if (strlen(digits) < 2 || strlen(digits) > 4 || strspn(digits, "0123456789") < 2) {
        fprintf(stderr, "nvrtc_check: bad architecture '%s'\n", arch);
        return 2;
    }
    char arch_opt[64];
    snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%s", want_cubin ? "sm" : "compute", digits);

    const char *cuda_home = getenv("CUDA_HOME");
    if (!cuda_home || !cuda_home[0])
        cuda_home = "/usr/local/cuda";
    size_t inc_len = strlen(cuda_home) + sizeof "-I/include";
    char *include_opt = malloc(inc_len);
    if (!include_opt) {
        fprintf(stderr, "nvrtc_check: out of memory\n");
        return 1;
    }
    snprintf(include_opt, inc_len, "-I%s/include", cuda_home);

    int major = 0, minor = 0;
    nvrtcVersion(&major, &minor);
    int failures = 0;
    for (int i = 2; i < argc; i++)
        failures += check_file(argv[i], arch_opt, want_cubin, include_opt);
    printf("nvrtc %d.%d %s: %d of %d files failed\n", major, minor, arch_opt + 19, failures, argc - 2);
    free(include_opt);
    return failures ? 1 : 0;
}
