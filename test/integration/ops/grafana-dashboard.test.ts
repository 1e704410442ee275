import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eventually } from '../../support/events';
import { useWholeService } from '../../support/whole-service';

const DASHBOARD = path.resolve(__dirname, '../../../ops/grafana/options-rfq.json');
const DATASOURCE = { type: 'prometheus', uid: '${DS_PROMETHEUS}' };

interface Target {
  refId: string;
  expr: string;
  datasource: unknown;
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: unknown;
  targets?: Target[];
}
interface Dashboard {
  uid: string;
  title: string;
  __inputs: { name: string; type: string; pluginId: string }[];
  panels: Panel[];
}

/** PromQL words that are not metric names: aggregation modifiers, set and vector-matching keywords. */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'offset', 'and', 'or', 'unless']);

/**
 * The metric names a PromQL expression reads: its identifiers once label matchers, strings,
 * range selectors and grouping label lists are removed, less function calls and keywords.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?!\s*\(|[A-Za-z0-9_:])/g)].map((m) => m[0]);
  return [...new Set(names.filter((n) => !KEYWORDS.has(n)))];
}

/** `# TYPE name kind` of a Prometheus text exposition: every family the scrape names, samples or not. */
function families(exposition: string): Map<string, string> {
  return new Map([...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/** A name a scrape exports: a family, or a histogram's or summary's derived series. */
function exported(name: string, fams: Map<string, string>): boolean {
  if (fams.has(name)) return true;
  const m = /^(.+)_(bucket|sum|count)$/.exec(name);
  const kind = m ? fams.get(m[1]) : undefined;
  return kind === 'histogram' || (kind === 'summary' && m?.[2] !== 'bucket');
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const queries = dashboard.panels.filter((p) => p.type !== 'row');
const exprs = queries.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

describe('the Grafana dashboard ops/grafana/options-rfq.json', () => {
  it('is an importable dashboard: uid, title, the Prometheus input, and every panel and target on it', () => {
    expect(dashboard.uid).toBe('options-rfq');
    expect(dashboard.title).toBe('Options RFQ');
    expect(dashboard.__inputs).toEqual([expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' })]);
    expect(queries.length).toBeGreaterThan(10);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const p of queries) {
      expect({ panel: p.title, datasource: p.datasource }).toEqual({ panel: p.title, datasource: DATASOURCE });
      expect({ panel: p.title, targets: (p.targets ?? []).length > 0 }).toEqual({ panel: p.title, targets: true });
      for (const t of p.targets ?? []) expect({ panel: p.title, datasource: t.datasource }).toEqual({ panel: p.title, datasource: DATASOURCE });
    }
  });

  it('has the panels an operator looks for first: quote rate, fan-out latency, queue depths, indexer lag, socket connections', () => {
    const reads = new Set(exprs.flatMap((e) => metricNames(e.expr)));
    for (const name of [
      'rfq_quotes_created_total',
      'socket_fanout_seconds_bucket',
      'rfq_queue_jobs',
      'indexer_head_block',
      'indexer_cursor_block',
      'socket_connections',
    ]) {
      expect(reads).toContain(name);
    }
  });

  it('reads metric names out of PromQL, not label names, functions or ranges', () => {
    expect(metricNames('histogram_quantile(0.99, sum by (le, chain_id) (rate(indexer_rpc_seconds_bucket{method="eth_getLogs"}[$__rate_interval])))')).toEqual([
      'indexer_rpc_seconds_bucket',
    ]);
    expect(metricNames('max by (chain_id) (indexer_head_block - indexer_cursor_block) > bool 5')).toEqual(['indexer_head_block', 'indexer_cursor_block']);
  });

  describe('against the /metrics of the running service (all four roles)', () => {
    const whole = useWholeService();

    it('reads only metric names the service exports', async () => {
      // The indexer's gauges are made when its first tailer starts, after the devchain is registered.
      const scrape = await eventually(
        async () => (await fetch(`${whole.svc.url}/metrics`)).text(),
        (text) => families(text).has('indexer_head_block'),
        90_000,
        'the indexer tailer has started',
      );
      const fams = families(scrape);
      const unknown = exprs.flatMap(({ panel, expr }) =>
        metricNames(expr)
          .filter((name) => !exported(name, fams))
          .map((name) => `${panel}: ${name}`),
      );
      expect(unknown).toEqual([]);
    }, 180_000);
  });
});
