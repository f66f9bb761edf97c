/* sf_io.h: whole reads and writes on file descriptors (pipes), retried on
 * EINTR and short counts. */
#ifndef SF_IO_H
#define SF_IO_H

#include <stddef.h>

/* 0, or -1 when the descriptor failed or closed. */
int sf_write_all(int fd, const void *p, size_t n);
/* Exactly n bytes; timeout_ms < 0 waits forever. 0, or -1 on error, end of
 * input or timeout. */
int sf_read_all(int fd, void *p, size_t n, int timeout_ms);

#endif
