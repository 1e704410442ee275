/**
 * The npm packages dev/ drives: Hardhat runs the local node, solc-js compiles the reference
 * contracts. They are devDependencies, so a production install (`npm ci --omit=dev`) has
 * neither; whatever needs them checks first and says what to do instead of failing deep inside
 * a child process or a compile.
 */
export const DEV_TOOLS = ['hardhat', 'solc'] as const;
export type DevTool = (typeof DEV_TOOLS)[number];

/** The tools of `tools` that this install cannot resolve. */
export function missingDevTools(tools: readonly DevTool[] = DEV_TOOLS): DevTool[] {
  return tools.filter((name) => {
    try {
      require.resolve(`${name}/package.json`);
      return false;
    } catch {
      return true;
    }
  });
}

/** "hardhat and solc are not installed (...)": the part of the message every caller shares. */
export function notInstalled(missing: readonly DevTool[]): string {
  const verb = missing.length === 1 ? 'is' : 'are';
  return `${missing.join(' and ')} ${verb} not installed (an \`npm ci --omit=dev\` install has no devDependencies; \`npm ci\` installs them)`;
}

/** Throws, naming what is missing and how to get it, unless every tool in `tools` is installed. */
export function assertDevTools(purpose: string, tools: readonly DevTool[] = DEV_TOOLS): void {
  const missing = missingDevTools(tools);
  if (missing.length > 0) throw new Error(`${purpose} needs ${missing.join(' and ')}, but ${notInstalled(missing)}`);
}
