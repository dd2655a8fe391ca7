/* hostcode.h: the machine code of a lab library's host side, read with
 * objdump before anything of the library runs, for instructions that enter
 * the kernel of the operating system directly (syscall, sysenter, int $0x80;
 * svc on Arm). A raw system call needs no symbol, so the symbol-table rules
 * of policy.c cannot see it. */
#ifndef CUDA_LABS_HOSTCODE_H
#define CUDA_LABS_HOSTCODE_H

#include <stddef.h>

/* 0: no such instruction. 1: found; why names it, where, and what to do.
 * -1: the code could not be read (objdump missing or failing): why says so;
 * that is a problem of the grading machine, and the library is not called
 * clean. */
int hostcode_scan(const char *lib, char *why, size_t n);

/* 1 when one line of `objdump -d --no-show-raw-insn` output is an instruction
 * that makes a system call; its mnemonic goes to what (at least 16 bytes). */
int hostcode_is_syscall_line(const char *line, char *what, size_t n);

#endif
