/* fakegpu.h: what the host-memory CUDA runtime (cudart.c) offers the C stand-ins
 * for lab libraries and ceilings beside the runtime's own calls. */
#ifndef CUDA_LABS_FAKEGPU_H
#define CUDA_LABS_FAKEGPU_H

/* What a device-to-device copy of b bytes costs on the fake GPU, in ms:
 * FAKEGPU_UNIT_MS, far above the host's own time for any graded size, plus
 * the bytes read and written at FAKEGPU_COPY_GBS. */
#define FAKEGPU_UNIT_MS 2000.0
#define FAKEGPU_COPY_GBS 1000.0
#define FAKEGPU_COPY_MS(b) (FAKEGPU_UNIT_MS + 2.0 * (double)(b) / (FAKEGPU_COPY_GBS * 1e6))

/* The work just queued would take ms on the GPU: events move on by that. */
void fakegpu_spend(double ms);
/* The next cudaGetLastError reports a launch error (launch != 0); every
 * synchronise from now on an illegal address (sync != 0). */
void fakegpu_fail(int launch, int sync);

#endif
