/**
 * A package's prebuilt native binding (`'secp256k1/bindings'`, `'keccak/bindings'`), or null when
 * it does not load here (no prebuild for the platform, another runtime). Only the binding module
 * is asked for, never the package's own JavaScript fallback, which is slower than the one the
 * caller keeps; and it is a require, not an import, so a platform without the binding falls back
 * instead of failing to start.
 */
export function optionalBinding<T>(id: string): T | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(id) as T;
  } catch {
    return null;
  }
}
