/* What the process runs on, as the process itself sees it: under QEMU user
 * mode this is the emulated CPU, which is what a receipt must record. */
#include <stdio.h>
#include <string.h>

#include "isotrain.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif
#if defined(__linux__) && (defined(__aarch64__) || defined(__arm__) || defined(__powerpc64__) || \
                           defined(__s390x__) || defined(__riscv))
#include <sys/auxv.h>
#define IT_HAVE_AUXV 1
#endif

const char *it_host_isa(void)
{
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__i386__)
    return "i386";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__arm__)
    return "armhf";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
    return "ppc64le";
#elif defined(__powerpc64__)
    return "ppc64";
#elif defined(__s390x__)
    return "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
    return "riscv64";
#else
    return "unknown";
#endif
}

const char *it_host_os(void)
{
#if defined(_WIN32)
    return "windows";
#elif defined(__APPLE__)
    return "macos";
#elif defined(__linux__)
    return "linux";
#elif defined(__FreeBSD__)
    return "freebsd";
#else
    return "unknown";
#endif
}

const char *it_host_endianness(void)
{
    const uint32_t probe = 1;
    unsigned char first;
    memcpy(&first, &probe, 1);
    return first ? "little" : "big";
}

static void append(char *buf, size_t cap, const char *word)
{
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s", len ? " " : "", word);
}

void it_host_cpu_features(char *buf, size_t cap)
{
    buf[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        if (d & (1u << 25)) append(buf, cap, "sse");
        if (d & (1u << 26)) append(buf, cap, "sse2");
        if (c & (1u << 0)) append(buf, cap, "sse3");
        if (c & (1u << 19)) append(buf, cap, "sse4.1");
        if (c & (1u << 20)) append(buf, cap, "sse4.2");
        if (c & (1u << 28)) append(buf, cap, "avx");
        if (c & (1u << 12)) append(buf, cap, "fma");
        if (c & (1u << 29)) append(buf, cap, "f16c");
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        if (b & (1u << 5)) append(buf, cap, "avx2");
        if (b & (1u << 16)) append(buf, cap, "avx512f");
    }
#elif defined(__APPLE__)
    /* no auxv or /proc on macOS: the kernel's own feature flags */
    static const char *const keys[][2] = {{"hw.optional.neon", "asimd"},
                                          {"hw.optional.arm.FEAT_FP16", "fp16"},
                                          {"hw.optional.arm.FEAT_SME", "sme"}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        int v = 0;
        size_t len = sizeof v;
        if (sysctlbyname(keys[k][0], &v, &len, NULL, 0) == 0 && v)
            append(buf, cap, keys[k][1]);
    }
#elif defined(IT_HAVE_AUXV)
    char word[40];
    snprintf(word, sizeof word, "hwcap=0x%lx", getauxval(AT_HWCAP));
    append(buf, cap, word);
#ifdef AT_HWCAP2
    snprintf(word, sizeof word, "hwcap2=0x%lx", getauxval(AT_HWCAP2));
    append(buf, cap, word);
#endif
#endif
    if (!buf[0])
        snprintf(buf, cap, "unknown");
}

void it_host_cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
#if defined(__x86_64__) || defined(__i386__)
    unsigned regs[12];
    if (__get_cpuid(0x80000000u, &regs[0], &regs[1], &regs[2], &regs[3]) && regs[0] >= 0x80000004u) {
        for (unsigned leaf = 0; leaf < 3; leaf++)
            __get_cpuid(0x80000002u + leaf, &regs[4 * leaf], &regs[4 * leaf + 1], &regs[4 * leaf + 2],
                        &regs[4 * leaf + 3]);
        char brand[49];
        memcpy(brand, regs, 48);
        brand[48] = '\0';
        const char *start = brand;
        while (*start == ' ')
            start++;
        snprintf(buf, cap, "%s", start);
    }
#elif defined(__APPLE__)
    size_t len = cap;
    if (sysctlbyname("machdep.cpu.brand_string", buf, &len, NULL, 0) != 0)
        snprintf(buf, cap, "unknown");
#else
    /* QEMU user mode shows the host's /proc/cpuinfo on most targets; the
     * receipt records the emulator's -cpu model separately for that reason. */
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    const char *keys[] = {"model name", "cpu model", "CPU part", "cpu"};
    size_t best = sizeof keys / sizeof keys[0]; /* rank of the key found so far */
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        /* the key is the text before the colon, without trailing blanks:
         * "cpu family" must not pass for "cpu" */
        char *end = colon;
        while (end > line && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        for (size_t k = 0; k < best; k++) {
            size_t n = strlen(keys[k]);
            if ((size_t)(end - line) == n && strncmp(line, keys[k], n) == 0) {
                char *value = colon + 1;
                while (*value == ' ' || *value == '\t')
                    value++;
                value[strcspn(value, "\n")] = '\0';
                snprintf(buf, cap, "%s", value);
                best = k;
                break;
            }
        }
    }
    fclose(f);
#endif
}
