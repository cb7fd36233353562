/** The fields of Message > Send and Wait for Response, shown by the operation through updateDisplayOptions. */
import type { INodeProperties, IWebhookDescription } from 'n8n-workflow';

import { entryList, optionsCollection, valueOptions } from '../../../../shared/descriptions/fields';
import { NOT_WAITING_REPLY } from '../../../../shared/approvals/tapProtocol';
import { groupIdField, topicIdField, userFields } from '../../common.descriptions';
import { optionsProperty, property } from '../properties';
import { LIMITS } from '../spec';
import { DEFAULT_ESCALATION_TEXT, DEFAULT_REMINDER_TEXT, MAX_REMINDERS } from './schedule';

/** The button labels when a label field is left empty (the fields' defaults). */
export const DEFAULT_LABELS = {
	approve: 'Approve',
	disapprove: 'Decline',
	respond: 'Respond',
	submit: 'Submit',
} as const;

/** The texts the bot posts about in-chat answers when their fields are left as they are; `{user}` is who tapped. */
export const DEFAULT_CHAT_TEXTS = {
	approved: 'Approved by {user}',
	declined: 'Declined by {user}',
	notAllowed: '{user} may not answer this request.',
	counted: '{user} {answer}: {approvals} of {required} approvals so far',
} as const;

/** What a decline does when several approvals are required (votes.ts). */
const DECLINE_RULES = ['oneDeclines', 'countDeclines'] as const;
const DECLINE_RULE_CHOICES = {
	names: { oneDeclines: 'One Decline Decides', countDeclines: 'Count Declines Like Approvals' },
	descriptions: {
		oneDeclines: 'The first decline declines the request (a veto)',
		countDeclines: 'The request is declined once as many people declined as Approvals Required',
	},
	order: 'as listed',
} as const;

/** The most approvers one request may require. */
export const MAX_APPROVALS_REQUIRED = 50;

const inChat = { '/responseType': ['approval'], '/answerIn': ['chat'] };

/**
 * The confirmation texts: shown unless Post Confirmation is switched off. Post Confirmation is on
 * by default and absent from Options until added, so the texts must not wait for it to be added
 * (n8n drops an option whose display conditions do not hold).
 */
const confirmationText = { show: inChat, hide: { postConfirmation: [false] } };

/** The resume URLs of the operation (n8n's waiting webhooks, path = node ID), as n8n's send-and-wait nodes declare them. */
export const SEND_AND_WAIT_WEBHOOKS: IWebhookDescription[] = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

const labelHint = `At most ${LIMITS.label} characters`;

/** One kind of values in a fixedCollection (the n8n way of grouping options). */
function valuesCollection(displayName: string, name: string, values: INodeProperties[], extra: Partial<INodeProperties>): INodeProperties {
	return {
		displayName,
		name,
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		options: [{ displayName: 'Values', name: 'values', values }],
		...extra,
	};
}

const approvalOptions = valuesCollection(
	'Approval Options',
	'approvalOptions',
	[
		optionsProperty(
			'Type of Approval',
			'approvalType',
			valueOptions(['single', 'double'], { names: { single: 'Approve Only', double: 'Approve and Disapprove' }, order: 'as listed' }),
			'single',
		),
		property('string', 'Approve Button Label', 'approveLabel', labelHint, { default: DEFAULT_LABELS.approve }),
		property('string', 'Disapprove Button Label', 'disapproveLabel', labelHint, {
			default: DEFAULT_LABELS.disapprove,
			show: { approvalType: ['double'] },
		}),
	],
	{ displayOptions: { show: { responseType: ['approval'] } } },
);

export const FORM_FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'date', 'dropdown'] as const;
export type FormFieldType = (typeof FORM_FIELD_TYPES)[number];

