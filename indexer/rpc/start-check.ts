import type { DataSource } from 'typeorm';
import type { Config } from '../../shared/platform/config';
import type { StartCheck } from '../../shared/platform/health';
import { rawRpc } from '../../shared/chain/clients';
import { NetworksService } from '../../shared/networks';
import { redactUrl } from './provider-stats';

/** The URLs a tailer calls: its http(s) ones, or the ws(s) ones over the same host's HTTP (network-tailer.ts). */
function httpUrls(rpcUrls: string[]): string[] {
  const http = rpcUrls.filter((u) => !/^wss?:\/\//i.test(u));
  return http.length > 0 ? http : rpcUrls.map((u) => u.replace(/^ws/i, 'http'));
}

/** Why a call failed, in the words an operator needs: the socket error under fetch's "fetch failed". */
function reason(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'no answer in time';
  return e?.cause?.message ?? e?.cause?.code ?? e?.message ?? String(err);
}

/**
 * What the indexer role needs before it starts: each enabled network (`networks`) answers
 * `eth_chainId` on at least one of its URLs. The URLs are shown as scheme and host only (providers
 * put API keys in the path). Which chain answers is the tailer's to check (a wrong one halts that
 * network with `chain_mismatch`); here only whether anything answers.
 */
export async function indexerStartChecks(db: DataSource, config: Pick<Config, 'PROBE_TIMEOUT_MS'>): Promise<StartCheck[]> {
  const networks = (await new NetworksService(db).allNetworks()).filter((n) => n.enabled);
  return networks.map((n) => {
    const urls = httpUrls(n.rpc_urls);
    return {
      dependency: `rpc ${n.chain_id}`,
      url: urls.map(redactUrl).join(', '),
      async probe() {
        const failures: string[] = [];
        for (const url of urls) {
          try {
            await rawRpc<string>(url, 'eth_chainId', [], config.PROBE_TIMEOUT_MS);
            return;
          } catch (err) {
            failures.push(urls.length > 1 ? `${redactUrl(url)}: ${reason(err)}` : reason(err));
          }
        }
        throw new Error(failures.join('; ') || 'no RPC URL');
      },
    };
  });
}
