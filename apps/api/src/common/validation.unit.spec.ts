import 'reflect-metadata';
import { IsInt, IsString, MaxLength, validate } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { rememberValidationRules } from './validation';

const messages = async (value: object) => (await validate(value, { forbidUnknownValues: true })).flatMap((e) => Object.values(e.constraints ?? {})).sort();

describe('remembered validation rules', () => {
  it('give the same errors as a fresh look-up, and see rules registered later (subclasses included)', async () => {
    class Base {
      @IsString()
      name: unknown = 1;
    }
    const before = await messages(new Base());
    rememberValidationRules();
    rememberValidationRules(); // once only
    expect(await messages(new Base())).toEqual(before);
    expect(before).toEqual(['name must be a string']);

    // Declared after the first remembered look-up: its rules (and the inherited ones) are seen.
    class Child extends Base {
      @IsInt()
      count: unknown = 'x';
    }
    expect(await messages(new Child())).toEqual(['count must be an integer number', 'name must be a string']);
    class Later extends Base {}
    MaxLength(2)(Later.prototype, 'name');
    const later = Object.assign(new Later(), { name: 'abcd' });
    expect(await messages(later)).toEqual(['name must be shorter than or equal to 2 characters']);
    expect(await messages(Object.assign(new Base(), { name: 'abcd' }))).toEqual([]);
  });
});