const formFields: INodeProperties = entryList(
	'Form Fields',
	'formFields',
	{
		displayName: 'Field',
		name: 'values',
		values: [
			property('string', 'Field Label', 'fieldLabel', 'Shown above the field; also the key of its answer in the output data', {
				required: true,
				placeholder: 'e.g. Reason',
			}),
			optionsProperty('Field Type', 'fieldType', valueOptions(FORM_FIELD_TYPES, { names: { dropdown: 'Dropdown List' } }), 'text'),
			property('string', 'Options', 'fieldOptions', 'The choices of the dropdown list, separated by commas', {
				placeholder: 'e.g. Low, Medium, High',
				show: { fieldType: ['dropdown'] },
			}),
			property('string', 'Placeholder', 'placeholder', 'Shown in the empty field', {
				show: { fieldType: ['text', 'textarea', 'number', 'email'] },
			}),
			{
				displayName: 'Required Field',
				name: 'requiredField',
				type: 'boolean',
				default: false,
				description: 'Whether the form can only be sent with this field filled in',
			},
		],
	},
	{ placeholder: 'Add Form Field', show: { responseType: ['customForm'] }, sortable: true },
);

const limitWaitTime = valuesCollection(
	'Limit Wait Time',
	'limitWaitTime',
	[
		optionsProperty(
			'Limit Type',
			'limitType',
			valueOptions(['afterTimeInterval', 'atSpecifiedTime'], {
				descriptions: { afterTimeInterval: 'Stop waiting after an amount of time', atSpecifiedTime: 'Stop waiting at a date and time' },
			}),
			'afterTimeInterval',
		),
		{
			...property('number', 'Amount', 'resumeAmount', 'How long to wait', { show: { limitType: ['afterTimeInterval'] } }),
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 1,
		},
		optionsProperty('Unit', 'resumeUnit', valueOptions(['minutes', 'hours', 'days'], { order: 'as listed' }), 'hours', {
			show: { limitType: ['afterTimeInterval'] },
		}),
		{
			displayName: 'Max Date and Time',
			name: 'maxDateAndTime',
			type: 'dateTime',
			default: '',
			description: 'When to stop waiting, as an ISO 8601 date-time with offset (e.g. 2025-03-31T17:00:00+02:00); a value without an offset is read in the workflow time zone',
			displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
		},
	],
	{
		default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
		description:
			'Whether to stop waiting after a time; the execution then goes on with the input item and {"data": {"timedOut": true}} (and "approved": false for an approval)',
	},
);

const timeUnits = valueOptions(['minutes', 'hours', 'days'], { order: 'as listed' });

/** An amount and its unit (`<name>Amount`, `<name>Unit`), as Limit Wait Time asks for one. */
function delayFields(displayName: string, name: string, description: string, unit: 'hours' | 'days'): INodeProperties[] {
	return [
		{ ...property('number', displayName, `${name}Amount`, description), typeOptions: { minValue: 0, numberPrecision: 2 }, default: 1 },
		optionsProperty('Unit', `${name}Unit`, timeUnits, unit),
	];
}

const clockNote = 'Needs the Workplace Trigger of this workflow to be active: its clock sends them, also after n8n restarts';

const remindApprovers = valuesCollection(
	'Remind Approvers',
	'reminders',
	[
		...delayFields('Remind After', 'remindAfter', 'How long after the question, and after each reminder, the approvers who have not answered are reminded', 'hours'),
		{
			displayName: 'Reminders at Most',
			name: 'maxReminders',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_REMINDERS, numberPrecision: 0 },
			default: 1,
			description: 'How many reminders the question gets at most',
		},
		property(
			'string',
			'Reminder Text',
			'reminderText',
			'Posted in the chat or thread of the question; {question} is its title (else its message), {pending} the allowed approvers who have not answered yet ("an answer" when anyone may answer)',
			{ default: DEFAULT_REMINDER_TEXT },
		),
	],
	{
		default: { values: { remindAfterAmount: 1, remindAfterUnit: 'hours', maxReminders: 1, reminderText: DEFAULT_REMINDER_TEXT } },
		description: `Whether to remind the approvers who have not answered, in the question's chat. ${clockNote}.`,
		displayOptions: { show: inChat },
	},
);

