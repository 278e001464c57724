import { Injectable, type PipeTransform } from '@nestjs/common';
import { ID_PATTERN } from '@rewind/engine';
import { ApiError } from '../common/api-error';

/** Session, tool call and turn ids in paths. */
@Injectable()
export class IdParamPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!ID_PATTERN.test(value)) {
      throw new ApiError(
        400,
        'validation_failed',
        `"${value.slice(0, 140)}" is not a valid id: use 1-128 letters, digits, "_", "-" or "." (not "." or ".." alone).`,
        [{ field: 'id', message: 'invalid id' }],
      );
    }
    return value;
  }
}

/** Memory keys and context variable names: 1-256 printable characters. */
@Injectable()
export class NameParamPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (value.length < 1 || value.length > 256 || /[\u0000-\u001f]/.test(value)) {
      throw new ApiError(400, 'validation_failed', 'Names (memory keys, context variables) must be 1-256 printable characters.', [
        { field: 'name', message: 'invalid name' },
      ]);
    }
    return value;
  }
}
