/**
 * The shared validation model (nodes/shared/validation) as plain functions: how values are
 * shown, how fields are named, and the one error every node raises for bad input.
 */
import type { INode } from 'n8n-workflow';

import { apiPath } from '../../nodes/shared/transport/apiPath';
import {
	Checker,
	describeKind,
	describeValue,
	displayPath,
	nameField,
	invalidInput,
	isBlank,
	isPlainObject,
	parseCommaList,
	violation,
	violationsError,
	wirePath,
} from '../../nodes/shared/validation';

const ctx = { getNode: () => ({ name: 'Workplace' }) as INode };

describe('describeValue', () => {
	it('names missing and empty values in words', () => {
		expect(describeValue(undefined)).toBe('nothing');
		expect(describeValue(null)).toBe('null');
		expect(describeValue('')).toBe('an empty string');
	});

	it('shows other values as JSON, cut to 120 characters; a cut string keeps its closing quote', () => {
		expect(describeValue('  ')).toBe('"  "');
		expect(describeValue([])).toBe('[]');
		expect(describeValue({ to: 'bob' })).toBe('{"to":"bob"}');
		expect(describeValue('A'.repeat(201))).toBe(`"${'A'.repeat(115)}..."`);
		expect(describeValue('é'.repeat(3), { withLength: true })).toBe('"ééé" (3 characters)');
		expect(describeValue([1, 'x'.repeat(200)])).toHaveLength(120);
	});

	it('describeKind names the kind of a wrong value', () => {
		expect([describeKind([1]), describeKind({}), describeKind(null), describeKind(3)]).toEqual(['a list', 'an object', 'null', '3']);
	});
});

describe('small predicates', () => {
	it('isBlank: missing, or text that is empty or only spaces', () => {
		expect([undefined, null, '', '  '].map(isBlank)).toEqual([true, true, true, true]);
		expect([0, false, 'a', [], {}].map(isBlank)).toEqual([false, false, false, false, false]);
	});

	it('isPlainObject: an object that is not null and not a list', () => {
		expect([{}, [], null, 'a'].map(isPlainObject)).toEqual([true, false, false, false]);
	});

	it('parseCommaList: comma-separated text or a list, trimmed, empty entries dropped', () => {
		expect(parseCommaList(' a, b ,,c ')).toEqual(['a', 'b', 'c']);
		expect(parseCommaList(['a ', 7, ''])).toEqual(['a', '7']);
		expect(parseCommaList('  ')).toEqual([]);
		expect(parseCommaList(undefined)).toEqual([]);
		expect(parseCommaList({ to: 'bob' })).toBeUndefined();
		expect(parseCommaList(['a', { b: 1 }])).toBeUndefined();
	});
});

describe('field names', () => {
	it('nameField: the field as the UI names it, and its place in its lists in words from 1, with the total', () => {
		const names = {
			keys: { responseTiers: 'Approval Stages', tier: 'Tier', allowedResponders: 'Allowed Responders', weight: 'Weight', meta: '' },
			entries: { responseTiers: 'stage', allowedResponders: 'responder' },
		};
		const body = { responseTiers: [{}, { allowedResponders: [{}, {}] }, {}] };
		expect(nameField(undefined, ['responseTiers', 1, 'tier'], names, body)).toEqual({ field: 'Approval Stages > Tier', at: 'stage 2 of 3' });
		expect(nameField(undefined, ['responseTiers', 1, 'allowedResponders', 0, 'weight'], names, body)).toEqual({
			field: 'Approval Stages > Allowed Responders > Weight',
			at: 'stage 2 of 3, responder 1 of 2',
		});
		// Without the value the total is unknown; a key named '' is hidden; a list without a noun has entries.
		expect(nameField(undefined, ['responseTiers', 1, 'meta', 'tier'], names)).toEqual({ field: 'Approval Stages > Tier', at: 'stage 2' });
		expect(displayPath('Messages', [0, 'actions', 2, 'Label (JSON)'], { entries: { Messages: 'message' } }, [{ actions: [1, 2, 3] }])).toBe(
			'Messages > actions > Label (JSON) (message 1 of 1, entry 3 of 3)',
		);
		expect(nameField(undefined, ['title'])).toEqual({ field: 'title', at: '' });
	});

	it('wirePath: the place in the body, positions from 0', () => {
		expect(wirePath(['responseTiers', 1, 'tier'])).toBe('responseTiers[1].tier');
		expect(wirePath([0, 'template'], 'messages')).toBe('messages[0].template');
	});
});

describe('violationsError', () => {
	it('one problem: the item index from 0, the field, the rule and the value; no description', () => {
		const error = invalidInput(ctx, 2, 'Knowledge Base', 'must not be empty', '');
		expect(error.message).toBe('Item 2: "Knowledge Base" must not be empty, got an empty string');
		expect(error.description).toBeFalsy();
		expect(invalidInput(ctx, 0, 'Name', 'must be text', 1, 'Why').description).toBe('Why');
	});

	it('several problems: the first in the message, every one listed with its place', () => {
		const violations = [violation(['title'], 'is required', undefined), violation(['items', 0], 'must be text', 5)];
		const error = violationsError(ctx, 1, violations, { place: (path) => wirePath(path), note: 'Positions count from 1.' });
		expect(error.message).toBe('Item 1: "title" is required, got nothing (and 1 more problem)');
		expect(error.description).toBe(
			[
				'Nothing was sent for this item. 2 problems:',
				'1. "title" is required, got nothing [title]',
				'2. "items" (entry 1) must be text, got 5 [items[0]]',
				'Positions count from 1.',
			].join('\n'),
		);
	});
});

describe('Checker', () => {
	it('collects every problem of a body in one pass', () => {
		const c = new Checker();
		const body = { title: 'x'.repeat(5), status: 'open', items: [], size: 0 };
		c.string(body, 'title', [], { required: true, max: 4 });
		c.string(body, 'name', [], { required: true });
		c.oneOf(body, 'status', [], ['done', 'todo']);
		c.list(body, 'items', [], { min: 1, noun: 'items' });
		c.number(body, 'size', [], { integer: true, above: 0 });
		expect(c.violations.map((v) => `${wirePath(v.path)}: ${v.rule}, got ${v.got}`)).toEqual([
			'title: must be at most 4 characters, got "xxxxx" (5 characters)',
			'name: is required, got nothing',
			'status: must be one of "done", "todo", got "open"',
			'items: must have at least 1 item, got 0 items',
			'size: must be a whole number greater than 0, got 0',
		]);
	});
});

describe('apiPath', () => {
	it('URL-encodes each ID of a request path, nothing else', () => {
		expect(apiPath`/knowledge/${'a b%'}/files/${'ü&1'}/download`).toBe('/knowledge/a%20b%25/files/%C3%BC%261/download');
	});
});
