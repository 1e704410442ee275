import { Lifecycle } from '../../../shared/platform/lifecycle';
import { createLogger } from '../../../shared/platform/logging';

describe('Lifecycle', () => {
  const logger = createLogger({ level: 'silent' });

  it('closes in reverse order of registration, once, even when asked twice', async () => {
    const order: string[] = [];
    const lc = new Lifecycle(logger, 1000);
    lc.onClose('pool', () => void order.push('pool'));
    lc.onClose('server', async () => {
      await new Promise((r) => setTimeout(r, 10));
      order.push('server');
    });
    await Promise.all([lc.shutdown('test'), lc.shutdown('again')]);
    expect(order).toEqual(['server', 'pool']);
  });

  it('a closer that fails or hangs does not stop the others', async () => {
    const order: string[] = [];
    const lc = new Lifecycle(logger, 100);
    lc.onClose('last', () => void order.push('last'));
    lc.onClose('hangs', () => new Promise(() => undefined));
    lc.onClose('throws', () => {
      throw new Error('nope');
    });
    const started = Date.now();
    await lc.shutdown('test');
    expect(order).toEqual(['last']);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses registrations after shutdown began', async () => {
    const lc = new Lifecycle(logger, 100);
    await lc.shutdown('test');
    expect(() => lc.onClose('late', () => undefined)).toThrow(/shutdown has begun/);
  });
});
