/* Adversarial case (lab 3), less work when timed: from its fifth call at
 * the benchmark size up to its 21st (the timed ones; the call checked in
 * full after them scans it all), stage 6 scans only the first three quarters
 * of the input in every third call and fills the rest of d_out with zeros,
 * which costs less than scanning it. Six such calls of twenty leave the
 * median on whole ones, so the time alone looks honest. The correctness test
 * calls that size twice, both whole: PASS. In the speed test the grader's
 * timing witness checks every whole output against the input it loaded (and
 * the grader itself checks the audited call's against its patched input):
 * WRONG RESULT.
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
    if (n != ((size_t)1 << 28) || ++calls < 5 || calls > 21 || calls % 3 != 0)
        return scan_lookback_reference(d_in, n, d_out, d_work, stream);
    size_t head = n / 4 * 3;
    lab_status st = scan_lookback_reference(d_in, head, d_out, d_work, stream);
    if (cudaMemsetAsync(d_out + head, 0, (n - head) * sizeof(int), stream) != cudaSuccess)
        return LAB_ERROR;
    return st;
}
