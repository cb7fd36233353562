/**
 * A resource's operations are one table (nodes/shared/resource.ts): the compiler refuses a table
 * whose first operation is not one of its keys, or an entry without its module, and the selector
 * and the router's map come from the same entries.
 */
import type { INodeProperties } from 'n8n-workflow';

import { defineResource } from '../../nodes/shared/resource';
import type { OperationModule } from '../../nodes/shared/router';

const field = (name: string): INodeProperties => ({ displayName: name, name, type: 'string', default: '' });
const operationModule = (name: string): OperationModule => ({ description: [field(name)], execute: async () => [] });
const entry = (name: string) => ({ module: operationModule(name), name, description: `${name} something`, action: `${name} a thing` });

describe('defineResource', () => {
	it('builds the Operation selector and the router map from one table, in its order', () => {
		const resource = defineResource('thing', { create: entry('Create'), get: entry('Get') }, 'get');
		const [selector, ...fields] = resource.description;
		expect(selector).toEqual({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: ['thing'] } },
			options: [
				{ name: 'Create', value: 'create', description: 'Create something', action: 'Create a thing' },
				{ name: 'Get', value: 'get', description: 'Get something', action: 'Get a thing' },
			],
			default: 'get',
		});
		expect(fields.map((f) => f.name)).toEqual(['Create', 'Get']);
		expect(Object.keys(resource.operations)).toEqual(['create', 'get']);
	});

	it('the compiler refuses a first operation outside the table and an entry without its module', () => {
		// Never called: the build of the tests fails when the compiler accepts either line.
		const refusedByTheCompiler = () => [
			// @ts-expect-error 'update' is not an operation of the table
			defineResource('thing', { create: entry('Create') }, 'update'),
			// @ts-expect-error an entry needs its module
			defineResource('thing', { create: { name: 'Create', description: 'Create something', action: 'Create a thing' } }, 'create'),
		];
		expect(refusedByTheCompiler).toBeInstanceOf(Function);
	});
});
