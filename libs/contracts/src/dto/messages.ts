import type { ValidationArguments } from 'class-validator';

const missing = (args: ValidationArguments) => args.value === undefined || args.value === null;

/** class-validator messages that say what is wrong: a missing field is "required", not "too long". */
export const TEXT = {
  message: (args: ValidationArguments) => (missing(args) ? `${args.property} is required` : `${args.property} must be text (a JSON string)`),
};
export const WHOLE_NUMBER = {
  message: (args: ValidationArguments) => (missing(args) ? `${args.property} is required` : `${args.property} must be a whole number`),
};
export const BOOLEAN = { message: (args: ValidationArguments) => `${args.property} must be true or false` };
export const OBJECT = {
  message: (args: ValidationArguments) => `${args.property} must be an object, not ${Array.isArray(args.value) ? 'an array' : typeof args.value}`,
};
