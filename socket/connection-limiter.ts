/** Why an upgrade was refused; also the `reason` label of `socket_upgrades_refused_total`. */
export type ConnectionRefusal = 'replica_full' | 'per_ip';

/**
 * Open connections of one replica, in total and per client address. A slot is taken when an
 * upgrade is let through and given back when its TCP socket closes, whether the handshake
 * completed or not, so a client cannot hold slots with half-done handshakes either.
 */
export class ConnectionLimiter {
  private total = 0;
  private readonly perAddress = new Map<string, number>();

  constructor(
    private readonly maxTotal: number,
    private readonly maxPerAddress: number,
  ) {}

  /** Takes a slot for `address`, or says which cap refuses it. */
  acquire(address: string): ConnectionRefusal | null {
    if (this.total >= this.maxTotal) return 'replica_full';
    const n = this.perAddress.get(address) ?? 0;
    if (n >= this.maxPerAddress) return 'per_ip';
    this.total++;
    this.perAddress.set(address, n + 1);
    return null;
  }

  release(address: string): void {
    const n = this.perAddress.get(address);
    if (n === undefined) return;
    this.total--;
    if (n <= 1) this.perAddress.delete(address);
    else this.perAddress.set(address, n - 1);
  }
}
