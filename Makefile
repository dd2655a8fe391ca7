# CUDA Labs: the one entry point. `make help` lists every target.
#
#   make lab1 && ./grade      build lab 1 and grade it on this machine's GPU
#   make test                 the repository's own tests (GPU parts skip without a GPU)

SHELL := /bin/bash
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
# No built-in rules: every rule is written here (and `make lab` must not
# look for a lab.o).
MAKEFLAGS += --no-builtin-rules

# ---- toolchain ---------------------------------------------------------------
NVCC_FOUND := $(shell command -v nvcc 2>/dev/null)
CUDA_HOME ?= $(if $(NVCC_FOUND),$(patsubst %/bin/nvcc,%,$(realpath $(NVCC_FOUND))),/usr/local/cuda)
NVCC := $(CUDA_HOME)/bin/nvcc
# The CUDA runtime's soname (libcudart.so.13): the fake runtimes of the tests carry it.
CUDART_SONAME := $(shell objdump -p $(CUDA_HOME)/lib64/libcudart.so 2>/dev/null | awk '/SONAME/ {print $$2}')

# ARCH=native builds for the GPU in this machine (nvcc falls back to sm_75
# when there is none); ARCH=all builds a fat binary for CI and for sharing;
# ARCH=sm_80 (any one) builds for that GPU.
ARCH ?= native
ifeq ($(ARCH),all)
GENCODE := -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
           -gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 \
           -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
else
GENCODE := -arch=$(ARCH)
endif

# One CUDA runtime for grader and lab: the lab library links libcudart.so too.
# --extended-lambda lets a __device__ lambda written in host code reach a
# kernel template. CCCL_DISABLE_NVTX: <cub/cub.cuh>, which a student may include
# for cub::BlockReduce or WarpReduce in a kernel of their own, otherwise
# compiles in NVTX's loader, whose dlsym() the contract check refuses.
NVCC_OPT := -O3 -lineinfo -std=c++17 --extended-lambda -DCCCL_DISABLE_NVTX
NVCC_LIB := -Xcompiler -fPIC,-Wall -shared -cudart shared
NVCCFLAGS := $(NVCC_OPT) $(GENCODE) $(NVCC_LIB)
# A lab whose code exists for one architecture only names it here, by the
# lab's name, and is built for it whatever ARCH says; ARCH_ONLY_<name> is that
# architecture for make arch-build (the other architectures leave it out).
# Lab 7 uses wgmma, setmaxnreg and TMA, which exist only in sm_90a code
# (-arch=sm_90a alone gave compute_90 PTX to ptxas with nvcc 13.0).
LAB_GENCODE_hopper := -gencode arch=compute_90a,code=sm_90a
ARCH_ONLY_hopper := 90a
lab_gencode = $(or $(LAB_GENCODE_$(1)),$(GENCODE))
# CFLAGS is yours (make CFLAGS=-O0 keeps what the build needs): the C compiler
# gets ALL_CFLAGS, the flags the build requires and then yours.
CFLAGS ?= -O2 -g
REQUIRED_CFLAGS := -std=c11 -Wall -Wextra -MMD -MP -I$(CUDA_HOME)/include -DCUDA_LABS_CUDA_HOME='"$(CUDA_HOME)"'
# CUPTI's headers (lab 5's overlap check traces with it; optional).
CUPTI_H := $(firstword $(wildcard $(CUDA_HOME)/include/cupti.h $(CUDA_HOME)/extras/CUPTI/include/cupti.h))
REQUIRED_CFLAGS += $(if $(CUPTI_H),-DHAVE_CUPTI -I$(dir $(CUPTI_H)))
# DEVELOPER=1 (.ci/run): stricter warnings, and every warning an error.
ifeq ($(DEVELOPER),1)
REQUIRED_CFLAGS += -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
endif
ALL_CFLAGS = $(REQUIRED_CFLAGS) $(CFLAGS)
# Recursive (=): evaluated after Check may have been installed by check-deps.
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -pthread)
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -ldl -lm -pthread

# ---- the labs ------------------------------------------------------------------
# number:folder:name of every lab, from the list of labs: one line
# LAB(number, name) each in grader/labs/labs.def (registry.c includes it too).
LABS := $(shell sed -n 's/^LAB(\([0-9][0-9]*\), *\([a-z0-9_]*\))$$/\1:\1-\2:\2/p' grader/labs/labs.def 2>/dev/null)
ifeq ($(LABS),)
$(error grader/labs/labs.def, the list of labs, is missing or lists no lab)
endif
lab_num = $(word 1,$(subst :, ,$(1)))
lab_dir = $(word 2,$(subst :, ,$(1)))
lab_name = $(word 3,$(subst :, ,$(1)))
AVAILABLE := $(foreach l,$(LABS),$(call lab_num,$(l)))

