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

  it('closes a part registered after shutdown began at once, instead of failing the start-up that opened it', async () => {
    const lc = new Lifecycle(logger, 100);
    expect(lc.shuttingDown).toBe(false);
    const draining = lc.shutdown('test');
    expect(lc.shuttingDown).toBe(true);
    const closed = new Promise<string>((resolve) => lc.onClose('late', () => resolve('late closed')));
    await draining;
    await expect(closed).resolves.toBe('late closed');
  });
});
