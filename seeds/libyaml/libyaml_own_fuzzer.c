/* libyaml_own_fuzzer.c: the baseline harness for libyaml.
 *
 * The Debian source of libyaml 0.2.5 ships no fuzz harness.  OSS-Fuzz fuzzes
 * libyaml with a set of harnesses; the one that exercises the library's
 * main entry point is libyaml_parser_fuzzer, which this file re-creates (own
 * code, same shape): the input is the YAML stream, given to the parser with
 * yaml_parser_set_input_string, and yaml_parser_parse is called in a loop,
 * deleting every event, until STREAM-END or an error; then the parser is
 * deleted.  It links the same libyaml.a as libyaml_seqfuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  yaml_parser_t parser;
  yaml_event_t event;
  int done = 0;

  if (!yaml_parser_initialize(&parser))
    return 0;
  yaml_parser_set_input_string(&parser, data, size);

  while (!done) {
    if (!yaml_parser_parse(&parser, &event))
      break;
    done = (event.type == YAML_STREAM_END_EVENT);
    yaml_event_delete(&event);
  }

  yaml_parser_delete(&parser);
  return 0;
}
