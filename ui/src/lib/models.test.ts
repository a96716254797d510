import { describe, expect, it } from 'vitest';
import type { CatalogModel } from './bindings';
import { partialPercent, sizeMb } from './models';

const model = (size: number, partialBytes: number | null): CatalogModel => ({
  name: 'm', title: 'M', file: 'm.gguf', url: 'https://example.org/m.gguf', size, sha256: null, sha256Source: null,
  licence: 'MIT', contextLength: 4096, parameters: '1 B', ramMb: 900, tasks: ['chat'], notes: '',
  pulled: false, partialBytes, fit: 'comfortable', hint: '',
});

describe('catalog figures', () => {
  it('shows bytes as megabytes and a kept part as a percentage', () => {
    expect(sizeMb(model(1066 * 1024 * 1024, null))).toBe(1066);
    expect(partialPercent(model(1000, null))).toBeNull();
    expect(partialPercent(model(1000, 375))).toBe(37);
    expect(partialPercent(model(0, 0))).toBe(0);
  });
});
