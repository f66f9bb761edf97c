/* run_server.h: a seqfuzz fuzzer as a fork server for tools that run many
 * single inputs (the simplifier's candidates, triage).
 *
 * Starting a fuzzer binary costs tens of milliseconds (sanitizer runtime,
 * grammar, library start-up, libFuzzer's own tables), and a minimizer runs
 * hundreds of candidates. With SEQFUZZ_RUN_SERVE set, the fuzzer initializes
 * once and then, for each request, forks a child that runs one input file
 * and reports like `fuzzer -timeout=T -runs=1 FILE` would: the sanitizers'
 * own reports, a leak check at the end, and for what libFuzzer's driver
 * would report (a timeout, a deadly signal such as abort(), a malloc over
 * the 2048 MB limit) a line "ERROR: seqfuzz: timeout|deadly signal|
 * out-of-memory ..." with the stack. All output goes to FILE.log. A crash
 * kills only the child. The client side is sf_runner (simplifier/crash.h).
 *
 * Protocol (text lines): the server first writes SF_RUN_SERVER_HELLO; each
 * request is "TIMEOUT PATH\n"; the answer is the child's raw wait status
 * as "STATUS\n" (-1: the server gives up and leaves; start another). The
 * server leaves when its input closes. */
#ifndef SF_RUN_SERVER_H
#define SF_RUN_SERVER_H

#include <stddef.h>
#include <stdint.h>

#define SF_RUN_SERVE_ENV    "SEQFUZZ_RUN_SERVE"
#define SF_RUN_SERVER_HELLO "seqfuzz-run-server 1\n"

/* Serve on stdin/stdout, running inputs with test_one
 * (LLVMFuzzerTestOneInput). Does not return. */
void sf_run_server(int (*test_one)(const uint8_t *data, size_t size)) __attribute__((noreturn));

#endif
