/* buildlog.c: ptxas's notes on serialised wgmma, from a lab library's build
 * log (buildlog.h). ptxas prints one line per kernel, whatever the -v flag:
 *
 *   ptxas info    : (C7513) Potential Performance Loss: wgmma.mma_async
 *   instructions are serialized due to <why> in the function '<mangled>'
 *
 * (on one line; "for the function" after some reasons). The log is the student's file, so nothing of it is shown
 * unless the kernel is one the stage launched, and the reason keeps letters,
 * digits and spaces only. */
#define _GNU_SOURCE
#include "buildlog.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

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
 * the name itself when it is not mangled that simply. */
static void short_name(const char *mangled, char *out, size_t n)
{
    const char *p = mangled;
    if (strncmp(p, "_Z", 2) == 0 && isdigit((unsigned char)p[2])) {
        p += 2;
        size_t len = 0;
        while (isdigit((unsigned char)*p) && len < 1000)
            len = 10 * len + (size_t)(*p++ - '0');
        if (len > 0 && strlen(p) >= len) {
            snprintf(out, n, "%.*s", (int)len, p);
            return;
        }
    }
    snprintf(out, n, "%s", mangled);
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
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f)) {
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
