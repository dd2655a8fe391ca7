/* sass.h: did a stage use its technique? The machine code (SASS) of a lab
 * library, as `cuobjdump -sass` prints it, read into the set of opcodes each
 * kernel uses; a stage's technique is a pattern of opcodes (lab.h) looked
 * for in the kernels the stage launched (the launch trace). */
#ifndef CUDA_LABS_SASS_H
#define CUDA_LABS_SASS_H

#include <stdio.h>

#include "lab.h"
#include "results.h"

typedef struct sass_kernel {
    char *name; /* mangled, as cuobjdump prints it after "Function : " */
    char *ops;  /* every opcode it uses once, each between spaces: " LDS.128 FFMA " */
    char *ops_loaded; /* the same, of the code the GPU runs alone (sass_parse_for) */
} sass_kernel;

typedef struct sass_code {
    sass_kernel *k;
    int n;
    int cut; /* the listing was longer than the grader reads: kernels past it are missing */
    int loaded_sm; /* the architecture whose code the GPU runs (90 for sm_90 or sm_90a);
                      0: unknown, or none (it would compile the PTX) */
    int device_sm; /* as given to sass_parse_for */
    int last; /* the kernel of the last "Function :" line, or -1 */
} sass_code;

/* Reads cuobjdump -sass output. A kernel that appears once per GPU
 * architecture of a fat binary gets the opcodes of all of them in ops; for a
 * GPU of compute capability device_sm (10 major + minor; 0: unknown) the
 * opcodes of the section it runs (its major version, the highest minor not
 * above its own) also go to ops_loaded. An entry "$kernel$callee" keeps its
 * name (an extern "C" kernel may be named so) and credits its opcodes to
 * kernel too. 0, or -1 when out of memory. */
int sass_parse_for(const char *text, sass_code *code, int device_sm);
int sass_parse(const char *text, sass_code *code); /* device_sm 0 */
void sass_free(sass_code *code);

/* 1 when kernel `name` uses an opcode matching pattern ("LDS|STS",
 * "LDG.128|STG.128": an opcode whose first part equals the pattern's and
 * which carries each of its modifiers); 0 when not; -1 when the code has no
 * kernel of that name. */
int sass_uses(const sass_code *code, const char *name, const char *pattern);

/* The kernel's name as written in the source: "tile_kernel" for
 * "_Z11tile_kernelILi1EEvPKfPfii"; names that are not mangled come back as
 * they are. */
void sass_short_name(const char *mangled, char *buf, size_t n);

/* Runs the CUDA Toolkit's `cuobjdump -sass lib` and parses it; 0, or -1 with
 * why in err (cuobjdump missing, no code). */
int sass_read_library(const char *lib, sass_code *code, char *err, size_t errn);
/* The same in two halves, so cuobjdump runs while the caller does other work:
 * sass_start starts it (0, or -1 with err); sass_finish reads its output to
 * the end and parses it (0, or -1 with err). p->fd is the output's read end;
 * sass_finish leaves it open, the caller closes it (sass_close). */
typedef struct sass_pending {
    int fd, pid;
    const char *lib;
    int device_sm; /* for sass_parse_for; 0: unknown. Set after sass_start */
} sass_pending;
int sass_start(const char *lib, sass_pending *p, char *err, size_t errn);
int sass_finish(sass_pending *p, sass_code *code, char *err, size_t errn);
void sass_close(sass_pending *p);

/* For each stage of spec with a technique whose correctness test passed:
 * the stages whose kernels lack it, as hint lines on f under a heading;
 * nothing when every technique is there. missing (n_stages entries, or
 * NULL) gets, per stage, the first technique it lacks, and so does the
 * stage's correctness record (for the JSON and HTML reports). Returns how
 * many techniques are lacking. */
int sass_report(FILE *f, const lab_spec *spec, lab_results *res, const sass_code *code,
                const lab_technique **missing);

/* Where required[s] is set and stage s lacks its technique (missing, from
 * sass_report): its speed test, or its correctness test when it has no
 * speed points, fails with TECHNIQUE MISSING if it had passed. Returns how
 * many tests it failed. */
int sass_require(const lab_spec *spec, lab_results *res, const lab_technique *const *missing,
                 const int *required);

/* For each stage with refused_ops (lab.h) whose correctness test passed: when
 * a kernel it launched (in checked or timed calls; when the stage's lists
 * are partial, any kernel of the library) holds such an instruction in the
 * code the GPU runs, or when a listing cut short may not hold such a kernel
 * whole (missing, the last one listed, or lacking the GPU's section), the
 * correctness test
 * becomes REJECTED, naming the kernel and the instruction, and a passed speed
 * test SKIPPED. Returns how many stages it rejected. */
int sass_refuse(const lab_spec *spec, lab_results *res, const sass_code *code);

/* When the machine code could not be read (why): a line on f for each stage
 * whose technique is required and whose test that it would fail passed, and
 * for each correct stage with refused_ops, saying it was not checked and
 * costs nothing (the tool is the grader's, never the student's fault).
 * Returns how many lines. */
int sass_unchecked(FILE *f, const lab_spec *spec, const lab_results *res, const int *required,
                   const char *why);

#endif
