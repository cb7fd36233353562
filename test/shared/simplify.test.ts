/**
 * Simplify Output as plain functions: which operations offer it (their module names a record's
 * fields and their properties show the option), and how a record is cut down.
 */
import type { INodeProperties, INodeType } from 'n8n-workflow';

import type { Resource } from '../../nodes/shared/resource';
import { simplifyProperty } from '../../nodes/shared/descriptions/simplify';
import { pickFields, pickWrapped } from '../../nodes/shared/simplify';
import { WorkplaceBot } from '../../nodes/WorkplaceBot/WorkplaceBot.node';
import * as directMessage from '../../nodes/WorkplaceBot/actions/directMessage';
import * as group from '../../nodes/WorkplaceBot/actions/group';
import * as groupMessage from '../../nodes/WorkplaceBot/actions/groupMessage';
import * as image from '../../nodes/WorkplaceBot/actions/image';
import * as message from '../../nodes/WorkplaceBot/actions/message';
import * as user from '../../nodes/WorkplaceBot/actions/user';
import { WorkplaceForm } from '../../nodes/WorkplaceForm/WorkplaceForm.node';
import * as form from '../../nodes/WorkplaceForm/actions/form';
import { WorkplaceKnowledge } from '../../nodes/WorkplaceKnowledge/WorkplaceKnowledge.node';
import * as file from '../../nodes/WorkplaceKnowledge/actions/file';
import * as knowledgeBase from '../../nodes/WorkplaceKnowledge/actions/knowledgeBase';
import { WorkplaceTask } from '../../nodes/WorkplaceTask/WorkplaceTask.node';
import * as task from '../../nodes/WorkplaceTask/actions/task';

const NODES: Array<[INodeType, Record<string, Resource>]> = [
	[new WorkplaceKnowledge(), { knowledgeBase, file }],
	[new WorkplaceBot(), { directMessage, groupMessage, message, group, user, image }],
	[new WorkplaceForm(), { form }],
	[new WorkplaceTask(), { task }],
];

/** `resource > operation` of every operation whose module simplifies its records. */
function simplifyingOperations(resources: Record<string, Resource>): string[] {
	return Object.entries(resources).flatMap(([resource, { operations }]) =>
		Object.entries(operations)
			.filter(([, module]) => module.simplify !== undefined)
			.map(([operation]) => `${resource} > ${operation}`),
	);
}

/** `resource > operation` of every operation the node shows "Simplify Output" on. */
function operationsShowingTheOption(properties: INodeProperties[]): string[] {
	return properties
		.filter((property) => property.name === 'simplify')
		.flatMap((property) => {
			const show = property.displayOptions?.show ?? {};
			return (show.resource ?? []).flatMap((resource) => (show.operation ?? []).map((operation) => `${String(resource)} > ${String(operation)}`));
		});
}

describe('Simplify Output', () => {
	it('is offered by exactly the operations that return platform records, each showing the one shared option', () => {
		const offered = NODES.flatMap(([node, resources]) => {
			const simplifying = simplifyingOperations(resources);
			expect(operationsShowingTheOption(node.description.properties).sort()).toEqual([...simplifying].sort());
			for (const property of node.description.properties.filter((p) => p.name === 'simplify')) {
				const { displayOptions: _shown, ...rest } = property;
				expect(rest).toEqual(simplifyProperty);
			}
			return simplifying.map((operation) => `${node.description.displayName}: ${operation}`);
		});
		expect(offered).toEqual([
			'Workplace Knowledge: knowledgeBase > create',
			'Workplace Knowledge: knowledgeBase > get',
			'Workplace Knowledge: knowledgeBase > getAll',
			'Workplace Knowledge: knowledgeBase > update',
			'Workplace Knowledge: file > get',
			'Workplace Knowledge: file > getAll',
			'Workplace Knowledge: file > replace',
			'Workplace Knowledge: file > upload',
			'Workplace Bot: group > create',
			'Workplace Bot: group > getMemberInfo',
			'Workplace Bot: user > getByUsername',
			'Workplace Form: form > create',
			'Workplace Task: task > create',
		]);
	});

	it('defaults to "When Called by an AI Agent", so workflows that do not run as tools keep every field', () => {
		expect(simplifyProperty).toMatchObject({ name: 'simplify', type: 'options', default: 'asTool' });
		expect(simplifyProperty.options?.map((o) => ('value' in o ? o.value : undefined))).toEqual(['always', 'never', 'asTool']);
	});

	it('keeps the named fields a record has, under the names the platform gave them', () => {
		const record = { id: 'k1', name: 'Handbook', description: null, metadata: { a: 1 }, extra: 'x' };
		expect(pickFields(record, ['id', 'name', 'description', 'url'])).toEqual({ id: 'k1', name: 'Handbook', description: null });
	});

	it('keeps a record of a shape it does not know whole, rather than returning nothing', () => {
		const wrapped = { data: { id: 'k1', name: 'Handbook' } };
		expect(pickFields(wrapped, ['id', 'name'])).toBe(wrapped);
		expect(pickWrapped({ ok: true }, 'group', ['_id'])).toEqual({ ok: true });
		expect(pickWrapped({ group: { _id: 'g', settings: {} }, extra: 1 }, 'group', ['_id'])).toEqual({ group: { _id: 'g' } });
	});
});