# ---- sources ---------------------------------------------------------------------
COMMON_SRC := common/par.c common/hostmem.c common/rng.c common/stats.c common/compare.c common/timing.c common/devinfo.c
GRADER_SRC := grader/options.c grader/results.c grader/report.c grader/formats.c grader/config.c grader/json.c grader/analytics.c grader/load.c grader/chart.c grader/html.c grader/runner.c \
              grader/gbuf.c grader/elfsym.c grader/borrowed.c grader/hostcode.c grader/launch_trace.c grader/policy.c grader/probe.c grader/proc.c grader/sanitize.c grader/sass.c grader/buildlog.c grader/toolkit.c grader/trace.c grader/sandbox.c grader/verdict.c grader/decide.c grader/timings.c grader/patch.c \
              grader/ceiling.c grader/green.c grader/witness.c $(sort $(wildcard grader/labs/*.c))
TEST_SRC := $(wildcard grader/tests/check_*.c) grader/tests/fixtures.c grader/tests/run_tests.c grader/tests/arch/archinfo.c
ADVERSARIAL := $(basename $(notdir $(wildcard grader/tests/adversarial/*.cu)))

OBJ := build/obj
LIB_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(COMMON_SRC) $(GRADER_SRC))
TEST_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(TEST_SRC))

# ---- dependency checks -------------------------------------------------------
.PHONY: check-deps check-nvcc
check-nvcc:
	@if [ ! -x "$(NVCC)" ]; then \
	  echo "make: nvcc not found (looked for $(NVCC)). Install the CUDA Toolkit 12.x or 13.x, or run make CUDA_HOME=/path/to/cuda."; \
	  exit 1; fi

# Check (the C unit-testing library) builds the grader. Installed here when we
# can (root or passwordless sudo, with apt); otherwise one line says what to do.
CHECK_PC ?= check
CHECK_H ?= /usr/include/check.h
check-deps: check-nvcc
	@if ! pkg-config --exists $(CHECK_PC) 2>/dev/null && [ ! -f $(CHECK_H) ]; then \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; \
	  else echo "make: the Check unit-testing library is missing: install it (Debian/Ubuntu: sudo apt-get install check; Fedora: sudo dnf install check-devel), then run make again."; exit 1; fi; \
	  if ! command -v apt-get >/dev/null; then \
	    echo "make: the Check unit-testing library is missing and this is not an apt system: install Check with your package manager (e.g. dnf install check-devel), then run make again."; exit 1; fi; \
	  echo "make: the Check unit-testing library is missing; installing it with apt-get (package check)..."; \
	  $$SUDO apt-get install -y -qq check >/dev/null 2>&1 || { $$SUDO apt-get update -qq >/dev/null 2>&1; $$SUDO apt-get install -y -qq check >/dev/null; } \
	    || { echo "make: installing Check failed: run sudo apt-get install check yourself."; exit 1; }; \
	  echo "make: Check installed."; \
	fi

# ---- the grader --------------------------------------------------------------------
$(OBJ)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) -c $< -o $@

build/grader.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# The launch trace must be visible to lab libraries: export it (grader/launch_trace.c).
# Full RELRO and BIND_NOW: every symbol the grader imports is bound at start-up
# and its GOT is read-only before a lab library is loaded, so a submission
# cannot redirect the grader's calls (cudaEventElapsedTime, ...) by rewriting
# it; the grading child's sandbox (grader/sandbox.c) keeps it read-only.
# grader/tests/check_sandbox.c reads the built ELF to prove it.
HARDEN := -Wl,-z,relro,-z,now
EXPORTS := -Wl,--dynamic-list=grader/exports.map $(HARDEN)
grade: $(OBJ)/grader/main.o build/grader.a grader/exports.map
	$(CC) $(ALL_CFLAGS) $(EXPORTS) -o $@ $(OBJ)/grader/main.o build/grader.a $(CHECK_LIBS) $(CUDA_LIBS)

# ---- the ceilings ------------------------------------------------------------------
# The grader's reference operations (CUB, ...), one library per lab, loaded by
# a grading child: the grader's own executable stays free of CUDA code.
# A lab has a ceiling library, build/ceilings/labN.so, when
# grader/ceilings/<name>.cu exists (labs 2 to 6), linking cuBLAS where the
# ceiling is a GEMM. Lab 6's ceiling is cuBLAS SGEMM at the layer's GEMM shape
# on every machine; bench_conv shows cuDNN beside it where cuDNN is installed
# (not a dependency). The grader's own kernels for the timed calls
# (grader/patch.h), build/ceilings/devcheck.so, are built and loaded like a
# ceiling, by every lab. One pattern rule builds them all: CEILING_SRC_<stem>
# names each one's source.
CEILING_LABS := $(foreach l,$(LABS),$(if $(wildcard grader/ceilings/$(call lab_name,$(l)).cu),$(l)))
$(foreach l,$(CEILING_LABS),$(eval CEILING_SRC_lab$(call lab_num,$(l)) := grader/ceilings/$(call lab_name,$(l)).cu))
CEILING_SRC_devcheck := grader/ceilings/devcheck.cu
CEILING_LIBS := $(foreach l,$(CEILING_LABS),build/ceilings/lab$(call lab_num,$(l)).so) build/ceilings/devcheck.so
CEILING_LINK_gemm := -lcublas
CEILING_LINK_conv := -lcublas
CEILING_LINK_hopper := -lcublas
# The given stages, timed from the course's copy and never from the
# submission (which could slow them to inflate the next stage's speedup):
# build/ceilings/labN-given.so from grader/given/<name>_given.cu, which
# grader/integrity protects and a test holds equal to the skeleton's given
# code. Built for the lab's own architectures; it includes its header by path.
GIVEN_LABS := $(foreach l,$(LABS),$(if $(wildcard grader/given/$(call lab_name,$(l))_given.cu),$(l)))
$(foreach l,$(GIVEN_LABS),$(eval CEILING_SRC_lab$(call lab_num,$(l))-given := grader/given/$(call lab_name,$(l))_given.cu))
$(foreach l,$(GIVEN_LABS),$(eval build/ceilings/lab$(call lab_num,$(l))-given.so: CEILING_GENCODE := $(call lab_gencode,$(call lab_name,$(l)))))
CEILING_LIBS += $(foreach l,$(GIVEN_LABS),build/ceilings/lab$(call lab_num,$(l))-given.so)
CUDNN_H := $(firstword $(wildcard $(CUDA_HOME)/include/cudnn.h /usr/include/cudnn.h /usr/include/x86_64-linux-gnu/cudnn.h))
# Prerequisites are expanded a second time from here on: $$* is the stem.
.SECONDEXPANSION:
build/ceilings/%.so: $$(CEILING_SRC_$$*) | check-nvcc
	@mkdir -p build/ceilings
	$(NVCC) $(NVCC_OPT) $(or $(CEILING_GENCODE),$(GENCODE)) $(NVCC_LIB) -Xlinker -z,relro,-z,now -MMD -MP -MF $@.d -o $@ $< $(CEILING_LINK_$(basename $(notdir $<)))

# Every lab's reference library, and the grader's own kernels, at once (Gradescope's setup builds them once).
.PHONY: ceilings
ceilings: $(CEILING_LIBS)

# ---- lab and solution libraries --------------------------------------------------
# nvcc's messages, shown as always and kept beside the library in $@.log,
# where the grader finds ptxas's notes that it serialised wgmma
# (grader/buildlog.c); nvcc's exit status is kept.
KEEP_LOG = 2> $@.log; s=$$?; cat $@.log >&2; exit $$s

# $(1) number, $(2) folder, $(3) name
define LAB_RULES
build/lab$(1).so: labs/$(2)/$(3).cu | check-nvcc
	@mkdir -p build
	$$(NVCC) $$(NVCC_OPT) $$(call lab_gencode,$(3)) $$(NVCC_LIB) -Ilabs/$(2) -MMD -MP -MF $$@.d -o $$@ $$< $$(KEEP_LOG)

build/solutions/lab$(1).so: solutions/$(2)/$(3).cu | check-nvcc
	@mkdir -p build/solutions
	$$(NVCC) $$(NVCC_OPT) $$(call lab_gencode,$(3)) $$(NVCC_LIB) -Ilabs/$(2) -MMD -MP -MF $$@.d -o $$@ $$< $$(KEEP_LOG)

.PHONY: lab$(1)
lab$(1): build/lab$(1).so grade $$(CEILING_LIBS)
	@echo $(1) > build/last-lab
	@echo "lab $(1) ($(3)) built: run ./grade"
endef
$(foreach l,$(LABS),$(eval $(call LAB_RULES,$(call lab_num,$(l)),$(call lab_dir,$(l)),$(call lab_name,$(l)))))

# Any other labN: say which labs there are.
lab%:
	@echo "make: there is no lab$*: the labs are $(addprefix lab,$(AVAILABLE)) (make help lists every target)."
	@exit 2

SOLUTION_LIBS := $(foreach l,$(LABS),build/solutions/lab$(call lab_num,$(l)).so)
LAB_LIBS := $(foreach l,$(LABS),build/lab$(call lab_num,$(l)).so)

.PHONY: labs
ifneq ($(wildcard solutions),)
.PHONY: solutions
solutions: $(SOLUTION_LIBS) grade $(CEILING_LIBS)
endif
# Every available lab from labs/, for ./grade all.
labs: $(LAB_LIBS) grade $(CEILING_LIBS)
	@echo $(lastword $(AVAILABLE)) > build/last-lab

# Adversarial submissions: lab libraries the grader must catch (grader/tests/adversarial).
build/adversarial/%.so: grader/tests/adversarial/%.cu | check-nvcc
	@mkdir -p build/adversarial
	$(NVCC) $(NVCCFLAGS) $(foreach l,$(LABS),-Ilabs/$(call lab_dir,$(l))) -MMD -MP -MF $@.d -o $@ $< $(ADVERSARIAL_LINK) $(KEEP_LOG)
build/adversarial/gemm_calls_cublas.so: ADVERSARIAL_LINK := -lcublas
# A case named *_hopper is lab 7's: built for sm_90a alone, as the lab is.
$(addprefix build/adversarial/,$(addsuffix .so,$(filter %_hopper,$(ADVERSARIAL)))): \
    NVCCFLAGS := $(NVCC_OPT) $(LAB_GENCODE_hopper) $(NVCC_LIB)
ADVERSARIAL_LIBS := $(addprefix build/adversarial/,$(addsuffix .so,$(ADVERSARIAL)))
# Libraries the contract check's tests read (grader/tests/check_policy.c).
build/tests/policy/%.so: grader/tests/policy/%.cu | check-nvcc
	@mkdir -p build/tests/policy
	$(NVCC) $(NVCCFLAGS) -MMD -MP -MF $@.d -o $@ $<
POLICY_LIBS := $(patsubst grader/tests/policy/%.cu,build/tests/policy/%.so,$(wildcard grader/tests/policy/*.cu))

# A student copy (make student-repo) has neither the repository's tests nor
# the solutions: say so instead of failing on a missing file.
FULL_REPO := $(and $(wildcard grader/tests/run_tests.c),$(wildcard solutions))
ifeq ($(FULL_REPO),)
.PHONY: test coverage solutions bench stability
test coverage solutions bench stability:
	@echo "make: this is a student copy: $@ needs the course repository (solutions/, grader/tests/). Grade your work with make labN && ./grade."
	@exit 2
else
# ---- tests --------------------------------------------------------------------------
# A stand-in for the driver's green-context calls (check_green.c), and one
# of a driver older than CUDA 12.4.
FAKE_CUDA := build/tests/fakecuda/libcuda.so.1 build/tests/fakecuda-old/libcuda.so.1
build/tests/fakecuda/libcuda.so.1 build/tests/fakecuda-old/libcuda.so.1: grader/tests/fake_libcuda.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -fPIC -shared -I$(CUDA_HOME)/include \
	  $(if $(findstring -old,$@),-DFAKE_CUDA_OLD) -Wl,-soname,libcuda.so.1 -o $@ $<

# A CUDA runtime whose GPU is the host, with C stand-ins for lab libraries and
# for the grader's own CUDA libraries (grader/tests/fakegpu/): the grading path
# without a GPU (grader/tests/check_fakegpu.c). The grader runs from a copy in
# $(FAKEGPU)/root, beside its own build/ceilings/, bound to the runtime through
# LD_LIBRARY_PATH.
FAKEGPU := build/tests/fakegpu
FAKEGPU_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O2 -fPIC -shared -I$(CUDA_HOME)/include
# The stage libraries: $(FAKEGPU)/lab<N>-<variant>.so from lab<N>.c with
# -DLAB<N>_<VARIANT>; the ceilings: root/build/ceilings/lab<N>.so from
# <name>_ceiling.c, <name> being FAKEGPU_CEILING_<N>.
FAKEGPU_STAGES := 1-good 1-faults 1-crash 1-writes 1-hostile 1-baseslow 2-good 2-faults 2-slowgiven 3-good 3-faults 4-good 4-faults 5-good 5-faults 5-cheats 5-forges 5-records 6-good 6-faults 7-good 7-faults
FAKEGPU_CEILING_2 := reduce
FAKEGPU_CEILING_3 := shuffle
FAKEGPU_CEILING_4 := gemm
FAKEGPU_CEILING_5 := streams
FAKEGPU_CEILING_6 := conv
FAKEGPU_CEILING_7 := hopper
FAKEGPU_LIBS := $(FAKEGPU)/grade-small $(FAKEGPU)/$(CUDART_SONAME) $(FAKEGPU)/root/build/ceilings/devcheck.so \
                $(patsubst FAKEGPU_CEILING_%,$(FAKEGPU)/root/build/ceilings/lab%.so,$(filter FAKEGPU_CEILING_%,$(.VARIABLES))) \
                $(foreach v,$(FAKEGPU_STAGES),$(FAKEGPU)/lab$(v).so) \
                $(foreach l,$(LABS),$(FAKEGPU)/root/build/ceilings/lab$(call lab_num,$(l))-given.so)
# The course's copy of each lab's given stages: its good library.
$(FAKEGPU)/root/build/ceilings/lab%-given.so: $(FAKEGPU)/lab%-good.so
	@mkdir -p $(dir $@)
	cp -f $< $@
$(FAKEGPU)/$(CUDART_SONAME): grader/tests/fakegpu/cudart.c grader/tests/fakegpu/fakegpu.h
	@mkdir -p $(dir $@)
	@echo '$(CUDART_SONAME) { global: *; };' > $(FAKEGPU)/cudart.map
	$(CC) $(FAKEGPU_CFLAGS) -Wl,-soname,$(CUDART_SONAME) -Wl,--version-script,$(FAKEGPU)/cudart.map -o $@ $<
$(FAKEGPU)/root/build/ceilings/devcheck.so: grader/tests/fakegpu/devcheck.c grader/ceilings/ceilings.h
	@mkdir -p $(dir $@)
	$(CC) $(FAKEGPU_CFLAGS) -o $@ $< -lm
$(FAKEGPU)/root/build/ceilings/lab%.so: grader/tests/fakegpu/$$(FAKEGPU_CEILING_$$*)_ceiling.c \
                                        grader/ceilings/ceilings.h $(wildcard grader/tests/fakegpu/*.h) $(FAKEGPU)/$(CUDART_SONAME)
	@mkdir -p $(dir $@)
	$(CC) $(FAKEGPU_CFLAGS) -o $@ $< -L$(FAKEGPU) -l:$(CUDART_SONAME)
$(FAKEGPU)/lab%.so: grader/tests/fakegpu/lab$$(firstword $$(subst -, ,$$*)).c $(wildcard grader/tests/fakegpu/*.h) $(FAKEGPU)/$(CUDART_SONAME)
	$(CC) $(FAKEGPU_CFLAGS) -DLAB$(shell echo $* | tr a-z- A-Z_) -o $@ $< -L$(FAKEGPU) -l:$(CUDART_SONAME) -lm
# ./grade with labs that time a small size (grader/tests/fakegpu/small_labs.c),
# so that speed tests run on the fake GPU.
$(FAKEGPU)/grade-small: $(OBJ)/grader/main.o $(OBJ)/grader/tests/fakegpu/small_labs.o build/grader.a grader/exports.map
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(EXPORTS) -o $@ $(OBJ)/grader/main.o $(OBJ)/grader/tests/fakegpu/small_labs.o build/grader.a $(CHECK_LIBS) $(CUDA_LIBS)

build/tests/run_tests: $(TEST_OBJS) build/grader.a grader/exports.map
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(EXPORTS) -o $@ $(TEST_OBJS) build/grader.a $(CHECK_LIBS) $(CUDA_LIBS)

.PHONY: test
# TEST_LABS=2,3 limits the GPU tests to those labs; without a GPU it changes
# nothing. The whole output is also kept in build/test.log.
test: grade build/tests/run_tests $(FAKE_CUDA) $(FAKEGPU_LIBS) $(LAB_LIBS) $(SOLUTION_LIBS) $(ADVERSARIAL_LIBS) $(POLICY_LIBS) $(CEILING_LIBS)
	@set -o pipefail; TEST_LABS="$(TEST_LABS)" build/tests/run_tests 2>&1 | tee build/test.log

# make stability RUNS=10: the solutions of every lab graded RUNS times with
# fresh seeds, then per stage the failures, min/median/max speedup and share
# of the ceiling, and the margin to each threshold (GPU needed).
RUNS ?= 10
.PHONY: stability
stability: solutions
	@rm -rf build/stability && mkdir -p build/stability
	@for i in $$(seq 1 $(RUNS)); do \
	  ./grade all --solutions --json build/stability/run-$$i.json > build/stability/run-$$i.log 2>&1; rc=$$?; \
	  if [ $$rc = 77 ]; then echo "make: stability needs a GPU: $$(head -n 1 build/stability/run-$$i.log)"; exit 77; fi; \
	  echo "run $$i of $(RUNS): exit $$rc, $$(grep -h '^Score:' build/stability/run-$$i.log), log build/stability/run-$$i.log"; \
	done
	./grade --stability build/stability

# ---- coverage of the host code (gcovr) -----------------------------------------------
# The last line printed is the figure .ci/run shows; below COVERAGE_GOAL it says so.
COVERAGE_GOAL := 75
COV := build/cov
COV_LIB_OBJS := $(patsubst %.c,$(COV)/%.o,$(COMMON_SRC) $(GRADER_SRC))
COV_TEST_OBJS := $(patsubst %.c,$(COV)/%.o,$(TEST_SRC))
$(COV)/%.o: %.c | check-deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) --coverage -O1 -DCUDA_LABS_COVERAGE -DCUDA_LABS_COVERAGE_DIR='"$(abspath $(COV))"' $(CHECK_CFLAGS) -c $< -o $@
$(COV)/grade: $(COV)/grader/main.o $(COV_LIB_OBJS)
	$(CC) --coverage $(EXPORTS) -o $@ $^ $(CHECK_LIBS) $(CUDA_LIBS)
$(COV)/grade-small: $(COV)/grader/main.o $(COV)/grader/tests/fakegpu/small_labs.o $(filter-out %/registry.o,$(COV_LIB_OBJS))
	$(CC) --coverage $(EXPORTS) -o $@ $^ $(CHECK_LIBS) $(CUDA_LIBS)
$(COV)/run_tests: $(COV_TEST_OBJS) $(COV_LIB_OBJS)
	$(CC) --coverage $(EXPORTS) -o $@ $^ $(CHECK_LIBS) $(CUDA_LIBS)

.PHONY: coverage
coverage: grade $(COV)/grade $(COV)/grade-small $(COV)/run_tests $(FAKE_CUDA) $(FAKEGPU_LIBS) $(LAB_LIBS) $(SOLUTION_LIBS) $(ADVERSARIAL_LIBS) $(POLICY_LIBS) $(CEILING_LIBS)
	@command -v gcovr >/dev/null || { echo "make: gcovr is missing: sudo apt-get install gcovr (or pip install gcovr)"; exit 1; }
	@find $(COV) -name '*.gcda' -delete
	@mkdir -p $(COV)/build && cp -f $(LAB_LIBS) $(COV)/build/ && echo 1 > $(COV)/build/last-lab
	@mkdir -p $(COV)/build/solutions && cp -f $(SOLUTION_LIBS) $(COV)/build/solutions/
	@mkdir -p $(COV)/build/ceilings && cp -f $(CEILING_LIBS) $(COV)/build/ceilings/
	GRADE=$(COV)/grade GRADE_SMALL=$(COV)/grade-small $(COV)/run_tests
	gcovr --root . --object-directory $(COV) --filter 'common/' --filter 'grader/' \
	      --exclude 'grader/tests/' --html-details $(COV)/index.html --print-summary | tee $(COV)/summary.txt
	@awk -v goal=$(COVERAGE_GOAL) '/^lines:/ { pct = $$2 + 0; sub(/%$$/, "", $$2); \
	  printf "coverage of the grader'"'"'s host code (grader/, common/): %s%% (%s of %s lines)%s\n", $$2, substr($$3, 2), substr($$6, 1, length($$6) - 1), \
	    pct < goal ? sprintf(", below the goal of %d%%", goal) : "" }' $(COV)/summary.txt

# make bench: times the reference stages of every lab and the variants behind
# their choices, next to the ceilings (GPU needed).
build/bench_transpose: grader/tests/bench_transpose.cu grader/tests/bench_timing.cuh solutions/1-transpose/transpose.cu | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -Ilabs/1-transpose -o $@ $<
build/bench_reduce: grader/tests/bench_reduce.cu grader/tests/bench_timing.cuh solutions/2-reduce/reduce.cu | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -Ilabs/2-reduce -o $@ $<
build/bench_shuffle: grader/tests/bench_shuffle.cu grader/tests/bench_timing.cuh solutions/3-shuffle/shuffle.cu | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -Ilabs/3-shuffle -o $@ $<
# Lab 4: stages 4 to 8 at 2048^3, 4096^3 and 8192^3 next to cuBLAS.
build/bench_gemm: grader/tests/bench_gemm.cu grader/tests/bench_timing.cuh solutions/4-gemm/gemm.cu | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -Ilabs/4-gemm -o $@ $< -lcublas
# The same with stage 8 rounding to TF32 by cvt.rna, or chopping (grader/tests/settle-handouts).
build/bench_gemm_cvt build/bench_gemm_chop: build/bench_gemm_%: grader/tests/bench_gemm.cu grader/tests/bench_timing.cuh solutions/4-gemm/gemm.cu | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) $(if $(filter cvt,$*),-DBENCH_TF32_CVT,-DBENCH_TF32_CHOP) -Ilabs/4-gemm -o $@ $< -lcublas
# Lab 6: every layer, every stage, checked and timed next to cuDNN (where installed).
build/bench_conv: grader/tests/bench_conv.cu grader/tests/bench_timing.cuh solutions/6-conv/conv.cu $(OBJ)/grader/labs/conv_ref.o $(OBJ)/common/compare.o $(OBJ)/common/par.o $(OBJ)/common/rng.o | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -Ilabs/6-conv $(if $(CUDNN_H),-DHAVE_CUDNN -I$(dir $(CUDNN_H))) -o $@ $< $(filter %.o,$^) $(if $(CUDNN_H),-lcudnn) -lpthread
# Lab 5: every stage host to host, next to the measured bounds.
build/bench_streams: grader/tests/bench_streams.cu grader/tests/bench_timing.cuh solutions/5-streams/streams.cu $(OBJ)/grader/labs/streams_lab.o | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -Ilabs/5-streams -o $@ $< $(filter %.o,$^) -ldl
# Lab 7 groundwork (issue 24; not a lab yet, not in make bench): our stages
# 0-3 of a BF16 GEMM on Hopper next to cuBLAS. Always sm_90a, whatever ARCH
# says: wgmma and setmaxnreg exist only there (-arch=sm_90a alone gave
# compute_90 PTX to ptxas with nvcc 13.0).
build/bench_hopper: grader/tests/bench_hopper.cu grader/tests/bench_timing.cuh | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 -gencode arch=compute_90a,code=sm_90a -o $@ $< -lcublas
# Lab 7's bonus stage (the reference's hopper_tf32 itself) next to cuBLAS TF32.
build/bench_hopper_tf32: grader/tests/bench_hopper_tf32.cu solutions/7-hopper/hopper.cu labs/7-hopper/hopper.h | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 -gencode arch=compute_90a,code=sm_90a -Ilabs/7-hopper -o $@ $< -lcublas
# Without a GPU it says so in one line and stops (status 77) before building
# anything; each benchmark also returns 77 with one line when run without one.
.PHONY: bench bench-run
bench: grade
	@why=$$(./grade --gpu-info) || { echo "make: bench times the reference solutions on a GPU, and there is none here ($$why). Nothing was built or timed."; exit 77; }
	@$(MAKE) --no-print-directory bench-run
bench-run: build/bench_transpose build/bench_reduce build/bench_shuffle build/bench_gemm build/bench_conv build/bench_streams
	build/bench_transpose 8192 8192 30
	build/bench_reduce 268435456 30
	build/bench_shuffle 268435456 20
	build/bench_gemm 10
	build/bench_conv 10
	build/bench_streams 26 8 5
# make settle-handouts: the handouts' figures that wait for a GPU, measured
# in about a minute (grader/tests/settle-handouts; 77 without a GPU).
# settle-handouts-deps builds what it runs, on any machine.
SETTLE_DEPS := grade build/solutions/lab5.so build/ceilings/lab5.so build/bench_conv build/bench_gemm build/bench_gemm_cvt build/bench_gemm_chop build/bench_streams
.PHONY: settle-handouts settle-handouts-deps
settle-handouts-deps: $(SETTLE_DEPS)
settle-handouts: $(SETTLE_DEPS)
	grader/tests/settle-handouts
# ---- every architecture, without a GPU (make arch-check) ---------------------------
# Every skeleton, solution, ceiling, adversarial case and arch test case
# (grader/tests/arch/*.cu) compiled once per architecture to PTX and a cubin,
# keeping ptxas's resource report (build/arch/sm_XX/<kind>/<name>.ptxas). The
# launch recorder runs the lab libraries' host code over a fake CUDA runtime
# that pretends to be each GPU (grader/tests/arch/), and the arch suite of
# make test (grader/tests/check_arch.c) checks every launch against that
# architecture's limits and every reference kernel for spills; without these
# builds it reports itself skipped. make arch-table writes its table into
# handouts/instructors.md.
ARCH_SMS := 75 80 86 89 90 100 120
ARCH_CASES := $(basename $(notdir $(wildcard grader/tests/arch/*.cu)))
ARCH_INC := $(foreach l,$(LABS),-Ilabs/$(call lab_dir,$(l)))
ARCH_HEADERS := $(wildcard labs/*/*.h)
# kind/name:source:target, one per source built for architecture $(1): every
# source, but a lab with an ARCH_ONLY_<name> only for that one (target
# sm_90a for 90a; others sm_$(1)).
arch_only = $(ARCH_ONLY_$(call lab_name,$(2)))
arch_lab = $(if $(call arch_only,$(1),$(2)),$(if $(filter $(1)%,$(call arch_only,$(1),$(2))),$(3):sm_$(call arch_only,$(1),$(2))),$(3):sm_$(1))
ARCH_SOURCES = $(foreach l,$(LABS),$(call arch_lab,$(1),$(l),labs/lab$(call lab_num,$(l)):labs/$(call lab_dir,$(l))/$(call lab_name,$(l)).cu) \
                  $(call arch_lab,$(1),$(l),solutions/lab$(call lab_num,$(l)):solutions/$(call lab_dir,$(l))/$(call lab_name,$(l)).cu)) \
                $(foreach c,$(basename $(notdir $(wildcard grader/ceilings/*.cu))),ceilings/$(c):grader/ceilings/$(c).cu:sm_$(1)) \
                $(foreach a,$(filter-out %_hopper,$(ADVERSARIAL)),adversarial/$(a):grader/tests/adversarial/$(a).cu:sm_$(1)) \
                $(foreach a,$(filter %_hopper,$(ADVERSARIAL)),$(if $(filter $(1)%,$(ARCH_ONLY_hopper)),adversarial/$(a):grader/tests/adversarial/$(a).cu:sm_$(ARCH_ONLY_hopper))) \
                $(foreach c,$(ARCH_CASES),cases/$(c):grader/tests/arch/$(c).cu:sm_$(1))
# $(1) sm, $(2) kind/name, $(3) source, $(4) target. PTX first (it carries
# __launch_bounds__ as .maxntid), then ptxas -v on it, as nvcc -cubin would run it.
define ARCH_RULE
build/arch/sm_$(1)/$(2).ptxas: $(3) $(ARCH_HEADERS) | check-nvcc
	@mkdir -p $$(dir $$@)
	@echo "nvcc $(4) $(3)"
	@$$(NVCC) -O3 -lineinfo -std=c++17 -arch=$(4) $$(ARCH_INC) -ptx -o build/arch/sm_$(1)/$(2).ptx $(3)
	@$$(CUDA_HOME)/bin/ptxas -arch=$(4) -m64 -v --generate-line-info -o build/arch/sm_$(1)/$(2).cubin \
	  build/arch/sm_$(1)/$(2).ptx 2> $$@.log || { cat $$@.log; exit 1; }
	@mv $$@.log $$@
endef
arch_field = $(word $(1),$(subst :, ,$(2)))
$(foreach sm,$(ARCH_SMS),$(foreach s,$(call ARCH_SOURCES,$(sm)),$(eval $(call ARCH_RULE,$(sm),$(call arch_field,1,$(s)),$(call arch_field,2,$(s)),$(call arch_field,3,$(s))))))
ARCH_LOGS := $(foreach sm,$(ARCH_SMS),$(foreach s,$(call ARCH_SOURCES,$(sm)),build/arch/sm_$(sm)/$(call arch_field,1,$(s)).ptxas))

# The fake runtime carries the real one's soname and symbol version, so lab
# libraries bind to it; the recorder finds it next to itself.
ARCH_CFLAGS := -std=c11 -Wall -Wextra -O2 -g -I$(CUDA_HOME)/include
build/arch/fakert/cudart.map:
	@mkdir -p $(dir $@)
	@echo '$(CUDART_SONAME) { global: *; };' > $@
build/arch/fakert/libcudart.so: grader/tests/arch/fake_cudart.c grader/tests/arch/fake_cudart.h grader/tests/arch/archinfo.c grader/tests/arch/archinfo.h build/arch/fakert/cudart.map
	@test -n "$(CUDART_SONAME)" || { echo "make: cannot read the soname of $(CUDA_HOME)/lib64/libcudart.so"; exit 1; }
	$(CC) $(ARCH_CFLAGS) -fPIC -shared -Wl,-soname,$(CUDART_SONAME) -Wl,--version-script,build/arch/fakert/cudart.map \
	  -o build/arch/fakert/$(CUDART_SONAME) grader/tests/arch/fake_cudart.c grader/tests/arch/archinfo.c
	ln -sf $(CUDART_SONAME) $@
build/arch/launches: grader/tests/arch/launches.c build/arch/fakert/libcudart.so $(OBJ)/grader/labs/conv_ref.o $(OBJ)/common/compare.o $(OBJ)/common/par.o
	$(CC) $(ARCH_CFLAGS) -o $@ $< $(filter %.o,$^) -Lbuild/arch/fakert -l:$(CUDART_SONAME) \
	  -Wl,-rpath,'$$ORIGIN/fakert' -ldl -lm -pthread
# The test cases' host code, for the recorder.
build/arch/cases/%.so: grader/tests/arch/%.cu | check-nvcc
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(ARCH_INC) -o $@ $<

.PHONY: arch-build arch-check arch-table
arch-build: $(ARCH_LOGS) build/arch/launches $(addprefix build/arch/cases/,$(addsuffix .so,$(ARCH_CASES))) $(LAB_LIBS) $(SOLUTION_LIBS)
arch-check: arch-build build/tests/run_tests
	@CK_RUN_SUITE=arch build/tests/run_tests
# The table the arch suite wrote (build/arch/table.md), into the handout
# between its two marker lines.
arch-table: arch-check
	@awk 'FNR == NR { t = t $$0 "\n"; next } /<!-- arch-table begin/ { print; printf "%s", t; skip = 1; next } \
	  /<!-- arch-table end/ { skip = 0 } !skip' build/arch/table.md handouts/instructors.md > build/arch/instructors.md
	@mv build/arch/instructors.md handouts/instructors.md
	@echo "make: handouts/instructors.md: table of every architecture updated from build/arch/table.md"

endif

# ---- tools -----------------------------------------------------------------------------
# make sanitize LAB=1 [STAGE=3]: the small sizes of every stage under compute-sanitizer.
LAB ?= 1
.PHONY: sanitize
sanitize: lab$(LAB)
	./grade lab$(LAB) --sanitize $(if $(STAGE),--stage $(STAGE))

# make profile LAB=1 STAGE=3: one stage once under Nsight Compute, in plain words.
.PHONY: profile
profile: lab$(LAB)
	@if [ -z "$(STAGE)" ]; then echo "make: profile needs a stage: make profile LAB=$(LAB) STAGE=N (./grade --list shows them)."; exit 2; fi
	@CUDA_HOME="$(CUDA_HOME)" grader/profile $(LAB) $(STAGE)

# make divergence: the warp-divergence experiment of handouts/0-cuda.md: one
# branch per thread against one per warp, timed (GPU needed; exits 77 with
# one line when there is none).
build/divergence: handouts/0-cuda/divergence.cu common/cuda_check.h | check-nvcc
	@mkdir -p build
	$(NVCC) -O3 -lineinfo -std=c++17 $(GENCODE) -o $@ $<
.PHONY: divergence
divergence: build/divergence
	build/divergence

# make autolab LAB=1 HANDIN=transpose.cu: Autolab's grading step. The handin
# replaces the lab's file, the lab is built and graded, and the last line of
# the output is Autolab's {"scores": ...}, printed once. The build and the
# grading are one shell line: a failed build prints its log and the zero
# scores line, and ./grade never runs on an older library (removed first).
HANDIN ?=
.PHONY: autolab
autolab:
	@test -n "$(HANDIN)" || { echo "make: name the student's file: make autolab LAB=1 HANDIN=transpose.cu"; exit 2; }
	@dir=$$(ls -d labs/$(LAB)-*/ 2>/dev/null | head -n 1); \
	  test -n "$$dir" || { echo "make: lab $(LAB) is not available"; exit 2; }; \
	  cp "$(HANDIN)" "$$dir$$(basename $${dir%/} | cut -d- -f2-).cu"
	@mkdir -p build
	@rm -f build/lab$(LAB).so; \
	  if $(MAKE) --no-print-directory lab$(LAB) >build/autolab-build.log 2>&1; then \
	    ./grade lab$(LAB) --autolab || true; \
	  else cat build/autolab-build.log; echo '{"scores": {"lab$(LAB)": 0}}'; fi

# make student-repo DEST=dir: what students get, from what is committed here:
# the skeletons, handouts, grader and Makefile, without solutions/, the
# repository's tests, its CI and the answer keys (handouts/answers.md); ready
# to push as a template repository.
.PHONY: student-repo
student-repo:
	@test -n "$(DEST)" || { echo "make: say where: make student-repo DEST=../transpose-template"; exit 2; }
	@test ! -e "$(DEST)" || { echo "make: $(DEST) exists already: choose a new folder"; exit 2; }
	@mkdir -p "$(DEST)"
	@git archive --format=tar HEAD | tar -x -C "$(DEST)"
	@rm -rf "$(DEST)/solutions" "$(DEST)/grader/tests" "$(DEST)/.ci" "$(DEST)/.github/workflows/ci.yml" "$(DEST)/handouts/answers.md"
	@echo "make: student copy written to $(DEST) (committed files only, without solutions/, the repository's tests and the answer keys)"

.PHONY: clean
clean:
	rm -rf build grade

.PHONY: help
help:
	@echo "CUDA Labs: make targets"
	@echo "  make lab$(firstword $(AVAILABLE)) .. lab$(lastword $(AVAILABLE))     build a lab from labs/, then run ./grade (available: $(AVAILABLE))"
	@echo "  make labs             build every available lab (then ./grade all)"
	@echo "  make ceilings         the reference libraries labs $(call lab_num,$(firstword $(CEILING_LABS)))-$(call lab_num,$(lastword $(CEILING_LABS))) are measured against (make labN builds them too)"
	@echo "  make solutions        build the reference solutions; ./grade all --solutions grades them"
	@echo "  make test             the repository's tests (GPU tests skip when no GPU is present)"
	@echo "  make arch-check       every source built for sm_75..sm_120; launches, limits and spills checked (no GPU)"
	@echo "  make arch-table       the same, and its table written into handouts/instructors.md"
	@echo "  make coverage         line coverage of the host code with gcovr ($(COV)/index.html)"
	@echo "  make sanitize LAB=N   lab N's stages under compute-sanitizer's four tools (STAGE=S: one stage)"
	@echo "  make profile LAB=N STAGE=S   one stage under Nsight Compute, explained in plain words"
	@echo "  make bench            the reference solutions' benchmarks (GPU): every lab, next to its ceiling"
	@echo "  make settle-handouts  the handouts' figures still to measure, in about a minute (GPU)"
	@echo "  make divergence       handouts/0-cuda.md's experiment: a branch per thread against one per warp (GPU)"
	@echo "  make stability RUNS=10  the solutions graded RUNS times: failures and margins per stage (GPU)"
	@echo "  make student-repo DEST=dir  a copy for students: no solutions/, no repository tests"
	@echo "  make autolab LAB=N HANDIN=file   Autolab's grading step (scores line last)"
	@echo "  make clean            remove build/ and ./grade"
	@echo "Variables: ARCH=native (default) | all (fat binary sm_75..sm_90 + PTX) | sm_XY;"
	@echo "           CUDA_HOME=$(CUDA_HOME)"

-include $(shell find build -name '*.d' 2>/dev/null)

