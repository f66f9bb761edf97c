#include "sf_io.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <unistd.h>

int sf_write_all(int fd, const void *p, size_t n) {
  const uint8_t *b = p;
  while (n) {
    ssize_t k = write(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    b += k;
    n -= (size_t)k;
  }
  return 0;
}

int sf_read_all(int fd, void *p, size_t n, int timeout_ms) {
  uint8_t *b = p;
  while (n) {
    if (timeout_ms >= 0) {
      struct pollfd pfd = {.fd = fd, .events = POLLIN};
      int r = poll(&pfd, 1, timeout_ms);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return -1;
    }
    ssize_t k = read(fd, b, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    b += k;
    n -= (size_t)k;
  }
  return 0;
}
