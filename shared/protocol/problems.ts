import { ValidationError, type FieldProblem } from '../platform/errors';

/**
 * Collects one problem per bad field so a caller learns every mistake at once; the first
 * message recorded for a path wins.
 */
export class Problems {
  private readonly byPath = new Map<string, string>();

  add(path: string, message: string): void {
    if (!this.byPath.has(path)) this.byPath.set(path, message);
  }

  has(path: string): boolean {
    return this.byPath.has(path);
  }

  get count(): number {
    return this.byPath.size;
  }

  list(): FieldProblem[] {
    return [...this.byPath].map(([path, message]) => ({ path, message }));
  }

  /** Throws the project's ValidationError naming every problem, if there are any. */
  throwIfAny(): void {
    if (this.byPath.size === 0) return;
    const details = this.list();
    const summary = details.length === 1 ? `${details[0].path}: ${details[0].message}` : `${details.length} invalid fields`;
    throw new ValidationError(details, `invalid request: ${summary}`);
  }
}

/** `root[index]` or `root.key`, the way clients write paths. */
export const at = (root: string, key: string | number): string =>
  typeof key === 'number' ? `${root}[${key}]` : root === '' ? key : `${root}.${key}`;