const escalate = valuesCollection(
	'Escalate',
	'escalation',
	[
		...delayFields('Escalate After', 'escalateAfter', 'How long after the question it is escalated when still undecided', 'days'),
		property(
			'string',
			'Backup Approvers',
			'backupApprovers',
			'User IDs or usernames, separated by commas, whose taps count like Allowed Approvers on the buttons the escalation posts (not on the first message)',
			{ placeholder: 'e.g. dave, erin' },
		),
		optionsProperty(
			'Post In',
			'postIn',
			valueOptions(['sameChat', 'group'], {
				names: { sameChat: 'The Same Chat', group: 'Another Group or Topic' },
				descriptions: { sameChat: 'The question is posted again in its own chat or thread', group: 'The question is posted in another group or topic, whose taps count too' },
				order: 'as listed',
			}),
			'sameChat',
		),
		{ ...groupIdField, name: 'groupId', required: false, displayOptions: { show: { postIn: ['group'] } } },
		{ ...topicIdField, name: 'topicId', displayOptions: { show: { postIn: ['group'] } } },
		property(
			'string',
			'Escalation Text',
			'escalationText',
			'Posted before the question when it is escalated; {question} is its title (else its message), {backups} the Backup Approvers',
			{ default: DEFAULT_ESCALATION_TEXT },
		),
	],
	{
		default: { values: { escalateAfterAmount: 1, escalateAfterUnit: 'days', backupApprovers: '', postIn: 'sameChat', escalationText: DEFAULT_ESCALATION_TEXT } },
		description: `Whether to post the question again, with buttons of its own, when it is still undecided after a time; backup approvers answer on those buttons. ${clockNote}.`,
		displayOptions: { show: inChat },
	},
);

const notForApproval = { hide: { '/responseType': ['approval'] } };

const options = optionsCollection([
	{
		...property('string', 'Message Button Label', 'messageButtonLabel', `The button that opens the form; ${labelHint.toLowerCase()}`, {
			default: DEFAULT_LABELS.respond,
		}),
		displayOptions: notForApproval,
	},
	{
		...property('string', 'Response Form Title', 'responseFormTitle', 'Title of the form page; empty uses the message title'),
		displayOptions: notForApproval,
	},
	{
		...property('string', 'Response Form Description', 'responseFormDescription', 'Text above the form; empty uses the message'),
		displayOptions: notForApproval,
	},
	{
		...property('string', 'Response Form Button Label', 'responseFormButtonLabel', 'The button that sends the form', {
			default: DEFAULT_LABELS.submit,
		}),
		displayOptions: notForApproval,
	},
	{
		displayName: 'Post Confirmation',
		name: 'postConfirmation',
		type: 'boolean',
		default: true,
		description:
			'Whether the bot posts who answered in the chat the answer came from (Approved Confirmation or Declined Confirmation, e.g. "Approved by alice") once the execution resumes. On unless switched off here.',
		displayOptions: { show: inChat },
	},
	{
		...property(
			'string',
			'Approved Confirmation',
			'approvedConfirmation',
			'Posted in the chat when someone approves (Post Confirmation need not be added: it is on by default); {user} is their username',
			{ default: DEFAULT_CHAT_TEXTS.approved },
		),
		displayOptions: confirmationText,
	},
	{
		...property(
			'string',
			'Declined Confirmation',
			'declinedConfirmation',
			'Posted in the chat when someone declines (Post Confirmation need not be added: it is on by default); {user} is their username',
			{ default: DEFAULT_CHAT_TEXTS.declined },
		),
		displayOptions: confirmationText,
	},
	{
		...property(
			'string',
			'Reply to Others',
			'notAllowedReply',
			'Posted in the chat when someone who is not an allowed approver taps a button; {user} is their username. Empty posts nothing.',
			{ default: DEFAULT_CHAT_TEXTS.notAllowed },
		),
		displayOptions: { show: inChat },
	},
	{
		...property(
			'string',
			'Vote Counted Reply',
			'voteCountedReply',
			'Posted in the chat when a vote is counted but does not decide yet (Approvals Required above 1); {user} is who tapped, {answer} "approved" or "declined", {approvals}, {declines} and {required} the counts. Empty posts nothing.',
			{ default: DEFAULT_CHAT_TEXTS.counted },
		),
		displayOptions: { show: inChat },
	},
	remindApprovers,
	escalate,
	limitWaitTime,
]);

