/**
 * Workplace Bot's "Thread" picker (Message > Send to Thread): the listSearch method
 * run through n8n-core's LoadOptionsContext against the simulator's topic list
 * (GET /bot/v1/groups/{gid}/topics, a chosen endpoint: docs/assumptions.md).
 */
import type { NodeApiError } from 'n8n-workflow';

import { SEED } from '../../simulator/seed';
import { runListSearch } from '../helpers/engine';
import { only, useSimulator } from '../helpers/simulator';
import { botCredentials, runBot } from './bot.fixtures';

const sim = useSimulator();
const project = SEED.groups.project;
const release = project.topics.release;
const MAIN_CHAT = { name: 'Main Chat', value: '' };
const topicsPath = (gid: string) => `/bot/v1/groups/${gid}/topics`;

function searchThreads(groupId: unknown, filter?: string) {
	sim.log.clear();
	return runListSearch({
		nodeType: 'workplaceBot',
		method: 'searchThreads',
		parameters: { resource: 'message', operation: 'push', groupId, threadId: { __rl: true, mode: 'list', value: '' } } as never,
		credentials: botCredentials(sim),
		filter,
	});
}

const topicRequests = () => sim.log.all().filter((r) => r.interface === 'bot');

describe('Workplace Bot: Thread picker (From List)', () => {
	it("lists the main chat first, then the group's topics, also one just created through Group > Create Topic", async () => {
		const created = await runBot(sim, { resource: 'group', operation: 'createTopic', groupId: project._id, topicName: 'Hotfixes' });
		expect(created.error).toBeUndefined();
		const hotfixes = created.items[0].json.topic as { _id: string; name: string };

		const list = await searchThreads(project._id);
		expect(list).toEqual({
			results: [MAIN_CHAT, { name: release.name, value: release._id }, { name: 'Hotfixes', value: hotfixes._id }],
		});
		const request = only(topicRequests());
		expect([request.method, request.path, request.status, request.body]).toEqual(['GET', topicsPath(project._id), 200, undefined]);
		expect(request.headers.authorization).toBe(`Bearer ${sim.state.tokens().at(-1)?.token}`);
	});

	it('filters by name in any case; "main" finds the main chat', async () => {
		expect((await searchThreads(project._id, 'RELEASE')).results).toEqual([{ name: release.name, value: release._id }]);
		expect((await searchThreads(project._id, 'main')).results).toEqual([MAIN_CHAT]);
		expect((await searchThreads(project._id, 'nothing like it')).results).toEqual([]);
	});

	it('offers only the main chat, asking nothing, while the group is empty or an expression', async () => {
		for (const groupId of [undefined, '', '  ', '={{ $json.gid }}']) {
			expect(await searchThreads(groupId)).toEqual({ results: [MAIN_CHAT] });
			expect(topicRequests()).toEqual([]);
		}
	});

	it.each([404, 405, 501])('a platform without the topic list (%i) gets the main chat alone: a topic is then given By ID', async (status) => {
		sim.faults.add({ method: 'GET', path: topicsPath(project._id), status, times: Infinity });
		expect(await searchThreads(project._id)).toEqual({ results: [MAIN_CHAT] });
		expect(topicRequests().every((r) => r.path === topicsPath(project._id) && r.status === status)).toBe(true);
		sim.faults.clear();
	});

	it('a group the bot is not in fails with the platform\'s words and the possible causes', async () => {
		const leadership = SEED.groups.leadership;
		const error = (await searchThreads(leadership._id).catch((e: unknown) => e)) as NodeApiError;
		expect(error.constructor.name).toBe('NodeApiError');
		expect(error.httpCode).toBe('403');
		expect(error.message).toBe(`HTTP 403 bot_not_in_group: The bot is not a member of group ${leadership._id}`);
		expect(error.description).toContain('Possible causes:\n- the bot is not a member of the group');
		expect(only(topicRequests()).status).toBe(403);
	});
});
