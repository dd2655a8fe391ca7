/* Adversarial case (lab 3), less work when timed: from its third call at
 * the benchmark size up to its 21st (the timed ones), stage 6 scans only the
 * first three quarters of the input in every other call, leaving the rest of d_out as it was. The
 * correctness test calls that size twice, both whole: PASS. In the speed
 * test the grader's timing witness fills d_out with 0x80 bytes before every
 * call and checks each whole output against the input it loaded: WRONG
 * RESULT.
 * lab: 3
 * expect: 6 correctness PASS
 * expect: 6 speed WRONG RESULT
 * expect-output: kept from an earlier call
 * grade-args: --stage 6
 */
#define scan_lookback scan_lookback_reference
#include "../../../solutions/3-shuffle/shuffle.cu"
#undef scan_lookback

extern "C" lab_status scan_lookback(const int *d_in, size_t n, int *d_out, void *d_work,
                                    cudaStream_t stream)
{
    static int calls;
    if (n == ((size_t)1 << 28) && ++calls >= 3 && calls <= 21 && calls % 2 == 1)
        return scan_lookback_reference(d_in, n / 4 * 3, d_out, d_work, stream);
    return scan_lookback_reference(d_in, n, d_out, d_work, stream);
}
