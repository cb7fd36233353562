import type { IDataObject, INodeParameters, NodeApiError } from 'n8n-workflow';

import { useSimulator } from '../helpers/simulator';
import { only, runTask, TASKS } from './task.fixtures';

const sim = useSimulator();

const RECOMMENDED = '(recommended by the platform; turn off "Enforce Recommended Limits" to send it anyway)';
const list = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i + 1}`);
const images = (n: number) => list(n, 'https://files.example/image').map((url) => `${url}.png`);
const attachments = (n: number) => list(n, 'https://files.example/file').map((url) => `${url}.pdf`);
const withJson = (json: IDataObject, extra: INodeParameters = {}): INodeParameters => ({
	taskTitle: 'Within limits',
	additionalFields: { additionalJson: JSON.stringify(json) },
	...extra,
});

describe('Workplace Task: the recommended limits (title, description, tags, images, attachments)', () => {
	const overLimit: Array<[string, INodeParameters, string, string]> = [
		[
			'title over 200 characters',
			{ taskTitle: 'A'.repeat(201) },
			`Item 0: "Title" must be at most 200 characters ${RECOMMENDED}, got "${'A'.repeat(115)}..." (201 characters)`,
			'taskTitle',
		],
		[
			'description over 5000 characters',
			{ taskTitle: 'Ok', additionalFields: { taskDescription: 'é'.repeat(5001) } },
			`Item 0: "Description" must be at most 5000 characters ${RECOMMENDED}, got "${'é'.repeat(115)}..." (5001 characters)`,
			'taskDescription',
		],
		[
			'21 tags',
			withJson({ tags: list(21, 'tag') }),
			`Item 0: "Additional Fields (JSON) > tags" must have at most 20 tags ${RECOMMENDED}, got 21 tags`,
			'tags',
		],
		[
			'7 images',
			withJson({ images: images(7) }),
			`Item 0: "Additional Fields (JSON) > images" must have at most 6 images ${RECOMMENDED}, got 7 images`,
			'images',
		],
		[
			'7 attachments (13 in total with 6 images)',
			withJson({ images: images(6), attachments: attachments(7) }),
			`Item 0: "Additional Fields (JSON) > attachments" must have at most 6 attachments ${RECOMMENDED}, got 7 attachments`,
			'attachments',
		],
	];

	it.each(overLimit)('refuses %s before any request, naming item, field, rule and value', async (_name, parameters, message, place) => {
		const { error, requests, items } = await runTask(sim, parameters);
		expect(sim.log.all()).toHaveLength(0);
		expect(requests).toHaveLength(0);
		expect(items).toHaveLength(0);
		expect(error?.constructor.name).toBe('NodeOperationError');
		expect(error?.message).toBe(message);
		expect((error as NodeApiError).description).toBe(
			`Nothing was sent for this item. Problem:\n1. ${message.replace('Item 0: ', '')} [${place}]`,
		);
	});

	it('lists every limit an item is over in one error', async () => {
		const { error, requests } = await runTask(
			sim,
			withJson(
				{ tags: list(25, 'tag'), images: images(8), attachments: attachments(9) },
				{ taskTitle: 'T'.repeat(300) },
			),
		);
		expect(requests).toHaveLength(0);
		expect(error?.message).toBe(
			`Item 0: "Title" must be at most 200 characters ${RECOMMENDED}, got "${'T'.repeat(115)}..." (300 characters) (and 3 more problems)`,
		);
		expect((error as NodeApiError).description).toBe(
			[
				'Nothing was sent for this item. 4 problems:',
				`1. "Title" must be at most 200 characters ${RECOMMENDED}, got "${'T'.repeat(115)}..." (300 characters) [taskTitle]`,
				`2. "Additional Fields (JSON) > tags" must have at most 20 tags ${RECOMMENDED}, got 25 tags [tags]`,
				`3. "Additional Fields (JSON) > images" must have at most 6 images ${RECOMMENDED}, got 8 images [images]`,
				`4. "Additional Fields (JSON) > attachments" must have at most 6 attachments ${RECOMMENDED}, got 9 attachments [attachments]`,
			].join('\n'),
		);
	});

	it('sends a task exactly at every limit (200, 5000 characters, 20 tags, 6 images and 6 attachments)', async () => {
		const json = { tags: list(20, 'tag'), images: images(6), attachments: attachments(6) };
		const title = 'T'.repeat(200);
		const text = 'é'.repeat(5000);
		const { error, items, requests } = await runTask(
			sim,
			withJson(json, { taskTitle: title, additionalFields: { taskDescription: text, additionalJson: JSON.stringify(json) } }),
		);
		expect(error).toBeUndefined();
		const request = only(requests);
		expect([request.method, request.path, request.status]).toEqual(['POST', TASKS, 201]);
		expect(request.body).toEqual({ ...json, taskTitle: title, taskDescription: text });
		expect(items[0].json).toMatchObject(json);
	});

	it('with "Enforce Recommended Limits" off, sends a task over every limit exactly as given', async () => {
		const json = { tags: list(21, 'tag'), images: images(7), attachments: attachments(7) };
		const title = 'T'.repeat(201);
		const text = 'D'.repeat(5001);
		const { error, requests } = await runTask(sim, {
			taskTitle: title,
			additionalFields: { taskDescription: text, additionalJson: JSON.stringify(json) },
			options: { enforceRecommendedLimits: false },
		});
		const request = only(requests);
		expect([request.method, request.path]).toEqual(['POST', TASKS]);
		expect(request.body).toEqual({ ...json, taskTitle: title, taskDescription: text });
		// This platform enforces the recommended limits itself: its answer is the error.
		expect(request.status).toBe(422);
		expect(error?.constructor.name).toBe('NodeApiError');
		expect(error?.message).toMatch(/^ValidationError: Validation failed \[taskTitle: /);
	});

	it('leaves tags, images and attachments that are not lists to the platform', async () => {
		const { error, requests } = await runTask(sim, withJson({ tags: 'finance' }));
		expect(only(requests).body).toEqual({ tags: 'finance', taskTitle: 'Within limits' });
		expect(error?.message).toBe('ValidationError: Validation failed [tags: tags must be an array of strings]');
	});
});
