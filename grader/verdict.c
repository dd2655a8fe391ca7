#include "verdict.h"

const char *verdict_name(verdict v)
{
    static const char *const names[V_COUNT] = {
        [V_NOT_RUN] = "NOT RUN",
        [V_PASS] = "PASS",
        [V_SLOW] = "TOO SLOW",
        [V_TODO] = "NOT IMPLEMENTED",
        [V_WRONG] = "WRONG RESULT",
        [V_NOT_WRITTEN] = "NOT WRITTEN",
        [V_NAN] = "NAN IN OUTPUT",
        [V_OUT_OF_BOUNDS] = "OUT OF BOUNDS",
        [V_INPUT_MODIFIED] = "INPUT MODIFIED",
        [V_LAUNCH_ERROR] = "LAUNCH ERROR",
        [V_GPU_FAULT] = "GPU FAULT",
        [V_STAGE_ERROR] = "STAGE ERROR",
        [V_TIMEOUT] = "TIMEOUT",
        [V_CRASH] = "CRASH",
        [V_EARLY_EXIT] = "EARLY EXIT",
        [V_TIMING_ANOMALY] = "TIMING ANOMALY",
        [V_IMPOSSIBLE] = "IMPOSSIBLE",
        [V_SKIPPED] = "SKIPPED",
        [V_SETUP_ERROR] = "SETUP ERROR",
        [V_NO_TECHNIQUE] = "TECHNIQUE MISSING",
        [V_SANITIZER] = "SANITIZER FINDING",
        [V_NOT_AVAILABLE] = "NOT AVAILABLE",
        [V_REJECTED] = "REJECTED",
    };
    if ((int)v < 0 || v >= V_COUNT || !names[v])
        return "UNKNOWN";
    return names[v];
}
