import { apiFingerprint, nextVersion, versionBefore } from '../../../api/routes/api-version';
import recorded from '../../../api/routes/api-version.json';
import { API_VERSION } from '../../../api/routes/route-tags';

/**
 * API_VERSION goes up with every change of the route specs or the topic table (docs/API.md,
 * "The API version"): api-version.json records the version with the fingerprint of the
 * documents it names, and a change of either document without a new record fails here.
 */
describe('API_VERSION and the documents it names', () => {
  it('the OpenAPI and AsyncAPI documents are the ones the recorded version names', () => {
    const fingerprint = apiFingerprint();
    if (fingerprint !== recorded.fingerprint)
      throw new Error(
        `routes changed: bump API_VERSION and update the fingerprint with npm run api:fingerprint ` +
          `(API_VERSION ${API_VERSION} was recorded for ${recorded.fingerprint}; the documents are now ${fingerprint})`,
      );
    expect(API_VERSION).toBe(recorded.version);
  });

  it('the command raises the minor version, and orders versions by number', () => {
    expect(nextVersion('0.3.1')).toBe('0.4.0');
    expect(nextVersion('1.9.4')).toBe('1.10.0');
    expect(() => nextVersion('0.3')).toThrow('API_VERSION 0.3 is not major.minor.patch');
    expect(versionBefore('0.9.0', '0.10.0')).toBe(true);
    expect(versionBefore('0.10.0', '0.9.9')).toBe(false);
    expect(versionBefore('0.3.1', '0.3.1')).toBe(false);
  });
});
