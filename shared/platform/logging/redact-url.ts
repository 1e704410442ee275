/**
 * A connection URL as a log line may show it: the password replaced by `***`, the rest (scheme,
 * user, host, port, database) kept so an operator sees which server was meant. Not a URL: `what`.
 */
export function withoutPassword(url: string, what = 'url'): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return what;
  }
}
