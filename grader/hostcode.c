/* hostcode.c: see hostcode.h. objdump comes with binutils, which every
 * machine that builds the labs has (gcc needs it). */
#define _GNU_SOURCE
#include "hostcode.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "toolkit.h"

int hostcode_is_syscall_line(const char *line, char *what, size_t n)
{
    /* "    1bf5:\tsyscall", "    1c02:\tint    $0x80", "  40:\tdata16 syscall" */
    const char *p = line;
    while (*p == ' ')
        p++;
    const char *hex = p;
    while (isxdigit((unsigned char)*p))
        p++;
    if (p == hex || p[0] != ':' || p[1] != '\t')
        return 0;
    p += 2;
    char words[4][24];
    int k = 0;
    while (*p && k < 4) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\n' || *p == '\r')
            p++;
        size_t len = strcspn(p, " \t,\r\n");
        if (len == 0)
            break;
        snprintf(words[k], sizeof words[k], "%.*s", (int)(len < 23 ? len : 23), p);
        p += len;
        k++;
    }
    for (int i = 0; i < k; i++) {
        const char *w = words[i];
        int hit = strcmp(w, "syscall") == 0 || strcmp(w, "sysenter") == 0 ||
                  strcmp(w, "svc") == 0 ||
                  (strcmp(w, "int") == 0 && i + 1 < k && strcmp(words[i + 1], "$0x80") == 0);
        if (hit) {
            snprintf(what, n, "%s%s", w, strcmp(w, "int") == 0 ? " $0x80" : "");
            return 1;
        }
    }
    return 0;
}

int hostcode_scan(const char *lib, char *why, size_t n)
{
    char tool[4096];
    if (toolkit_find("objdump", tool, sizeof tool) != 0) {
        snprintf(why, n,
                 "objdump (from binutils) was not found on the PATH, so the grader cannot check "
                 "the library's host code for raw system calls. This is a problem of the grading "
                 "machine, not of the submission: install binutils (it comes with gcc)");
        return -1;
    }
    char *argv[] = {tool, "-d", "--no-show-raw-insn", "-w", (char *)lib, NULL};
    int pid, fd = proc_spawn(argv, NULL, &pid);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0) {
            char rest[64];
            proc_collect(fd, pid, rest, sizeof rest);
        }
        snprintf(why, n, "%s could not be started, so the grader cannot check the library's "
                 "host code for raw system calls (a problem of the grading machine)", tool);
        return -1;
    }
    char line[1024], fn[256] = "", in_fn[256] = "", what[32], first[256] = "";
    int found = 0, lines = 0;
    unsigned long at = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        if (!first[0] && strncmp(line, tool, strlen(tool)) == 0)
            snprintf(first, sizeof first, "%.*s", (int)strcspn(line, "\n"), line);
        /* "0000000000001bf0 <stage>:" starts a function */
        char *lt = strchr(line, '<');
        if (isxdigit((unsigned char)line[0]) && lt && strstr(lt, ">:")) {
            snprintf(fn, sizeof fn, "%.*s", (int)(strstr(lt, ">:") - lt - 1), lt + 1);
            continue;
        }
        if (!found && hostcode_is_syscall_line(line, what, sizeof what)) {
            found = 1;
            at = strtoul(line, NULL, 16);
            memcpy(in_fn, fn, sizeof in_fn);
        }
    }
    char rest[64];
    int rc = proc_read(fd, pid, rest, sizeof rest);
    fclose(f);
    if (rc != 0 || lines == 0) {
        snprintf(why, n, "objdump -d %s failed (exit %d%s%s), so the grader cannot check the "
                 "library's host code for raw system calls (a problem of the grading machine)",
                 lib, rc, first[0] ? ": " : "", first);
        return -1;
    }
    if (!found)
        return 0;
    snprintf(why, n,
             "its host code makes a system call of its own: a `%s` instruction at 0x%lx%s%s%s "
             "(objdump -d shows it). A lab library may not call the operating system directly; "
             "remove the inline assembly or the call that put it there.",
             what, at, in_fn[0] ? ", in " : "", in_fn, in_fn[0] ? "()" : "");
    return 1;
}
