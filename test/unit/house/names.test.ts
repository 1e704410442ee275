import { codeFiles, filesMatching } from './source-files';

/** One name, one meaning (docs/ARCHITECTURE.md, "Names"). */
describe('names', () => {
  const files = codeFiles();

  it('finds the code', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('the networks service is `networks`, never `registry` (the metrics registry keeps that word)', () => {
    const pattern = /\bregistry\b[^\n]*\bNetworksService\b|\bNetworksService\b[^\n]*\bregistry\b|\b(?:services|deps|h)\.registry\b/;
    expect(filesMatching(files, pattern)).toEqual([]);
  });
});
