/* html.h: a run as one self-contained HTML page (./grade --html FILE). */
#ifndef CUDA_LABS_HTML_H
#define CUDA_LABS_HTML_H

#include <stdio.h>

#include "formats.h"

int report_html(FILE *f, const run_summary *r);

#endif
