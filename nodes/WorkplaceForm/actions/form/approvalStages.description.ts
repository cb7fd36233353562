import type { INodeProperties } from 'n8n-workflow';

import { entryList, valueOptions } from '../../../shared/descriptions/fields';
import { TIER_MAX, TIER_MIN, TIER_STATUSES } from './values';

/** "Approval Stages": the body's responseTiers, first stage first (shown for staged approval). */
export const approvalStagesProperty: INodeProperties = entryList(
	'Approval Stages',
	'stages',
	{
		displayName: 'Stage',
		name: 'stage',
		values: [
			{
				displayName: 'Title',
				name: 'title',
				type: 'string',
				default: '',
				placeholder: 'e.g. Manager approval',
			},
			{
				displayName: 'Tier',
				name: 'tier',
				type: 'number',
				typeOptions: { numberPrecision: 0 },
				default: 0,
				description:
					`Stage number from ${TIER_MIN} (first) to ${TIER_MAX}. 0: the stage's position in this list (first stage 1, second 2, ...).`,
			},
			{
				displayName: 'Allowed Responders',
				name: 'allowedResponders',
				type: 'fixedCollection',
				typeOptions: { multipleValues: true },
				default: {},
				placeholder: 'Add responder',
				description:
					'Who may answer at this stage; several responders answer in parallel, and their weights count towards Minimum Weight',
				options: [
					{
						displayName: 'Responder',
						name: 'responder',
						values: [
							{
								displayName: 'Username',
								name: 'entityId',
								type: 'string',
								default: '',
								placeholder: 'e.g. bob',
								description: 'Username (not the user ID) of a person who may answer at this stage',
							},
							{
								displayName: 'Weight',
								name: 'weight',
								type: 'number',
								typeOptions: { minValue: 0 },
								default: 1,
								description: 'How much an approval by this responder counts',
							},
							{
								displayName: 'Type',
								name: 'type',
								type: 'options',
								options: [{ name: 'User', value: 'user' }],
								default: 'user',
								description: 'Kind of responder (the spec shows users)',
							},
						],
					},
				],
			},
			{
				displayName: 'Stage Options',
				name: 'stageOptions',
				type: 'collection',
				placeholder: 'Add option',
				default: {},
				options: [
					{
						displayName: 'Description',
						name: 'description',
						type: 'string',
						default: '',
					},
					{
						displayName: 'Due Date',
						name: 'dueDate',
						type: 'dateTime',
						default: '',
						description: 'When the stage is due, as an ISO 8601 date-time with offset (e.g. 2025-03-31T17:00:00+02:00); sent in UTC. A value without an offset is read in the workflow time zone.',
					},
					{
						displayName: 'Duration',
						name: 'duration',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description: 'Duration of the stage, at least 0 (the platform does not document its unit)',
					},
					{
						displayName: 'Minimum Weight',
						name: 'minimumWeight',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 1,
						description:
							'Total weight of approvals needed before the next stage starts. With two responders of weight 1: 2 = both must approve, 1 = either one.',
					},
					{
						displayName: 'Responders',
						name: 'responders',
						type: 'string',
						default: '',
						placeholder: 'e.g. bob, carol',
						description: 'Usernames sent as the stage\'s responders ({userId}), separated by commas',
					},
					{
						displayName: 'Status',
						name: 'status',
						type: 'options',
						options: valueOptions(TIER_STATUSES),
						default: 'submitted',
					},
				],
			},
		],
	},
	{
		placeholder: 'Add stage',
		description: 'The stages of the approval (responseTiers), first stage first',
		show: { approval: ['staged'] },
		sortable: true,
	},
);
