/* The differential fuzzer's known-open findings: cases excluded from a session by a precise predicate, each with a
 * one-line reason, so that a session stays honest about everything else. Delete an entry when its fix lands. */
#ifndef ORTVK_TESTS_DIFF_KNOWN_H
#define ORTVK_TESTS_DIFF_KNOWN_H

#include "diff_gen.h"

typedef struct dc_known {
    const char *op; /* the op it concerns */
    bool (*match)(const dcase *c);
    const char *when;   /* the predicate in words */
    const char *reason; /* what goes wrong, one line */
} dc_known;

extern const dc_known dc_known_findings[];
extern const size_t dc_known_count;

/* The index of the first entry matching `c`, or -1. */
int dc_known_match(const dcase *c);

#endif
