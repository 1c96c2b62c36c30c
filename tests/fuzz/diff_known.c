/* The known-open findings of the differential fuzzer (tests/fuzz/diff_known.h): one entry per finding that a fix
 * on another branch is about to remove. Each predicate is as narrow as the finding; the summary of every session
 * prints the entries and how many cases each excluded. */
#include "diff_known.h"

#include <string.h>

const dc_known dc_known_findings[] = {
    {NULL, NULL, NULL, NULL},
};
const size_t dc_known_count = sizeof(dc_known_findings) / sizeof(dc_known_findings[0]) - 1;

int dc_known_match(const dcase *c)
{
    for (size_t i = 0; i < dc_known_count; i++)
        if (!strcmp(dc_known_findings[i].op, c->op_name) && dc_known_findings[i].match(c)) return (int)i;
    return -1;
}
