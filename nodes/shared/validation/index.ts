/**
 * Input validation, one model for every node. How to use it:
 *
 * - A problem is a Violation `{ path, rule, got }`: `path` says where (keys and 0-based list
 *   positions, e.g. `['responseTiers', 1, 'tier']`), `rule` what the value must be
 *   (`must be at most 20 characters`), `got` the actual value as describeValue shows it.
 * - Collect every problem of an item before failing: a Checker (`c.string(obj, 'title', path,
 *   { required: true, max: 40 })`, `c.text` for a value in a list, `c.list` (`optional` for
 *   one the body may leave out), `c.objectEntries` for each object of a list, `c.number`,
 *   `c.oneOf`, `c.object`, `c.add`)
 *   or push `violation(path, rule, value)` yourself; then, if any, throw
 *   `violationsError(ctx, itemIndex, violations, { name, place, note })`. `name` turns a path
 *   into the field as the UI names it (nameField with your display names, list-entry nouns and
 *   the checked value, for the totals), `place` into the place in the request body (wirePath).
 *   The error reads `Item 0: "Approval Stages > Tier" (stage 2 of 3) must be ..., got 101 (and
 *   1 more problem)`: one counting convention everywhere, the item index from 0 as n8n counts
 *   items, positions in a list in words from 1 with the total, field parts joined by " > ".
 * - Single parameters: requireString, requireId, requireInteger and
 *   parseJsonObject read and check one value and throw at once; invalidInput(ctx, itemIndex,
 *   field, rule, value) is the same error for one problem of a field named in the UI's words.
 * - Small helpers: describeValue, describeKind, charLength, isPlainObject, isBlank (trims),
 *   parseCommaList.
 */
export * from './checker';
export * from './parameters';
export * from './values';
export * from './violations';
