/* buildlog.c: ptxas's notes on serialised wgmma, from a lab library's build
 * log (buildlog.h). ptxas prints one line per kernel, whatever the -v flag:
 *
 *   ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async
 *   instructions are serialized due to <why> in the function '<mangled>'
 *
 * (on one line; "for the function" after some reasons). The log is the
 * student's file, so nothing of it is shown unless the kernel is one the
 * stage launched; the reason keeps letters, digits and spaces, the kernel's
 * name letters, digits and '_', and only a regular file is read, at most
 * LOG_MAX bytes of it (a FIFO or a link to /dev/zero would hang the
 * grader). A library rebuilt outside make may have an older log. */
#define _GNU_SOURCE
#include "buildlog.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_MAX (4 << 20) /* bytes of a log read, far more than nvcc writes */

#define SERIALISED "wgmma.mma_async instructions are serialized "
#define THE_FUNCTION " the function '"

/* Is name one of the comma-separated names in list? */
static int listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t item = strcspn(p, ",");
        if (item == len && strncmp(p, name, len) == 0)
            return 1;
        p += item + (p[item] == ',');
    }
    return 0;
}

/* The identifier of an Itanium-mangled name, "_Z7s5_tf32iii..." -> "s5_tf32";
 * the name itself when it is not mangled that simply; either way only its
 * letters, digits and '_', the rest as '?'. */
static void short_name(const char *mangled, char *out, size_t n)
{
    const char *p = mangled;
    size_t len = strlen(mangled);
    if (strncmp(p, "_Z", 2) == 0 && isdigit((unsigned char)p[2])) {
        const char *q = p + 2;
        size_t id = 0;
        while (isdigit((unsigned char)*q) && id < 1000)
            id = 10 * id + (size_t)(*q++ - '0');
        if (id > 0 && strlen(q) >= id)
            p = q, len = id;
    }
    size_t w = 0;
    for (size_t i = 0; i < len && w + 1 < n; i++)
        out[w++] = isalnum((unsigned char)p[i]) || p[i] == '_' ? p[i] : '?';
    if (n)
        out[w] = '\0';
}

int buildlog_serialised(const char *lib, const char *kernels, char *out, size_t n)
{
    if (n)
        out[0] = '\0';
    if (!lib || !lib[0] || !kernels || !kernels[0] || n == 0)
        return 0;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s.log", lib) >= (int)sizeof path)
        return 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return 0;
    }
    char line[4096];
    int found = 0;
    long bytes = 0;
    while (bytes < LOG_MAX && fgets(line, sizeof line, f)) {
        bytes += (long)strlen(line) + 1;
        const char *s = strstr(line, SERIALISED), *fn = strstr(line, THE_FUNCTION);
        if (!s || !fn || fn < s)
            continue;
        /* the reason ends before " in" or " for" the function */
        const char *why_end = fn;
        if (why_end - s > 3 && strncmp(why_end - 3, " in", 3) == 0)
            why_end -= 3;
        else if (why_end - s > 4 && strncmp(why_end - 4, " for", 4) == 0)
            why_end -= 4;
        fn += strlen(THE_FUNCTION);
        size_t fn_len = strcspn(fn, "'");
        if (fn[fn_len] != '\'' || fn_len == 0 || fn_len >= 512)
            continue;
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)fn_len, fn);
        if (!listed(kernels, name))
            continue;
        /* "(C7513)": the code, when it is there */
        char code[8] = "";
        const char *c = strstr(line, "(C");
        if (c && c < s && strspn(c + 2, "0123456789") == 4 && c[6] == ')')
            snprintf(code, sizeof code, "C%.4s", c + 2);
        /* why: from after "serialized " to " in (for) the function", plain text */
        char why[200];
        size_t w = 0;
        for (const char *p = s + strlen(SERIALISED); p < why_end && w < 160; p++)
            if (isalnum((unsigned char)*p) || *p == ' ')
                why[w++] = *p;
        why[w] = '\0';
        char shown[128];
        short_name(name, shown, sizeof shown);
        size_t used = strlen(out);
        snprintf(out + used, n - used, "%sthe wgmma of %s (%s%s%s)", found ? "; " : "", shown,
                 code, code[0] && why[0] ? ": " : "", why);
        found++;
    }
    fclose(f);
    return found;
}
