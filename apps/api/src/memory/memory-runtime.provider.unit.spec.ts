import { IndexUnavailableError } from '@rewind/memory';
import { ModelUnavailableError } from '@rewind/memory/onnx';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../common/api-error';
import { memoryUnavailable } from './memory-runtime.provider';

describe('memoryUnavailable', () => {
  it('answers 503 memory_unavailable, with the cause said, when the model or the index cannot be had; anything else stays what it is (a 500)', () => {
    for (const error of [new ModelUnavailableError('no model jar'), new IndexUnavailableError('index file locked')]) {
      const thrown = (() => {
        try {
          memoryUnavailable(error);
        } catch (caught) {
          return caught;
        }
      })();
      expect(thrown).toBeInstanceOf(ApiError);
      expect(thrown).toMatchObject({ status: 503, code: 'memory_unavailable', message: error.message });
    }
    const bug = new TypeError('x is undefined');
    expect(() => memoryUnavailable(bug)).toThrow(bug);
  });
});
