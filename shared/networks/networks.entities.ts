import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** An accepted chain: where to reach it and which contracts live there. */
@Entity({ name: 'networks' })
export class NetworkEntity {
  @PrimaryColumn({ type: 'integer' })
  chain_id: number;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'jsonb' })
  rpc_urls: string[];

  /** Contract name -> checksummed address. */
  @Column({ type: 'jsonb' })
  contracts: Record<string, string>;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /** Blocks behind head that the indexer treats as final. */
  @Column({ type: 'integer', default: 12 })
  confirmations: number;

  @CreateDateColumn({ type: 'timestamptz' })
  created_at: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}

/** A token known on a network, with the roles the product gives it. */
@Entity({ name: 'tokens' })
@Index(['chain_id', 'address'], { unique: true })
export class TokenEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @Column({ type: 'integer' })
  chain_id: number;

  @Column({ type: 'text' })
  address: string;

  @Column({ type: 'text' })
  symbol: string;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'integer' })
  decimals: number;

  @Column({ type: 'boolean', default: false })
  is_payment: boolean;

  @Column({ type: 'boolean', default: false })
  is_default_premium: boolean;

  /** A testnet mock with a public faucet. */
  @Column({ type: 'boolean', default: false })
  is_faucet: boolean;

  /** Suggested minimum notional in token units, as a decimal string. */
  @Column({ type: 'numeric', precision: 78, scale: 0, nullable: true })
  min_notional: string | null;
}

/** Operator-set values, one JSON document per key, validated per key on write. */
@Entity({ name: 'settings' })
export class SettingEntity {
  @PrimaryColumn({ type: 'text' })
  key: string;

  @Column({ type: 'jsonb' })
  value: unknown;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated_at: Date;
}
