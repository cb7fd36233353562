/**
 * A request path with its IDs URL-encoded, the one place they are: `` apiPath`/knowledge/${id}/files` ``.
 * IDs stay plain everywhere else (outputs, file names, error texts).
 */
export function apiPath(parts: TemplateStringsArray, ...ids: Array<string | number>): string {
	return parts.reduce((path, part, index) => path + encodeURIComponent(String(ids[index - 1])) + part);
}
