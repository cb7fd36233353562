/**
 * The value lists of the spec's Form and Response tier objects, each written once, in the spec's
 * order (errors list the values in it). The node UI names each value in title case (valueOptions).
 */
export const FORM_STATUSES = ['drafted', 'published', 'completed', 'submitted'] as const;

export const TIER_STATUSES = ['submitted', 'drafted', 'approved', 'rejected', 'mixed', 'canceled'] as const;

/** The range of a response tier's number. */
export const TIER_MIN = 1;
export const TIER_MAX = 100;

/** What choosing an action button means (its option type). */
export const ACTION_OPTION_TYPES = ['approved', 'rejected', 'other'] as const;
