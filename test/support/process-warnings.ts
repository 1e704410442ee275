/**
 * Hands the warnings of processes a test spawned to the test environment's guard
 * (test/support/jest-environment.js), which fails the test on a pg deprecation warning. A role
 * process logs each warning as a JSON line with a `warning` object (bin/process-output.ts); a
 * process that does not (the ops CLI) writes Node's text form to stderr.
 */
interface SeenWarning {
  source: string;
  name: string;
  message: string;
  stack?: string;
}

function seen(): SeenWarning[] | undefined {
  return (globalThis as { __rfqProcessWarnings?: SeenWarning[] }).__rfqProcessWarnings;
}

/** A role process's log line: its warning, if it is one. */
export function noteWarningLine(line: Record<string, unknown>, source: string): void {
  const w = line.warning as { name?: unknown; message?: unknown; stack?: unknown } | undefined;
  if (!w || typeof w !== 'object') return;
  seen()?.push({ source, name: String(w.name), message: String(w.message), ...(typeof w.stack === 'string' ? { stack: w.stack } : {}) });
}

/** Node's text form on stderr: `(node:1234) DeprecationWarning: ...`, one per line. */
export function noteWarningText(stderr: string, source: string): void {
  for (const m of stderr.matchAll(/^\(node:\d+\) (\w+): (.*)$/gm)) seen()?.push({ source, name: m[1], message: m[2] });
}
