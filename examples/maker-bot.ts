import { formatUnits, parseUnits, type Address } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  networkContract,
  RfqClient,
  RfqSocket,
  signPackageOffer,
  type DutchBidRequest,
  type MakerRfqRequest,
  type MakerRfqResult,
  type PackageOfferRequest,
} from '../client/src';
import { fillDutchAward, type FillablePayload } from '../docs/snippets/dutch-fill';
import { DEVCHAIN_CHAIN_ID } from '../shared/chain/clients';
import { ensureFillBond } from './ensure-fill-bond';
import { log } from './console-log';
import { ensureMakerOrganization } from './maker-organization';

/** Hardhat's fourth default account (#3): funded on every devchain, and used by no demo. */
const DEVCHAIN_MAKER_KEY = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';

/** What the bot reads from its environment (README.md, "A maker bot"), with the defaults `npm start` needs. */
export interface MakerBotConfig {
  baseUrl: string;
  chainId: number;
  makerKey: `0x${string}`;
  /** Premium per leg for one whole option (amount 1e18), in whole premium tokens: the pricing rule's one knob. */
  premiumPerLeg: string;
  /** The improvement bid on both sides of every Dutch auction, in basis points. */
  dutchBps: number;
}

export function configFromEnv(env: NodeJS.ProcessEnv): MakerBotConfig {
  const dutchBps = Number(env.MAKER_BOT_DUTCH_BPS ?? 25);
  if (!Number.isInteger(dutchBps) || dutchBps < 0 || dutchBps > 5000) throw new Error('MAKER_BOT_DUTCH_BPS must be an integer from 0 to 5000');
  const premiumPerLeg = env.MAKER_BOT_PREMIUM_PER_LEG ?? '25';
  if (!/^\d+(\.\d+)?$/.test(premiumPerLeg)) throw new Error('MAKER_BOT_PREMIUM_PER_LEG must be a decimal number of whole premium tokens, e.g. 25 or 12.5');
  return {
    baseUrl: env.BASE_URL ?? 'http://127.0.0.1:8080',
    chainId: Number(env.CHAIN_ID ?? 31337),
    makerKey: (env.MAKER_PRIVATE_KEY ?? DEVCHAIN_MAKER_KEY) as `0x${string}`,
    premiumPerLeg,
    dutchBps,
  };
}

/**
 * The pricing rule: a fixed premium per leg, scaled by the leg's size. A leg of amount 1e18 (one
 * whole option) costs `perLeg`; a butterfly of 1, 2 and 1 options costs 4 * perLeg. The taker
 * pays it. Deliberately naive: a real maker prices from its own volatility surface.
 */
export function packagePremium(legs: readonly { amount: string }[], perLeg: bigint): bigint {
  return legs.reduce((sum, l) => sum + (perLeg * BigInt(l.amount)) / 10n ** 18n, 0n);
}

/** The maker feed's `rfq_request`: a standard quote, or a Dutch auction in one of its phases. */
type FeedRequest = MakerRfqRequest | { quote_id: string; offer_format: 'dutch_only'; dutch_phase: string; strategy: string };
interface FeedEvents {
  rfq_request: FeedRequest;
}
interface OwnEvents {
  rfq_result: MakerRfqResult;
  dutch_award: FillablePayload;
}

/**
 * A wallet that belongs to no maker organization cannot answer. On the devchain the bot has the
 * operator CLI make one (the database of DATABASE_URL, `npm start`'s by default) and reuses it
 * on every later start; elsewhere an operator must.
 */
async function signInAsMaker(api: RfqClient, account: PrivateKeyAccount, chainId: number): Promise<{ token: string; organization: string }> {
  if (chainId === DEVCHAIN_CHAIN_ID) {
    const maker = await ensureMakerOrganization(api, account, { name: `Maker bot ${account.address}` });
    if (maker.created) {
      log('maker-bot', 'created a maker organization on the devchain (operator CLI org:create)', { owner: account.address, organization: maker.organization });
    }
    return maker;
  }
  const { token } = await api.signIn(account);
  const session = await api.as(token).me();
  if (session.tier === 'maker') return { token, organization: session.organization_id };
  throw new Error(`${account.address} is in no maker organization: ask an operator for \`npm run ops -- org:create --kind maker --owner ${account.address}\``);
}

/**
 * The maker bot: signs in, tops its BondVault bond up to the API's fill bond requirement,
 * joins the request feed, prices every standard quote with `packagePremium` and bids `dutchBps`
 * on both sides of every Dutch auction, dry-running each offer and bid first and sending only
 * what the dry-run accepts; fills the Dutch auctions it wins.
 */
