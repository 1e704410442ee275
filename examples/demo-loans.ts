import { parseEther, parseUnits } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RfqClient } from '../client/src';
import { expectedAddresses } from '../dev/deploy';
import { lendingActions } from '../dev/lending';
import { hardhatAccounts, localPublicClient, localWalletClient } from '../shared/chain/clients';
import { log } from './console-log';

const WAD = 10n ** 18n;

/**
 * Loans on the devchain `npm start` runs, then read back through Explore: the oracle prices
 * WETH, WBTC and USDC; a lender opens three loans to two borrowers; one is topped up and partly
 * repaid, one repaid in full; WETH falls, which puts one loan at risk and makes another
 * liquidatable; a liquidator takes it. Every step is printed, then the nine loan routes' answers
 * in short. Exits non-zero if any step fails.
 */
async function main(): Promise<void> {
  const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:8080';
  const origin = process.env.DEMO_ORIGIN ?? 'http://localhost:3000';
  const client = new RfqClient(baseUrl);
  const { networks } = await client.networks();
  const net = networks.find((n) => n.chain_id === 31337);
  if (!net) throw new Error('network 31337 is not registered: is `npm start` running with its devchain?');
  const rpcUrl = net.rpc_urls[0];
  // The lending market's contract keys are margin_* (not served by GET /api/networks); the devchain's addresses are fixed.
  const a = expectedAddresses();
  const chain = localPublicClient(rpcUrl);
  const accounts = hardhatAccounts(10);
  const wallet = (i: number) => localWalletClient(rpcUrl, accounts[i]);
  // Account 0 deployed the oracle and sets its prices; the others are funded Hardhat accounts.
  const [owner, lender, alice, bob, liquidator] = [wallet(0), wallet(5), wallet(6), wallet(7), wallet(8)];
  const lend = lendingActions(chain, a);
  const now = Number((await chain.getBlock()).timestamp);
  const month = now + 30 * 86_400;

  await lend.setPrice(owner, a.weth, 3000n * WAD);
  await lend.setPrice(owner, a.wbtc, 60_000n * WAD);
  await lend.setPrice(owner, a.usdc, WAD);
  log('oracle', 'prices set', { WETH: 3000, WBTC: 60000, USDC: 1 });

  const usdc = (n: string) => parseUnits(n, 6);
  const topped = await lend.openLoan(lender, alice, {
    collateralToken: a.weth,
    collateralAmount: parseEther('1'),
    debtToken: a.usdc,
    principal: usdc('1800'),
    rateBps: 600,
    maturity: month,
  });
  log('lender', 'loan opened: 1 WETH against 1800 USDC at 6%', { loan: `31337-${topped}`, borrower: alice.account.address });
  const risky = await lend.openLoan(lender, bob, {
    collateralToken: a.weth,
    collateralAmount: parseEther('1'),
    debtToken: a.usdc,
    principal: usdc('2000'),
    rateBps: 800,
    maturity: month,
  });
  log('lender', 'loan opened: 1 WETH against 2000 USDC at 8%', { loan: `31337-${risky}`, borrower: bob.account.address });
  const repaid = await lend.openLoan(lender, bob, {
    collateralToken: a.wbtc,
    collateralAmount: parseUnits('0.1', 8),
    debtToken: a.usdc,
    principal: usdc('3000'),
    rateBps: 450,
    maturity: month,
  });
  log('lender', 'loan opened: 0.1 WBTC against 3000 USDC at 4.5%', { loan: `31337-${repaid}`, borrower: bob.account.address });

  await lend.addCollateral(alice, a.weth, topped, parseEther('0.5'));
  log('borrower', 'topped up 0.5 WETH', { loan: `31337-${topped}` });
  await lend.repay(alice, a.usdc, topped, usdc('600'));
  log('borrower', 'repaid 600 USDC (interest first, then principal)', { loan: `31337-${topped}` });
  await lend.repayAll(bob, a.usdc, repaid);
  log('borrower', 'repaid in full; the WBTC went back', { loan: `31337-${repaid}` });

  await lend.setPrice(owner, a.weth, 2400n * WAD);
  log('oracle', 'WETH falls to 2400', { health_of_risky_loan: Number((await lend.healthFactor(risky)) / 10n ** 14n) / 10_000 });
  await lend.liquidate(liquidator, a.usdc, risky);
  log('liquidator', 'liquidated: paid the debt, took the WETH', { loan: `31337-${risky}`, liquidator: liquidator.account.address });

  // Explore: a signed-in wallet from an allowed Origin (the website path of the gate).
  const { token } = await client.signIn(privateKeyToAccount(generatePrivateKey()));
  const analyst = client.as(token);
  const get = <T>(path: string) => analyst.call<T>('GET', path, undefined, { origin });
  // The indexer follows the chain a moment behind: wait until it has the liquidation.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const loan = await get<{ state: string }>(`/api/margin/loans/31337-${risky}`).catch(() => null);
    if (loan?.state === 'liquidated') break;
    if (Date.now() > deadline) throw new Error('the indexer did not show the liquidation within 30 s: is the indexer role running?');
    await new Promise((r) => setTimeout(r, 250));
  }
  const summary = await get<{ networks: { chain_id: number; totals: unknown }[] }>('/api/explore/loans/summary?chain_id=31337');
  log('explore', 'summary', summary.networks[0]?.totals as Record<string, unknown>);
  const atRisk = await get<{ items: { id: string; health_factor: string }[] }>('/api/explore/loans/at-risk?chain_id=31337&below=3');
  log('explore', 'health below 3', { loans: atRisk.items.map((l) => `${l.id} health ${l.health_factor}`) });
  const recent = await get<{ items: { id: string }[] }>('/api/explore/loans/recent?chain_id=31337');
  log('explore', 'recent openings', { loans: recent.items.map((l) => l.id) });
  const activity = await get<{ items: { loan: string; kind: string }[] }>('/api/explore/loans/activity?chain_id=31337&limit=20');
  log('explore', 'activity', { events: activity.items.map((e) => `${e.loan} ${e.kind}`) });
  const events = await get<{ items: { type: string }[] }>('/api/explore/loans/events?chain_id=31337&limit=20');
  log('explore', 'chain events', { count: events.items.length, prices: events.items.filter((e) => e.type === 'price').length });
  const stream = await analyst.call<{ topic: string }>('POST', '/api/explore/loans/stream', { chain_id: 31337 }, { origin });
  log('explore', 'loan stream minted', { topic: `${stream.topic.split(':')[0]}:<token>` });
  const list = await get<{ items: { id: string; state: string }[] }>(`/api/margin/loans?chain_id=31337&borrower=${bob.account.address}`);
  log('explore', "bob's loans", { loans: list.items.map((l) => `${l.id} ${l.state}`) });
  const one = await get<{ id: string; history: { kind: string }[] }>(`/api/margin/loans/31337-${topped}`);
  log('explore', 'one loan with its history', { loan: one.id, history: one.history.map((e) => e.kind) });
  const collateral = await get<{ items: { kind: string; collateral_delta: string }[] }>(`/api/margin/loans/31337-${topped}/collateral`);
  log('explore', 'its collateral movements', { movements: collateral.items.map((e) => `${e.kind} ${e.collateral_delta}`) });
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`demo:loans failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
