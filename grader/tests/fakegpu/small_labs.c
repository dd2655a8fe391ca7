/* small_labs.c: the list of labs for build/tests/fakegpu/grade-small, a
 * ./grade whose labs time a small size instead of their benchmark, so that
 * the speed tests (the timing loop, the speed verdicts) run on the fake GPU
 * (cudart.c) in moments on a CPU. Every lab is the real spec (grader/labs/),
 * copied before main with its sizes cut after the one timed here: nothing
 * else differs from ./grade, which links grader/labs/registry.c instead. */
#include <stddef.h>

/* The real list, renamed: this file's lab_table holds the small copies. */
#define lab_table full_lab_table
#define lab_count full_lab_count
#define lab_position full_lab_position
#define lab_find full_lab_find
#include "../../labs/registry.c"
#undef lab_table
#undef lab_count
#undef lab_position
#undef lab_find
extern const lab_spec *const lab_table[];
extern const int lab_count;
int lab_position(int number);
const lab_spec *lab_find(const char *name);

enum {
#define LAB(number, name) POS_##name,
#include "../../labs/labs.def"
#undef LAB
    N_LABS
};

static lab_spec small[N_LABS];
static lab_stage small_stages[N_LABS][LAB_MAX_STAGES];

const lab_spec *const lab_table[] = {
#define LAB(number, name) &small[POS_##name],
#include "../../labs/labs.def"
#undef LAB
};
const int lab_count = N_LABS;

/* The size each lab times here (an index into its own list of sizes, which
 * ends there); a lab not named keeps its sizes. */
static const struct {
    int number, bench_size;
} timed[] = {
    {1, 1}, /* 33 x 65 */
    {2, 5}, /* n = 1000 */
    {3, 4}, /* n = 1000 */
    {4, 3}, /* 127 x 129 x 131 */
    {5, 1}, /* n = 1000 */
    {6, 2}, /* 5 x 5, no padding */
    {7, 2}, /* 128 x 256 x 64 */
};

__attribute__((constructor)) static void make_small(void)
{
    for (int i = 0; i < N_LABS; i++) {
        small[i] = *full_lab_table[i];
        for (int s = 0; s < small[i].n_stages; s++)
            small_stages[i][s] = full_lab_table[i]->stages[s];
        small[i].stages = small_stages[i];
        for (size_t k = 0; k < sizeof timed / sizeof timed[0]; k++)
            if (timed[k].number == small[i].number) {
                small[i].bench_size = timed[k].bench_size;
                small[i].n_sizes = timed[k].bench_size + 1;
                /* A stage timed at a size of its own (LAB_TIMED_AT, lab 6's
                 * stage 4) is timed at the size before the lab's here: its
                 * own is cut off, and the path stays tested. */
                for (int s = 0; s < small[i].n_stages; s++)
                    if (small_stages[i][s].timed_at)
                        small_stages[i][s].timed_at = timed[k].bench_size; /* size - 1, + 1; 0: the lab's */
            }
    }
}

int lab_position(int number)
{
    return full_lab_position(number);
}

const lab_spec *lab_find(const char *name)
{
    const lab_spec *spec = full_lab_find(name);
    return spec ? lab_table[full_lab_position(spec->number)] : NULL;
}