export async function runMakerBot(cfg: MakerBotConfig): Promise<{ stop: () => Promise<void> }> {
  const api = new RfqClient(cfg.baseUrl);
  const account = privateKeyToAccount(cfg.makerKey);
  const net = (await api.networks()).networks.find((n) => n.chain_id === cfg.chainId);
  if (!net) throw new Error(`chain ${cfg.chainId} is not served by ${cfg.baseUrl}: is \`npm start\` running?`);
  const { token, organization } = await signInAsMaker(api, account, cfg.chainId);
  const maker = api.as(token);
  log('maker-bot', `signed in as ${account.address}`, { organization });

  const premiumToken = (await api.defaultPremiumTokens()).tokens.find((t) => t.chain_id === cfg.chainId);
  if (!premiumToken) throw new Error(`chain ${cfg.chainId} has no default premium token`);
  const units = (v: bigint) => `${formatUnits(v, premiumToken.decimals)} ${premiumToken.symbol}`;
  const perLeg = parseUnits(cfg.premiumPerLeg, premiumToken.decimals);

  // The bond: what GET /api/bond-requirements asks of a bid or an exclusive fill in this token, counted once indexed.
  const bond = await ensureFillBond(api, account, cfg.chainId);
  if (bond.tx) {
    const now = bond.held + bond.deposited;
    log('maker-bot', `bond: deposited ${units(bond.deposited)} in the BondVault, now ${units(now)} (needed ${units(bond.needed)})`, { tx: bond.tx });
  } else {
    log('maker-bot', `bond: ${units(bond.held)} held, ${units(bond.needed)} needed`);
  }

  const mothership = networkContract(net, 'mothership');
  const { abis } = await api.abis();
  let nonce = BigInt(Date.now()) * 1000n;

  /** Dry-runs the body at POST /api/quote/:id/dry-run; true when the real call would be accepted. */
  const dryRun = async (quoteId: string, what: string, body: PackageOfferRequest | DutchBidRequest): Promise<boolean> => {
    try {
      const answer = await maker.dryRunOffer(quoteId, body);
      if (answer.would === 'accept') {
        log('maker-bot', `dry-run accept: ${what} on ${quoteId}`);
        return true;
      }
      log('maker-bot', `dry-run refuse: ${what} on ${quoteId}: ${answer.status} ${answer.error?.code ?? ''} ${answer.error?.error ?? ''}`.trimEnd());
    } catch (err) {
      // An ApiError's message carries the method, path, status and code.
      log('maker-bot', `dry-run failed: ${what} on ${quoteId}: ${(err as Error).message}`);
    }
    return false;
  };

  const offerOn = async (req: MakerRfqRequest) => {
    const premium = packagePremium(req.legs, perLeg);
    log('maker-bot', `request ${req.quote_id}: ${req.strategy}, ${req.legs.length} legs, priced at ${units(premium)}`);
    const body: PackageOfferRequest = await signPackageOffer(account, {
      chainId: req.chain_id,
      mothership,
      takerAddressHash: req.taker_address_hash as `0x${string}`,
      legs: req.legs,
      packagePremium: premium,
      premiumToken: premiumToken.address as Address,
      maker: account.address,
      nonce: ++nonce,
      deadline: Math.floor(Date.parse(req.expires_at) / 1000),
    });
    if (!(await dryRun(req.quote_id, 'package offer', body))) return;
    const sent = await maker.submitOffer(req.quote_id, body);
    log('maker-bot', `offer sent on ${req.quote_id}`, { offer_id: sent.offer.offer_id, premium: body.package_premium });
  };

  const bidOn = async (quoteId: string, strategy: string) => {
    const bid: DutchBidRequest = { buy_override_bps: cfg.dutchBps, sell_override_bps: cfg.dutchBps };
    log('maker-bot', `Dutch request ${quoteId}: ${strategy}, bidding ${cfg.dutchBps} bps on both sides`);
    if (!(await dryRun(quoteId, 'Dutch bid', bid))) return;
    const sent = await maker.submitDutchBid(quoteId, bid);
    log('maker-bot', `bid sent on ${quoteId}`, { version: sent.bid.version });
  };

  const fill = async (award: FillablePayload) => {
    log('maker-bot', `won Dutch ${award.quote_id}: filling before ${new Date(award.award.exclusive_end * 1000).toISOString()}`);
    const tx = await fillDutchAward({ rpcUrl: net.rpc_urls[0], chainId: cfg.chainId, mothership, mothershipAbi: abis.mothership }, account, award);
    log('maker-bot', `filled Dutch ${award.quote_id} on chain`, { tx });
  };

  const failed = (what: string) => (err: unknown) => log('maker-bot', `${what} failed: ${(err as Error).message}`);
  const reg = await maker.registerPremium(cfg.chainId);
  const socket = new RfqSocket({ url: api.socketUrl });
  await socket.subscribe<FeedEvents>(reg.quotes_requests_topic, {
    params: { token },
    on: {
      rfq_request: (req) => {
        if (!('dutch_phase' in req)) void offerOn(req).catch(failed(`offer on ${req.quote_id}`));
        // Later phases of a Dutch auction are fillable by anyone at the override or curve price: this bot only bids.
        else if (req.dutch_phase === 'competing') void bidOn(req.quote_id, req.strategy).catch(failed(`bid on ${req.quote_id}`));
      },
    },
  });
  await socket.subscribe<OwnEvents>(`rfq_maker:${account.address}`, {
    params: { token },
    on: {
      rfq_result: (r) => log('maker-bot', `quote ${r.quote_id} is ${r.state}`),
      dutch_award: (award) => void fill(award).catch(failed(`fill of ${award.quote_id}`)),
    },
  });
  log('maker-bot', `listening on ${reg.quotes_requests_topic}`, { premium_per_leg: units(perLeg), dutch_bps: cfg.dutchBps });
  return { stop: () => socket.disconnect() };
}

if (require.main === module) {
  runMakerBot(configFromEnv(process.env)).then(
    (bot) => {
      const stop = () => void bot.stop().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err: unknown) => {
      process.stderr.write(`maker bot failed to start: ${(err as Error).message}\n`);
      process.exit(1);
    },
  );
}
