/* Self-fuzzing the API parser: any text gets a result or an error, never a
 * crash, leak or undefined behaviour; a parsed API's fingerprint is stable. */
#include <stdint.h>
#include <stdlib.h>

#include "grammar/api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char err[1024];
  sf_api *api = sf_api_parse((const char *)data, size, "fuzz.api", err, sizeof err);
  if (api) {
    sf_api *again = sf_api_parse((const char *)data, size, "fuzz.api", err, sizeof err);
    if (!again || again->fingerprint != api->fingerprint) abort();
    sf_api_free(again);
  }
  sf_api_free(api);
  return 0;
}
