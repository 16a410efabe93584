/* json_strict.h — the one rule every JSON document the runner reads goes
 * through (vector files and their manifest, hosts files, DSSE envelopes,
 * in-toto Statements, receipts): a document that two JSON readers could read
 * differently is refused, not read one way.
 *
 * cJSON alone accepts three things other readers (jq, Python's json) read
 * otherwise, each of which lets a signed document say one thing to the
 * runner and another to a person checking it:
 *   - a key twice in one object: cJSON's lookups take the first, Python and
 *     jq the last (a second "payload" after a signed one);
 *   - a \u0000 escape: cJSON's strings end there, Python's go on
 *     ("payload\u0000" is "payload" to cJSON, another key to Python);
 *   - bytes after the document: cJSON stops at the first value, jq reads a
 *     stream of them, Python refuses.
 * Each is refused with the line and column (or the JSON path) of the first
 * offence. */
#ifndef CONFORM_CORE_JSON_STRICT_H
#define CONFORM_CORE_JSON_STRICT_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* Parses len bytes of text. Returns the document, or NULL with a message in
 * err ("line L, column C: invalid JSON", "line L, column C: a \u0000 escape
 * ...", "$.a.b: key \"k\" appears twice in one object ..."). */
cJSON *json_parse_strict(const char *text, size_t len, char *err, size_t cap);

#endif
