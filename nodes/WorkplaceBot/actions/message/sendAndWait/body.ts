/**
 * The message of Send and Wait for Response: one v2 push buttons template whose `uri` actions
 * open n8n's signed resume URLs, or whose `postback` actions carry answer tokens (in-chat answers,
 * ../../../../shared/approvals/tapProtocol.ts), checked with the Bot message checker before anything is sent.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { AnswerCode } from '../../../../shared/approvals/tapProtocol';
import type { FieldName, FieldPath } from '../../../../shared/validation';
import { violationsError, wirePath } from '../../../../shared/validation';
import { validateMessages } from '../validate';
import { DEFAULT_LABELS } from './description';
import { nodeParameter } from '../../../../shared/parameters';

export type ResponseType = 'approval' | 'freeText' | 'customForm';

/** A button of the message: its label, the UI field that names it, and the query of its resume URL. */
export interface ButtonSpec {
	label: string;
	field: string;
	query: Record<string, string>;
	/** The answer of an approval button. */
	answer?: AnswerCode;
}

/** A button as sent: a link to its resume URL, or a postback carrying its answer token. */
export type SentButton = ButtonSpec & ({ linkUri: string } | { data: string });

export interface SendAndWaitMessage {
	title: string;
	text: string;
	buttons: SentButton[];
}

/** The query parameter that tells one wait of this node from another (e.g. in a loop). */
export const NONCE_PARAM = 'nonce';

function labelOr(value: unknown, fallback: string): string {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
}

/** The buttons of the response type, in the order they are shown. */
export function buttonSpecs(ctx: IExecuteFunctions, itemIndex: number, responseType: ResponseType): ButtonSpec[] {
	if (responseType !== 'approval') {
		const options = nodeParameter(ctx, 'options', itemIndex, {}) as IDataObject;
		return [
			{
				label: labelOr(options.messageButtonLabel, DEFAULT_LABELS.respond),
				field: 'Options > Message Button Label',
				query: {},
			},
		];
	}
	return approvalButtons(nodeParameter(ctx, 'approvalOptions.values', itemIndex, {}) as IDataObject);
}

/** The buttons of an approval from its Approval Options: Approve, and Decline for Approve and Disapprove. */
export function approvalButtons(values: IDataObject): ButtonSpec[] {
	const approve: ButtonSpec = {
		label: labelOr(values.approveLabel, DEFAULT_LABELS.approve),
		field: 'Approval Options > Approve Button Label',
		query: { approved: 'true' },
		answer: 'a',
	};
	if (values.approvalType !== 'double') return [approve];
	return [
		approve,
		{
			label: labelOr(values.disapproveLabel, DEFAULT_LABELS.disapprove),
			field: 'Approval Options > Disapprove Button Label',
			query: { approved: 'false' },
			answer: 'd',
		},
	];
}

/**
 * The signed resume URL of a button: n8n's getSignedResumeUrl (n8n 1.107 and newer), after
 * asking n8n to check the signature when the link is opened (n8n 1.x; n8n 2 always checks it).
 */
export function resumeUrlSigner(
	ctx: IExecuteFunctions,
	itemIndex: number,
	nonce: string,
): (query: Record<string, string>) => string {
	if (typeof ctx.getSignedResumeUrl !== 'function') {
		throw new NodeOperationError(
			ctx.getNode(),
			'Send and Wait for Response needs n8n 1.107 or newer (signed resume URLs)',
			{ itemIndex },
		);
	}
	if (typeof ctx.setSignatureValidationRequired === 'function') ctx.setSignatureValidationRequired();
	return (query) => ctx.getSignedResumeUrl({ ...query, [NONCE_PARAM]: nonce });
}

/** The push `messages` array: one buttons template. */
export function pushMessages({ title, text, buttons }: SendAndWaitMessage): IDataObject[] {
	const template: IDataObject = { type: 'buttons' };
	if (title !== '') template.title = title;
	template.text = text;
	template.actions = buttons.map((button) =>
		'data' in button
			? { type: 'postback', label: button.label, data: button.data }
			: { type: 'uri', label: button.label, linkUri: button.linkUri },
	);
	return [{ type: 'template', altText: title === '' ? text : `${title}: ${text}`, template }];
}

/** Checks the built messages against every documented limit; throws one error naming the fields. */
export function checkMessages(
	ctx: IExecuteFunctions,
	itemIndex: number,
	message: SendAndWaitMessage,
	messages: IDataObject[],
): void {
	const violations = validateMessages(messages);
	if (violations.length === 0) return;
	const name = (path: FieldPath): string | FieldName => {
		const [, part, key, index, leaf] = path;
		if (part === 'altText') return 'Message';
		if (part !== 'template') return wirePath(path, 'messages');
		if (key === 'text') return 'Message';
		if (key === 'title') return 'Title';
		if (key === 'actions' && typeof index === 'number') {
			const button = message.buttons[index];
			if (leaf === 'label' && button) return button.field;
			if (leaf === 'linkUri') {
				return { field: 'Resume URL (built by n8n)', at: `button ${index + 1} of ${message.buttons.length}` };
			}
			if (leaf === 'data') {
				return { field: 'Answer token (built by the node)', at: `button ${index + 1} of ${message.buttons.length}` };
			}
		}
		return wirePath(path, 'messages');
	};
	throw violationsError(ctx, itemIndex, violations, {
		name,
		place: (path) => wirePath(path, 'messages'),
		note: 'The message is a buttons template; the part in brackets is the place in the request body.',
	});
}
