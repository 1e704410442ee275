import type { Express } from 'express';
import type { ApiContext } from '../../api/context';
import { request } from './http';
import { bearer, newWallet, signedKeyAdd, signIn, signStatement } from './wallets';

/** Every credential the Explore gate's audience table names, issued through the real routes. */
export interface ExploreCredentials {
  /** SIWE bearer of a plain wallet (the trading app's path). */
  session: string;
  /** Delegate minted with a taker API key: carries key_id (the integrator's path). */
  keyedDelegate: string;
  /** A second keyed delegate of the same taker key, for another wallet. */
  keyedDelegate2: string;
  /** A keyed delegate of another taker key (another organization). */
  otherKeyDelegate: string;
  /** Delegate minted from the taker admin UI: no key_id. */
  adminDelegate: string;
  takerSecret: string;
  makerSecret: string;
}

async function takerOrg(app: Express, ctx: ApiContext, name: string) {
  const admin = newWallet();
  const adminToken = await signIn(app, admin);
  const org = await ctx.services.identity.orgs.create({ kind: 'taker', name, owner: admin.address });
  const secret: string = (await request(app).post('/api/taker/keys').set(bearer(adminToken)).send({ name: 'backend' }).expect(201)).body.secret;
  const delegate = async () =>
    (await request(app).post('/api/taker/delegate').set(bearer(secret)).send({ address: newWallet().address, expires_in: 600 }).expect(200)).body
      .token as string;
  return { admin, adminToken, org, secret, delegate };
}

export async function exploreCredentials(app: Express, ctx: ApiContext): Promise<ExploreCredentials> {
  const session = await signIn(app, newWallet());
  const taker = await takerOrg(app, ctx, 'Integrator');
  const other = await takerOrg(app, ctx, 'Other integrator');
  const user = newWallet().address;
  const signed = await signStatement(taker.admin, { kind: 'taker', action: 'mint_delegate', member: user, organization: taker.org.id, name: 'Integrator' });
  const adminDelegate = (
    await request(app)
      .post('/api/taker/delegate')
      .set(bearer(taker.adminToken))
      .send({ address: user, expires_in: 600, ...signed })
      .expect(200)
  ).body.token;

  const makerAdmin = newWallet();
  const makerAdminToken = await signIn(app, makerAdmin);
  const makerOrg = await ctx.services.identity.orgs.create({ kind: 'maker', name: 'Maker', owner: makerAdmin.address });
  const keyAdd = await signedKeyAdd(makerAdmin, newWallet(), { organization: makerOrg.id, name: 'bot' });
  const makerSecret = (await request(app).post('/api/maker/keys').set(bearer(makerAdminToken)).send(keyAdd).expect(201)).body.secret;
  return {
    session,
    keyedDelegate: await taker.delegate(),
    keyedDelegate2: await taker.delegate(),
    otherKeyDelegate: await other.delegate(),
    adminDelegate,
    takerSecret: taker.secret,
    makerSecret,
  };
}
