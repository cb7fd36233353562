import type { IDataObject, INodeListSearchItems } from 'n8n-workflow';

/** A record's ID as the platform names it: `id`, else `_id`. */
export function recordId(record: IDataObject): string {
	return String(record.id ?? record._id ?? '');
}

function recordName(record: IDataObject): string {
	return String(record.name ?? record.fileName ?? record.title ?? recordId(record));
}

/** Whether a name matches what the user typed in the list's search box (any case). */
export function matchesFilter(name: string, filter: string | undefined): boolean {
	const needle = filter?.trim().toLowerCase();
	return !needle || name.toLowerCase().includes(needle);
}

/**
 * The entries of a "From List" picker from records of a list endpoint, filtered by name on our
 * side (the platform's lists have no search parameter); records without an ID are left out.
 */
export function listSearchItems(records: IDataObject[], filter: string | undefined): INodeListSearchItems[] {
	return records
		.filter((record) => recordId(record) !== '')
		.map((record) => ({ name: recordName(record), value: recordId(record) }))
		.filter((item) => matchesFilter(item.name, filter));
}
