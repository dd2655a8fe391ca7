/* grader/labs/registry.c: every lab of the course, in the order of the list
 * of labs (grader/labs/labs.def). A lab whose spec is not written yet is
 * listed with available = 0, so `./grade lab4` can say "not available yet"
 * instead of "unknown lab". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lab.h"

/* Every lab's spec, lab_<name> in grader/labs/<name>.c. */
#define LAB(number, name) extern const lab_spec lab_##name;
#include "labs.def"
#undef LAB

/* The labs in the order of labs.def: lab_table[i] is the lab at position i. */
const lab_spec *const lab_table[] = {
#define LAB(number, name) &lab_##name,
#include "labs.def"
#undef LAB
};
const int lab_count = (int)(sizeof lab_table / sizeof lab_table[0]);
_Static_assert(sizeof lab_table / sizeof lab_table[0] <= LAB_MAX,
               "grader/labs/labs.def lists more labs than LAB_MAX (grader/lab.h)");

int lab_position(int number)
{
    for (int i = 0; i < lab_count; i++)
        if (lab_table[i]->number == number)
            return i;
    return -1;
}

const lab_spec *lab_find(const char *name)
{
    if (!name || !*name)
        return NULL;
    const char *num = name;
    if (strncmp(name, "lab", 3) == 0)
        num = name + 3;
    char *end = NULL;
    long n = strtol(num, &end, 10);
    if (end != num && *end == '\0') {
        for (int i = 0; i < lab_count; i++)
            if (lab_table[i]->number == n)
                return lab_table[i];
        return NULL;
    }
    for (int i = 0; i < lab_count; i++)
        if (strcmp(name, lab_table[i]->name) == 0 || strcmp(name, lab_table[i]->dir) == 0)
            return lab_table[i];
    return NULL;
}
