/* options.h: run-time options of the fuzz entry points, read from the
 * environment (the engines own the command line). The list is options.def. */
#ifndef SF_OPTIONS_H
#define SF_OPTIONS_H

#include <stdio.h>

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
