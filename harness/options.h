/* options.h: run-time options of the fuzz entry points, read from the
 * environment (the engines own the command line). The list is options.def. */
#ifndef SF_OPTIONS_H
#define SF_OPTIONS_H

#include <stdio.h>

/* With SEQFUZZ_TRACE set, a call's string result is also printed whole, as
 * "seqfuzz: result N: " and a string literal of the text form (N counts the
 * calls from 1): the simplifier reads printed values from these lines. */
#define SF_TRACE_ENV    "SEQFUZZ_TRACE"
#define SF_TRACE_RESULT "seqfuzz: result "

typedef struct sf_options {
#define SF_OPTION(name, env, def, help) long name;
#include "options.def"
#undef SF_OPTION
} sf_options;

/* Defaults, overridden by the environment. A malformed value is reported on
 * stderr and the default kept. */
void sf_options_from_env(sf_options *o);
/* One line per option: variable, value, help. */
void sf_options_print(const sf_options *o, FILE *out);

#endif