/** Every field of the operation, before updateDisplayOptions adds resource and operation. */
export const sendAndWaitFields: INodeProperties[] = [
	optionsProperty(
		'Send To',
		'sendTo',
		valueOptions(['user', 'group'], {
			descriptions: { user: "The user's direct chat with the bot (opened when missing)", group: "A group's main chat or one of its topics" },
			order: 'as listed',
		}),
		'user',
	),
	...userFields.map((field) => ({ ...field, displayOptions: { show: { sendTo: ['user'] } } })),
	{ ...groupIdField, displayOptions: { show: { sendTo: ['group'] } } },
	{ ...topicIdField, displayOptions: { show: { sendTo: ['group'] } } },
	property(
		'string',
		'Title',
		'title',
		`A line above the message, at most ${LIMITS.title} characters; with a title the message may have at most ${LIMITS.textWithImageOrTitle} characters`,
		{ placeholder: 'e.g. Approval required' },
	),
	property(
		'string',
		'Message',
		'message',
		`The question, at most ${LIMITS.text} characters (${LIMITS.textWithImageOrTitle} with a title). One message is sent per execution, from the first input item.`,
		{ required: true, rows: 3 },
	),
	optionsProperty(
		'Response Type',
		'responseType',
		valueOptions(['approval', 'freeText', 'customForm'], {
			descriptions: {
				approval: 'Buttons in the message approve (or disapprove)',
				customForm: 'A button in the message opens a form with the fields below',
				freeText: 'A button in the message opens a form with one text box',
			},
		}),
		'approval',
	),
	optionsProperty(
		'Answer In',
		'answerIn',
		valueOptions(['link', 'chat'], {
			names: { link: 'Browser (Response Link)', chat: 'Chat (Postback Buttons)' },
			descriptions: {
				link: "The buttons open n8n's response link in a browser: whoever opens the link answers, and the output does not say who",
				chat: "The buttons answer inside the chat: the bot's Workplace Trigger hands the tap to this node, which checks who tapped and puts them in the output",
			},
			order: 'as listed',
		}),
		'link',
		{ show: { responseType: ['approval'] } },
	),
	{
		displayName: `In-chat answers reach this node through the Workplace Trigger that receives the bot's events: keep that trigger's workflow active, with Signature Verification "Webhook Secret" and Use Bot Credential on (its bot posts the confirmations and replies), and select here the Workplace Webhook API credential holding the same secret. A tap after the answer gets a fixed reply, once per person: "${NOT_WAITING_REPLY}"`,
		name: 'inChatNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { responseType: ['approval'], answerIn: ['chat'] } },
	},
	property(
		'string',
		'Allowed Approvers',
		'allowedApprovers',
		'User IDs or usernames of the people who may answer, separated by commas. Empty: the recipient in a direct chat; anyone who sees the message in a group or topic.',
		{ placeholder: 'e.g. alice, 64f0a0000000000000000002', show: { responseType: ['approval'], answerIn: ['chat'] } },
	),
	{
		displayName: 'Approvals Required',
		name: 'approvalsRequired',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_APPROVALS_REQUIRED, numberPrecision: 0 },
		default: 1,
		description:
			"How many different allowed approvers must approve before the workflow goes on; 1: the first answer decides. Until then each vote is confirmed in the chat (Vote Counted Reply) and a person's second tap does not count. The output's responders lists every counted person with their answer and time.",
		displayOptions: { show: { responseType: ['approval'], answerIn: ['chat'] } },
	},
	optionsProperty('When Someone Declines', 'declineRule', valueOptions(DECLINE_RULES, DECLINE_RULE_CHOICES), 'oneDeclines', {
		show: { responseType: ['approval'], answerIn: ['chat'] },
	}),
	approvalOptions,
	formFields,
	options,
];
