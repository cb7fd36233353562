/**
 * The form of Free Text and Custom Form: its fields as the node defines them (checked before the
 * message is sent) and the answers a submitted form carries (checked before the execution resumes).
 */
import type { IDataObject } from 'n8n-workflow';

import { isCalendarDate } from '../../../../shared/dates';
import type { Violation } from '../../../../shared/validation';
import { isPlainObject, parseCommaList, violation } from '../../../../shared/validation';
import { OUTPUT_FIELDS } from './answerData';
import type { FormFieldType } from './description';
import { FORM_FIELD_TYPES } from './description';

export interface FormField {
	/** Shown above the input. */
	label: string;
	/** Key of the answer in the output's `data`. */
	key: string;
	type: FormFieldType;
	required: boolean;
	placeholder: string;
	/** Choices of a dropdown list. */
	choices: string[];
}

/** The one field of Free Text; its answer is `data.text`. */
export const FREE_TEXT_FIELDS: FormField[] = [
	{ label: 'Response', key: 'text', type: 'textarea', required: true, placeholder: '', choices: [] },
];

/** The Custom Form fields of `formFields.values`, and every problem of their definition. */
export function customFormFields(raw: unknown): { fields: FormField[]; violations: Violation[] } {
	const entries = Array.isArray(raw) ? raw : [];
	const violations: Violation[] = [];
	if (entries.length === 0) violations.push(violation(['Form Fields'], 'must have at least 1 field', raw ?? []));
	const seen = new Set<string>();
	const fields = entries.map((entry, index): FormField => {
		const values = isPlainObject(entry) ? entry : {};
		const at = ['Form Fields', index];
		const label = typeof values.fieldLabel === 'string' ? values.fieldLabel.trim() : '';
		if (label === '') violations.push(violation([...at, 'Field Label'], 'must not be empty', values.fieldLabel ?? ''));
		else if (seen.has(label)) violations.push(violation([...at, 'Field Label'], 'must differ from the other labels', label));
		else if ((OUTPUT_FIELDS as readonly string[]).includes(label)) {
			violations.push(violation([...at, 'Field Label'], `must not be one of the names the output gives its own fields (${OUTPUT_FIELDS.join(', ')})`, label));
		}
		seen.add(label);
		const type = (FORM_FIELD_TYPES as readonly unknown[]).includes(values.fieldType) ? (values.fieldType as FormFieldType) : 'text';
		const choices = type === 'dropdown' ? (parseCommaList(values.fieldOptions) ?? []) : [];
		if (type === 'dropdown' && choices.length === 0) {
			violations.push(violation([...at, 'Options'], 'must list at least 1 choice, separated by commas', values.fieldOptions ?? ''));
		}
		return {
			label,
			key: label,
			type,
			required: values.requiredField === true,
			placeholder: typeof values.placeholder === 'string' ? values.placeholder : '',
			choices,
		};
	});
	return { fields, violations };
}

/** The name of a field's input in the form page and the submitted body. */
export function inputName(index: number): string {
	return `field-${index}`;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function problem(field: FormField, text: string): string | undefined {
	if (text === '') return field.required ? 'This field is required' : undefined;
	switch (field.type) {
		case 'number':
			return Number.isFinite(Number(text)) ? undefined : 'Enter a number';
		case 'email':
			return EMAIL.test(text) ? undefined : 'Enter an email address';
		case 'date':
			return isCalendarDate(text) ? undefined : 'Enter a date (YYYY-MM-DD)';
		case 'dropdown':
			return field.choices.includes(text) ? undefined : 'Choose one of the options';
		default:
			return undefined;
	}
}

function answer(field: FormField, text: string): string | number | null {
	if (field.type === 'number') return text === '' ? null : Number(text);
	return text;
}

/**
 * The submitted fields: a form-urlencoded or JSON body as n8n parses it, or a multipart body,
 * which n8n gives as `{data: {<name>: value}, files}`.
 */
function submittedFields(body: unknown): IDataObject {
	if (!isPlainObject(body)) return {};
	if (isPlainObject(body.data) && !Object.keys(body).some((key) => key.startsWith('field-'))) return body.data;
	return body;
}

/**
 * The answers of a submitted form (multipart, form-urlencoded or JSON): `values` keyed as the
 * output names them, `texts` as typed (to show the form again), `errors` by field index.
 */
export function readAnswers(
	fields: FormField[],
	body: unknown,
): { values: IDataObject; texts: string[]; errors: Array<string | undefined> } {
	const submitted = submittedFields(body);
	const texts = fields.map((_, index) => {
		const value = submitted[inputName(index)];
		return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
	});
	const errors = fields.map((field, index) => problem(field, texts[index]));
	const values: IDataObject = {};
	fields.forEach((field, index) => {
		values[field.key] = answer(field, texts[index]);
	});
	return { values, texts, errors };
}
