/* chart.h: a lab's results as an SVG bar chart (./grade --plot DIR, and the
 * HTML report). Pure host code. */
#ifndef CUDA_LABS_CHART_H
#define CUDA_LABS_CHART_H

#include <stdio.h>

#include "../common/devinfo.h"
#include "lab.h"
#include "results.h"

int chart_svg(FILE *f, const lab_spec *spec, const lab_results *res, const devinfo *dev);

#endif
